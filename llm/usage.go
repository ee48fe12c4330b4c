package llm

// Usage counts the tokens and requests spent on model calls.
//
// Adapters normalize what providers report: InputTokens includes cached and
// cache-creation tokens (which are also counted on their own), and
// OutputTokens includes ReasoningTokens.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CachedInputTokens   int64 `json:"cached_input_tokens,omitempty"`
	CacheCreationTokens int64 `json:"cache_creation_tokens,omitempty"`
	ReasoningTokens     int64 `json:"reasoning_tokens,omitempty"`
	// Requests counts successful calls.
	Requests int64 `json:"requests"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheCreationTokens += o.CacheCreationTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.Requests += o.Requests
}

// Total returns the total number of tokens: input plus output.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// IsZero reports whether nothing was counted.
func (u Usage) IsZero() bool { return u == Usage{} }
