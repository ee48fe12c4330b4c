package flow

// DefaultMaxAliasBytes is the least that YAML aliases may add to a
// document by default: a definition that repeats an anchored block (an
// agent, a prompt) through aliases may grow by up to this many bytes, or
// by ten times its own size when that is more. Real definitions stay far
// below; a "billion laughs" document, or one large string aliased a
// thousand times, stops with an error instead of filling memory (and
// later the prompts, the state and the stored runs).
const DefaultMaxAliasBytes = 4 << 20

// aliasGrowth is how many times its own size aliases may add to a
// document by default.
const aliasGrowth = 10

// A LoadOption changes how Load, Parse, Check and CheckFile read a
// definition.
type LoadOption func(*loadOptions)

type loadOptions struct {
	// maxAliasBytes bounds the bytes alias expansion may add; 0 means the
	// default, which depends on the document's size; negative means none.
	maxAliasBytes int
}

// WithMaxAliasBytes sets how many bytes YAML aliases may add to a document
// (the text of every scalar copied by expanding an alias, plus one byte
// for each copied node). Past it, loading fails with a "too_large" error
// at the alias that crosses the limit. n < 0 removes the limit (the bound
// on the number of copied nodes stays); 0 keeps the default,
// DefaultMaxAliasBytes or ten times the document's size, whichever is
// more.
func WithMaxAliasBytes(n int) LoadOption {
	return func(o *loadOptions) { o.maxAliasBytes = n }
}

func newLoadOptions(opts []LoadOption) loadOptions {
	var o loadOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// aliasLimit returns the alias byte budget for a document of size bytes,
// or -1 for none.
func (o loadOptions) aliasLimit(size int) int {
	switch {
	case o.maxAliasBytes > 0:
		return o.maxAliasBytes
	case o.maxAliasBytes < 0:
		return -1
	}
	return max(DefaultMaxAliasBytes, aliasGrowth*size)
}
