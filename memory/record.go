package memory

import "time"

// A Record is one remembered piece of text.
type Record struct {
	// ID identifies the record within its store.
	ID string
	// Content is the remembered text.
	Content string
	// Scope is the clean, absolute scope path the record is filed under.
	Scope string
	// Categories are free-form labels; recall can filter on them.
	Categories []string
	// Importance ranges over [0, 1]; it weighs in the recall score.
	Importance float64
	// CreatedAt is when the record was first written; recency decays from it.
	CreatedAt time.Time
	// UpdatedAt is when the record was last changed (equal to CreatedAt at first).
	UpdatedAt time.Time
	// Metadata is JSON data (nil, bool, int64, float64, string, []any,
	// map[string]any) kept with the record.
	Metadata map[string]any
	// Embedding is the vector of Content; stores compare vectors by cosine.
	Embedding []float32
}

// ScoreParts are the unweighted inputs of a recall score.
type ScoreParts struct {
	// Similarity is the cosine of the query and record vectors, in [-1, 1].
	Similarity float64
	// Recency is 0.5^(age/half-life), in (0, 1]; records from the future count as new.
	Recency float64
	// Importance is the record's importance.
	Importance float64
}

// A Match is a record found by a search, with its score.
type Match struct {
	Record Record
	// Score is the weighted sum of Parts under the request's Ranking.
	Score float64
	// Parts are the unweighted components of Score.
	Parts ScoreParts
}

// A Filter selects records by scope, category and age.
type Filter struct {
	// Scope keeps records filed under this scope or below it; "" and "/"
	// keep all.
	Scope string
	// Categories keeps records having at least one of these categories;
	// empty keeps all.
	Categories []string
	// Since keeps records created at or after this time; zero keeps all.
	Since time.Time
	// Limit caps the number of results; zero or less means no cap.
	Limit int
}

// A SearchRequest asks a store for the records nearest to a vector.
type SearchRequest struct {
	// Vector is the query embedding; stores normalise it. An empty Vector
	// gives every record similarity 0, leaving recency and importance to rank.
	Vector []float32
	// Filter restricts the candidates; Filter.Limit caps the results.
	Filter Filter
	// MinSimilarity drops candidates whose cosine similarity is below it.
	// Zero keeps everything with a non-negative similarity; set it to -1 to
	// keep all.
	MinSimilarity float64
	// Ranking orders the results; the zero Ranking orders by similarity.
	Ranking Ranking
	// Now is the time recency is measured from.
	Now time.Time
}
