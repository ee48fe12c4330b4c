// Package memory gives agents and flows a long-term memory: records of text
// filed under scope paths, recalled by meaning, recency and importance.
//
// A [Memory] writes through [Memory.Remember], reads through [Memory.Recall]
// and deletes through [Memory.Forget] and [Memory.ForgetScope]. It keeps its
// records in a [Store] (the in-memory [NewInMemoryStore], or the SQLite store
// in memory/sqlite) and turns text into vectors with an [Embedder].
//
// The defaults work offline and cost nothing: [LexicalEmbedder] hashes words
// and character trigrams into a vector without a model or a network, and no
// LLM is called unless a [Model] is configured. When one is, every call it
// makes (and every paid embedding call) is reported through [Options.OnSpend]
// and added up in [Memory.Usage].
//
// Recall ranks records by a composite score
//
//	score = 0.5·similarity + 0.3·0.5^(age_days/30) + 0.2·importance
//
// where similarity is the cosine of the query and record vectors; weights and
// half-life are set with [Ranking]. Every [Match] carries the parts.
//
// Scopes are slash-separated paths such as /flow/<name>/agent/<role>. A scope
// contains itself and every path below it, segment by segment: /flow/a
// contains /flow/a/x but not /flow/ab.
//
// Start with [New] and [Memory] (memory.go), then remember.go and recall.go;
// [Store] (store.go) is what backends such as memory/sqlite implement.
//
// It imports internal packages only; it must not import flow, action or
// storage drivers (memory/sqlite holds one).
package memory
