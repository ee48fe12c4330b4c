package eventlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/troupe-dev/troupe/flow"
)

// A Writer writes events as JSON lines. Its Observe method is an event
// observer (flow.WithEvents(w.Observe)); it is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// NewWriter returns a writer of events to w. Call Flush when the run ends.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Observe writes ev as one line. After a write error it writes nothing
// more; Flush reports the error.
func (w *Writer) Observe(ev flow.Event) {
	rec := FromEvent(ev)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if err := w.enc.Encode(rec); err != nil {
		w.err = fmt.Errorf("eventlog: writing event %d: %w", ev.Seq, err)
	}
}

// Flush writes out what is buffered and returns the first error met.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = fmt.Errorf("eventlog: %w", err)
	}
	return w.err
}

// maxLine bounds one line of an event log (a large output or tool result).
const maxLine = 64 << 20

// Read reads the records of an event log. A line that is no record is an
// error naming its line number; blank lines are skipped.
func Read(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Record
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return out, fmt.Errorf("eventlog: line %d: not an event record: %w", line, err)
		}
		if rec.Kind == "" {
			return out, fmt.Errorf("eventlog: line %d: an event record needs a \"kind\"", line)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return out, fmt.Errorf("eventlog: a line longer than %d bytes: %w", maxLine, err)
		}
		return out, fmt.Errorf("eventlog: %w", err)
	}
	return out, nil
}
