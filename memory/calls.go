package memory

import (
	"context"
	"fmt"
)

// embed calls the embedder once for texts, reporting what it cost. Its
// errors have no package prefix: callers wrap them.
func (c *core) embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, usage, err := c.opts.Embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if !usage.IsZero() {
		c.report(Spend{Kind: SpendEmbed, Usage: usage, Err: err})
	}
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return vecs, nil
}

// ask calls the model once with prompt and hands the reply to read; the
// call is reported as one Spend whose Err is the call's or read's error.
// The error is returned for the caller to fall back on defaults.
func (c *core) ask(ctx context.Context, kind SpendKind, prompt string, read func(reply string) error) error {
	reply, usage, err := c.opts.Model.Complete(ctx, prompt)
	if usage.Requests == 0 {
		usage.Requests = 1
	}
	if err != nil {
		err = fmt.Errorf("memory: %s call: %w", kind, err)
	} else if rerr := read(reply); rerr != nil {
		err = fmt.Errorf("memory: %s reply: %w", kind, rerr)
	}
	c.report(Spend{Kind: kind, Usage: usage, Err: err})
	return err
}
