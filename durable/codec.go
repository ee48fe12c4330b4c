package durable

import (
	"fmt"
	"log/slog"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// Payload size limits. Temporal refuses payloads of 2 MiB and warns at
// 512 KiB; DBOS has no limit of its own, but every recorded byte is read
// back on recovery. Troupe warns at WarnSize and refuses at MaxSize, well
// below 2 MiB, so a flow that runs on one engine runs on the others.
const (
	WarnSize = 512 << 10
	MaxSize  = 1536 << 10
)

// A PayloadTooLargeError is the failure of an effect whose encoded request
// or result is larger than the codec's limit.
type PayloadTooLargeError struct {
	// Key is the effect's key ([flow.Effect.Key]); What says which
	// payload ("request", "result").
	Key, What   string
	Size, Limit int
}

func (e *PayloadTooLargeError) Error() string {
	return fmt.Sprintf("durable: effect %s: the encoded %s is %d bytes, more than the limit of %d; keep large data out of model conversations and tool results (store it elsewhere and pass a reference)",
		e.Key, e.What, e.Size, e.Limit)
}

// A Codec encodes effect payloads and checks their sizes. The zero value
// uses [WarnSize] and [MaxSize] and does not log.
type Codec struct {
	// Logger gets a warning for every payload above Warn bytes.
	Logger *slog.Logger
	// Warn and Max override WarnSize and MaxSize when positive.
	Warn, Max int
}

// check refuses a payload above the limit and warns above the warning
// size.
func (c *Codec) check(key, what string, b []byte) error {
	limit, warn := MaxSize, WarnSize
	if c != nil && c.Max > 0 {
		limit = c.Max
	}
	if c != nil && c.Warn > 0 {
		warn = c.Warn
	}
	if len(b) > limit {
		return &PayloadTooLargeError{Key: key, What: what, Size: len(b), Limit: limit}
	}
	if len(b) > warn && c != nil && c.Logger != nil {
		c.Logger.Warn("durable: large effect payload", "effect", key, "payload", what, "bytes", len(b), "warn_at", warn)
	}
	return nil
}

// EncodeValue encodes Troupe data (nil, bool, int64, float64, string,
// []any, map[string]any, and the Go spellings of them) for the effect
// key. Integers stay integers and floats floats; map keys are written
// sorted, so equal values encode to equal bytes.
func (c *Codec) EncodeValue(key, what string, v any) ([]byte, error) {
	b, err := jsondata.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("durable: effect %s: encode %s: %w", key, what, err)
	}
	if err := c.check(key, what, b); err != nil {
		return nil, err
	}
	return b, nil
}

// DecodeValue decodes what EncodeValue wrote.
func DecodeValue(b []byte) (any, error) {
	v, err := jsondata.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("durable: decode value: %w", err)
	}
	return v, nil
}
