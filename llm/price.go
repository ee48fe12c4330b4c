package llm

// A Price is what a model charges, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
	// CachedInput is the price of cached input tokens; 0 means Input.
	CachedInput float64 `json:"cached_input,omitempty" yaml:"cached_input,omitempty"`
}

// Cost returns what u costs at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	in := float64(u.InputTokens-u.CachedInputTokens)*p.Input + float64(u.CachedInputTokens)*cached
	return (in + float64(u.OutputTokens)*p.Output) / 1e6
}

// Prices are the prices of models, by model string ("openai/gpt-4o") or
// bare model name ("gpt-4o").
type Prices map[string]Price

// Lookup returns the price of model: its entry, else the entry of its bare
// name (without the provider prefix).
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	if _, bare := ParseModel(model); bare != model {
		pr, ok := p[bare]
		return pr, ok
	}
	return Price{}, false
}
