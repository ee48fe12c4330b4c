package dbos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

// keyHeader carries a request's effect key from a worker to the effect
// server.
const keyHeader = "X-Troupe-Effect-Key"

// effectServer is the kill tests' loopback model (the OpenAI Chat
// Completions wire format) and tool server. It answers from the request
// alone, so a replayed and a fresh run get the same answers, counts every
// request by its effect key, and can hold the request of one key open.
type effectServer struct {
	model *llmtest.OpenAIServer
	tools *httptest.Server

	mu    sync.Mutex
	calls map[string]int
	hold  string        // the key whose first request is held open
	held  chan struct{} // closed when it arrives
	stop  chan struct{} // closed when the test ends, to end held requests
}

func newEffectServer(t *testing.T) *effectServer {
	s := &effectServer{model: llmtest.NewOpenAIServer(t), calls: map[string]int{}, held: make(chan struct{}), stop: make(chan struct{})}
	s.model.Respond(func(r llmtest.Received) llmtest.Reply {
		if s.arrive(r.Header.Get(keyHeader)) {
			return llmtest.Reply{Silent: true}
		}
		return answer(r.Request)
	})
	s.tools = httptest.NewServer(http.HandlerFunc(s.serveTool))
	t.Cleanup(func() { close(s.stop); s.tools.Close() })
	return s
}

// Hold makes the server hold the first request with this key open until
// its client goes away; the channel closes when that request arrives.
func (s *effectServer) Hold(key string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = key
	return s.held
}

// arrive counts a request and reports whether to hold it.
func (s *effectServer) arrive(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[key]++
	if key != "" && key == s.hold && s.calls[key] == 1 {
		close(s.held)
		return true
	}
	return false
}

// Calls returns how often each key was requested.
func (s *effectServer) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, n := range s.calls {
		out[k] = n
	}
	return out
}

// serveTool answers POST /NAME with {"n": N}: "step N done" for step,
// "fetched N" for fetch; POST /note is a worker saying where it is, under
// its key, answered empty.
func (s *effectServer) serveTool(w http.ResponseWriter, r *http.Request) {
	if s.arrive(r.Header.Get(keyHeader)) {
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	}
	var in struct {
		N int `json:"n"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	switch r.URL.Path {
	case "/step":
		fmt.Fprintf(w, "step %d done", in.N)
	case "/fetch":
		fmt.Fprintf(w, "fetched %d", in.N)
	case "/note":
	default:
		http.NotFound(w, r)
	}
}

// answer is the model's reply to a request, from its messages alone.
func answer(req *llm.Request) llmtest.Reply {
	var prompt strings.Builder
	results := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			results++
			continue
		}
		prompt.WriteString(m.Text())
	}
	p := prompt.String()
	call := func(name string, n int) llm.ToolCall {
		return llm.ToolCall{ID: fmt.Sprintf("call_%s_%d", name, n), Name: name, Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
	}
	switch {
	case strings.Contains(p, "Do the three steps."):
		if results < 3 {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{call("step", results+1)}}
		}
		return llmtest.Reply{Text: "All three steps done."}
	case strings.Contains(p, "Fetch 1, 2 and 3."):
		if results == 0 {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{call("fetch", 1), call("fetch", 2), call("fetch", 3)}}
		}
		return llmtest.Reply{Text: "Fetched all."}
	case strings.Contains(p, "Answer as R1."):
		return llmtest.Reply{Text: "one"}
	case strings.Contains(p, "Answer as R2."):
		return llmtest.Reply{Text: "two"}
	case strings.Contains(p, "Answer as R3."):
		return llmtest.Reply{Text: "three"}
	case strings.Contains(p, "Write the draft."):
		return llmtest.Reply{Text: "a draft"}
	case strings.Contains(p, "Publish the draft."):
		return llmtest.Reply{Text: "published"}
	}
	return llmtest.Reply{Status: http.StatusBadRequest, Error: "effect server: no answer for this request"}
}

// effectKey is the context key of the effect key a request carries.
type effectKey struct{}

// keyIntoContext is the interceptor that hands every effect's key to the
// requests it makes.
func keyIntoContext(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
	return next(context.WithValue(ctx, effectKey{}, e.Key()))
}

// keyTransport sets keyHeader from the request's context.
type keyTransport struct{ base http.RoundTripper }

func (t keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if k, ok := r.Context().Value(effectKey{}).(string); ok {
		r = r.Clone(r.Context())
		r.Header.Set(keyHeader, k)
	}
	return t.base.RoundTrip(r)
}

// effectOptions are the engine options of a worker whose model and tools
// are the effect server at modelURL and toolURL: the real llm/openai
// client, without retries of its own, and tools that call the server.
func effectOptions(modelURL, toolURL string) ([]flow.Option, error) {
	hc := &http.Client{Transport: keyTransport{base: http.DefaultTransport}}
	model, err := openai.New(llm.Config{Model: "gpt-4o-mini", BaseURL: modelURL, APIKey: "sk-test"},
		openai.WithHTTPClient(hc), openai.WithRetry(1, 0, 0))
	if err != nil {
		return nil, err
	}
	tool := func(name string) action.Tool {
		return action.MustNewTool(name, "Call "+name+" with n.", func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			return post(ctx, hc, toolURL+"/"+name, in.N)
		})
	}
	return []flow.Option{flow.WithInterceptor(keyIntoContext), flow.WithLLM(model), flow.WithTools(tool("step"), tool("fetch"))}, nil
}

// post sends {"n": n} to url and returns the answer's text.
func post(ctx context.Context, hc *http.Client, url string, n int) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(fmt.Appendf(nil, `{"n":%d}`, n)))
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return string(b), nil
}

// note tells the effect server at toolURL that the worker reached key.
func note(toolURL, key string) error {
	hc := &http.Client{Transport: keyTransport{base: http.DefaultTransport}}
	_, err := post(context.WithValue(context.Background(), effectKey{}, key), hc, toolURL+"/note", 0)
	return err
}
