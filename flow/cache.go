package flow

// DefaultProgramCache is how many compiled definitions an Engine keeps for
// Engine.Run, Stream and Resume.
const DefaultProgramCache = 64

// WithProgramCache sets how many compiled definitions the engine keeps for
// Engine.Run, Stream and Resume (the least recently used goes first); 0
// keeps none, so each call compiles its definition. Programs from
// Engine.Compile are never cached.
func WithProgramCache(n int) Option {
	return func(e *Engine) { e.cacheSize = max(n, 0) }
}
