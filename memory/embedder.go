package memory

import "context"

// An Embedder turns texts into vectors, one per text, in order. Memory
// compares vectors by cosine, so their scale does not matter.
type Embedder interface {
	// Embed returns the vectors of texts and what producing them cost
	// (zero for an offline embedder).
	Embed(ctx context.Context, texts []string) ([][]float32, Usage, error)
}

// EmbedderFunc adapts a function to the Embedder interface.
type EmbedderFunc func(ctx context.Context, texts []string) ([][]float32, Usage, error)

// Embed implements Embedder.
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	return f(ctx, texts)
}

// A Model completes a prompt; memory uses one, when configured, to file
// records (scope, categories, importance) and to consolidate similar ones.
// The engine adapts its LLM to this interface.
type Model interface {
	// Complete returns the model's reply to prompt and what it cost.
	Complete(ctx context.Context, prompt string) (text string, usage Usage, err error)
}

// ModelFunc adapts a function to the Model interface.
type ModelFunc func(ctx context.Context, prompt string) (string, Usage, error)

// Complete implements Model.
func (f ModelFunc) Complete(ctx context.Context, prompt string) (string, Usage, error) {
	return f(ctx, prompt)
}

// Usage counts what calls to a model or an embedding service cost.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	// Requests is the number of requests sent to a service.
	Requests int64
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:  u.InputTokens + o.InputTokens,
		OutputTokens: u.OutputTokens + o.OutputTokens,
		Requests:     u.Requests + o.Requests,
	}
}

// IsZero reports whether u counts nothing.
func (u Usage) IsZero() bool { return u == Usage{} }

// SpendKind says what a Spend paid for.
type SpendKind string

// The kinds of Spend.
const (
	// SpendFile is a Model call choosing a record's scope, categories or importance.
	SpendFile SpendKind = "file"
	// SpendConsolidate is a Model call merging a record with similar ones.
	SpendConsolidate SpendKind = "consolidate"
	// SpendEmbed is an Embedder call that cost something.
	SpendEmbed SpendKind = "embed"
)

// A Spend reports one call memory made to a Model, or to an Embedder that
// reported a non-zero Usage.
type Spend struct {
	Kind  SpendKind
	Usage Usage
	// Err is the call's error, or the error reading its reply; memory
	// falls back to defaults when a Model call fails.
	Err error
}

// Spending is what a Memory has spent since it was created.
type Spending struct {
	// Model is the sum of all Model calls.
	Model Usage
	// Embedding is the sum of all Embedder calls.
	Embedding Usage
}
