package llmtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/llm"
)

// script is the queue and the record shared by the wire servers.
type script struct {
	mu       sync.Mutex
	replies  []Reply
	received []Received
	respond  func(Received) Reply
}

// Respond makes the server answer every call with f's reply to it instead
// of the queued replies, so that answers follow from the requests (their
// messages, or a header the client sets) however calls interleave. f runs
// on the call's own goroutine, concurrently with other calls, and may
// block; a reply with Silent or Hang holds the call open until the client
// goes away. Respond(nil) returns to the queue.
func (s *script) Respond(f func(Received) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// Push implements [Server].
func (s *script) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Received implements [Server].
func (s *script) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// next records a call and pops its reply, or asks the Respond function
// for it; ok is false when neither gives one. It returns the record's
// index for later updates.
func (s *script) next(rec Received) (r Reply, idx int, ok bool) {
	s.mu.Lock()
	s.received = append(s.received, rec)
	idx = len(s.received) - 1
	if f := s.respond; f != nil {
		s.mu.Unlock()
		return f(rec), idx, true
	}
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return Reply{}, idx, false
	}
	r = s.replies[0]
	s.replies = s.replies[1:]
	return r, idx, true
}

func (s *script) gateTimedOut(idx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received[idx].GateTimedOut = true
}

// wait blocks on the reply's gate after the first piece; it reports false
// when the client went away.
func (s *script) wait(ctx context.Context, r Reply, idx int) bool {
	if r.Hang {
		<-ctx.Done()
		return false
	}
	if r.Gate == nil {
		return true
	}
	t := time.NewTimer(GateTimeout)
	defer t.Stop()
	select {
	case <-r.Gate:
	case <-ctx.Done():
		return false
	case <-t.C:
		s.gateTimedOut(idx)
	}
	return true
}

// newServer starts a loopback server and closes it when the test ends.
func newServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// readBody decodes a JSON request body, keeping integers as json.Number.
func readBody(r *http.Request) (map[string]any, error) {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	return body, nil
}

// writeJSON writes v with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing after each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name may be empty.
func (s *sse) event(name string, data any) {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: ")
	if str, ok := data.(string); ok {
		b.WriteString(str)
	} else {
		js, _ := json.Marshal(data)
		b.Write(js)
	}
	b.WriteString("\n\n")
	_, _ = s.w.Write([]byte(b.String()))
	if s.f != nil {
		s.f.Flush()
	}
}

// split cuts s into up to n pieces of about equal length (never inside a
// UTF-8 sequence); "" gives no pieces.
func split(s string, n int) []string {
	if n <= 0 {
		n = 3
	}
	if s == "" {
		return nil
	}
	runes := []rune(s)
	n = min(n, len(runes))
	out := make([]string, 0, n)
	size := (len(runes) + n - 1) / n
	for i := 0; i < len(runes); i += size {
		out = append(out, string(runes[i:min(i+size, len(runes))]))
	}
	return out
}

// finish returns the reply's finish reason, inferred when not set.
func (r Reply) finish() llm.FinishReason {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	if len(r.ToolCalls) > 0 {
		return llm.FinishToolCalls
	}
	return llm.FinishStop
}

// args returns a call's arguments, "{}" when empty.
func args(c llm.ToolCall) string {
	if len(c.Arguments) == 0 {
		return "{}"
	}
	return string(c.Arguments)
}

// Helpers to read decoded JSON.

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func floatPtr(v any) *float64 {
	if f, ok := num(v); ok {
		return &f
	}
	return nil
}

func intVal(v any) int {
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, str(e))
		}
		return out
	}
	return nil
}

// plain converts decoded JSON (with json.Number) to canonical JSON data,
// copying containers.
func plain(v any) any {
	out, _ := jsondata.Convert(v, &decodedData)
	return out
}

var decodedData = jsondata.Options{Copy: true, Unknown: jsondata.Keep}

func object(v any) map[string]any {
	m, _ := plain(v).(map[string]any)
	return m
}

// rawJSON encodes decoded JSON back to text.
func rawJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// rawJSONValue returns JSON text as a value that encodes to it.
func rawJSONValue(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}
