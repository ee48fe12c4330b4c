package httpcall

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxErrorBody bounds how much of a failed response's body is kept.
const maxErrorBody = 64 << 10

// A Capture records the status, headers and body of the last failed HTTP
// response seen by its [Capture.Middleware]. Use one per attempt.
type Capture struct {
	mu     sync.Mutex
	status int
	header http.Header
	body   []byte
}

// Middleware is an SDK middleware (both SDKs use this signature) that
// records failed responses and hands the SDK an unread copy of the body.
func (c *Capture) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil || resp.StatusCode < 400 {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	c.status, c.header, c.body = resp.StatusCode, resp.Header.Clone(), body
	c.mu.Unlock()
	return resp, nil
}

// Failure returns the recorded status (0 when no failed response was seen),
// headers and body.
func (c *Capture) Failure() (status int, header http.Header, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.header, c.body
}

// ParseRetryAfter reads how long a response asks the client to wait:
// retry-after-ms (milliseconds), else Retry-After as seconds or an HTTP date
// (relative to now). It returns 0 when there is no usable value.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// ParseErrorBody extracts the provider's message and error code or type from
// an error body. It understands {"error": {"message", "code", "type"}}
// (OpenAI, Anthropic and most compatible servers), {"error": "text"}
// (Ollama, some proxies) and {"message": ..., "detail": ...}; anything else
// is returned trimmed as the message.
func ParseErrorBody(body []byte) (message, code string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", ""
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return truncate(string(body), 500), ""
	}
	switch e := doc["error"].(type) {
	case string:
		return e, ""
	case map[string]any:
		message = str(e["message"])
		code = str(e["code"])
		if code == "" {
			code = str(e["type"])
		}
		if message != "" || code != "" {
			return message, code
		}
	}
	for _, k := range [...]string{"message", "detail", "error_message"} {
		if s := str(doc[k]); s != "" {
			return s, str(doc["code"])
		}
	}
	return truncate(string(body), 500), ""
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
