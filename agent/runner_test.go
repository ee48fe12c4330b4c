package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

type orderIn struct {
	OrderID string `json:"order_id" jsonschema:"required"`
}

// shopTools is a registry whose query_order finds order A1 only.
func shopTools(t *testing.T, big string) *action.Tools {
	t.Helper()
	r, err := action.NewTools(
		action.MustNewTool("query_order", "finds an order", func(_ context.Context, in orderIn) (map[string]any, error) {
			return map[string]any{"order_id": in.OrderID, "found": in.OrderID == "A1"}, nil
		}),
		action.MustNewTool("query_logistics", "tracks a parcel", func(_ context.Context, in orderIn) (string, error) {
			if big != "" {
				return big, nil
			}
			return "in transit", nil
		}),
		action.MustNewTool("create_refund_ticket", "opens a refund", func(_ context.Context, in orderIn) (string, error) {
			return "ticket R-" + in.OrderID, nil
		}),
	)
	require.NoError(t, err)
	return r
}

// recorder collects steps.
type recorder struct {
	mu    sync.Mutex
	steps []Step
}

func (r *recorder) observe(s Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
}

func (r *recorder) kinds() []string {
	var out []string
	for _, s := range r.steps {
		k := s.Kind
		if s.Tool != "" {
			k += ":" + s.Tool
		}
		out = append(out, k)
	}
	return out
}

func newRunner(t *testing.T, file string, model llm.LLM, rec *recorder, edit func(*Definition)) *Runner {
	t.Helper()
	tools := shopTools(t, strings.Repeat("x", 500))
	def, err := Load(filepath.Join("testdata", file), WithTools(tools))
	require.NoError(t, err)
	if edit != nil {
		edit(def)
	}
	cfg := Config{Model: model, Tools: tools}
	if rec != nil {
		cfg.Observer = rec.observe
	}
	r, err := NewRunner(def, cfg)
	require.NoError(t, err)
	return r
}

func toolResults(s *Session) []string {
	var out []string
	for _, m := range s.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m.Text())
		}
	}
	return out
}

func TestTurnCallsToolsThenAnswers(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))),
		fake.Text("Your order A1 is on its way."),
	).WithRecording(true)
	rec := &recorder{}
	r := newRunner(t, "run_basic.yaml", model, rec, nil)
	s := r.NewSession("s1", map[string]any{"customer": "Ada"})
	res, err := r.Turn(context.Background(), s, "Where is order A1?")
	require.NoError(t, err)
	assert.Equal(t, "Your order A1 is on its way.", res.Answer)
	assert.Equal(t, StatusAnswered, res.Status)
	assert.Equal(t, 2, res.Steps)
	assert.Equal(t, []string{`{"found":true,"order_id":"A1"}`}, toolResults(s))
	roles := []llm.Role{}
	for _, m := range s.Messages {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant}, roles, "the assistant's tool-call message comes before the results")
	reqs := model.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "You help Ada.", reqs[0].Messages[0].Text(), "the system prompt renders inputs")
	assert.Equal(t, []string{"model", "tool:query_order", "model"}, rec.kinds())
	assert.Equal(t, map[string]any{"order_id": "A1"}, rec.steps[1].Args)
	assert.Equal(t, "helper", rec.steps[1].Agent)
	assert.NotNil(t, rec.steps[0].Tokens)
}

func TestTurnTellsTheModelAboutBadCalls(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("query_ordr", map[string]any{"order_id": "A1"}))),
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{}))),
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", "{not json"))),
		fake.Text("Which order?"),
	)
	r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) { d.MaxSteps = 5 })
	s := r.NewSession("", nil)
	res, err := r.Turn(context.Background(), s, "help")
	require.NoError(t, err)
	assert.Equal(t, "Which order?", res.Answer)
	got := toolResults(s)
	require.Len(t, got, 3)
	assert.Equal(t, `Error: there is no tool "query_ordr" (did you mean "query_order"?); the tools are: query_order, query_logistics`, got[0])
	assert.Equal(t, "Error: missing parameter order_id", got[1])
	assert.Contains(t, got[2], "Error: the arguments are not valid JSON")
}

func TestErrorPolicy(t *testing.T) {
	tests := []struct {
		name    string
		onError OnError
		status  Status
	}{
		{"fail", OnErrorFail, ""},
		{"fallback", OnErrorFallback, StatusFallback},
		{"notify human", OnErrorNotifyHuman, StatusHandedOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := fake.New(fake.Error("overloaded"))
			r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) {
				d.ErrorPolicy = ErrorPolicy{MaxRetries: 2, OnError: tt.onError, FallbackMessage: "A colleague will take over."}
			})
			s := r.NewSession("", nil)
			res, err := r.Turn(context.Background(), s, "hi")
			assert.Equal(t, 3, model.Calls(), "one call and two retries")
			if tt.status == "" {
				var stop *StopError
				require.ErrorAs(t, err, &stop)
				assert.Contains(t, stop.Reason, "the model failed 3 times")
				var api *llm.APIError
				assert.ErrorAs(t, err, &api)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.status, res.Status)
			assert.Equal(t, "A colleague will take over.", res.Answer)
			last := s.Messages[len(s.Messages)-1]
			assert.Equal(t, llm.Assistant("A colleague will take over."), last, "the conversation shows what the user was told")
			assert.Contains(t, res.Reason, "the model failed 3 times")
		})
	}
}

func TestEmptyReplyIsRetriedAtALowerTemperature(t *testing.T) {
	model := fake.New(fake.Times(1, fake.Text("")), fake.Text("done")).WithRecording(true)
	r := newRunner(t, "run_basic.yaml", model, nil, nil)
	res, err := r.Turn(context.Background(), r.NewSession("", nil), "hi")
	require.NoError(t, err)
	assert.Equal(t, "done", res.Answer)
	reqs := model.Requests()
	require.Len(t, reqs, 2)
	assert.InDelta(t, 0.8, *reqs[0].Temperature, 1e-9)
	assert.InDelta(t, 0.4, *reqs[1].Temperature, 1e-9)
	assert.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "Your previous reply could not be used (the model returned an empty reply)")
}

func TestTurnTimeoutAppliesThePolicy(t *testing.T) {
	model := fake.New(fake.Reply{Text: "late", Delay: 10 * 1e9})
	r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) {
		d.Timeout = 1e6 // 1ms: the fake model waits far longer
		d.ErrorPolicy = ErrorPolicy{OnError: OnErrorFallback, FallbackMessage: "Sorry."}
	})
	res, err := r.Turn(context.Background(), r.NewSession("", nil), "hi")
	require.NoError(t, err)
	assert.Equal(t, StatusFallback, res.Status)
	assert.Contains(t, res.Reason, "longer than its timeout of 1ms")
}

func TestRepeatDetection(t *testing.T) {
	call := fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))
	for _, on := range []bool{true, false} {
		model := fake.New(fake.Times(3, call), fake.Text("done"))
		r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) { d.RepeatDetection = on })
		res, err := r.Turn(context.Background(), r.NewSession("", nil), "hi")
		if !on {
			require.NoError(t, err)
			assert.Equal(t, "done", res.Answer)
			continue
		}
		var stop *StopError
		require.ErrorAs(t, err, &stop)
		assert.Equal(t, repeatReason("query_order"), stop.Reason)
		assert.Equal(t, 2, model.Calls(), "the turn ends after the second identical call")
	}
}

func TestStepLimit(t *testing.T) {
	model := fake.New(fake.ToolCalls(fake.Call("query_logistics", map[string]any{"order_id": "A1"})))
	r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) { d.RepeatDetection = false; d.MaxSteps = 2 })
	_, err := r.Turn(context.Background(), r.NewSession("", nil), "hi")
	var stop *StopError
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, "the agent used its 2 steps without answering", stop.Reason)
}

func TestLargeResultsAreTruncated(t *testing.T) {
	model := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("query_logistics", map[string]any{"order_id": "A1"}))), fake.Text("ok"))
	r := newRunner(t, "run_basic.yaml", model, nil, nil)
	s := r.NewSession("", nil)
	_, err := r.Turn(context.Background(), s, "hi")
	require.NoError(t, err)
	got := toolResults(s)
	require.Len(t, got, 1)
	assert.Equal(t, strings.Repeat("x", 100)+"\n[... truncated: 400 more characters]", got[0])
}

func TestParallelCalls(t *testing.T) {
	model := fake.New(fake.Times(1, fake.ToolCalls(
		fake.Call("query_order", map[string]any{"order_id": "A1"}),
		fake.Call("query_order", map[string]any{"order_id": "B2"}),
	)), fake.Text("ok"))
	r := newRunner(t, "run_basic.yaml", model, nil, nil)
	s := r.NewSession("", nil)
	_, err := r.Turn(context.Background(), s, "hi")
	require.NoError(t, err)
	assert.Equal(t, []string{`{"found":true,"order_id":"A1"}`, `{"found":false,"order_id":"B2"}`}, toolResults(s), "results in call order")
	assert.Equal(t, 2, s.Calls["query_order"])
}

func TestMaxCalls(t *testing.T) {
	model := fake.New(
		fake.Times(2, fake.ToolCalls(fake.Call("query_logistics", map[string]any{"order_id": "A1"}))),
		fake.Text("ok"),
	)
	r := newRunner(t, "run_basic.yaml", model, nil, func(d *Definition) {
		d.RepeatDetection = false
		d.Tools[1].MaxCalls = 1
	})
	r.tools["query_logistics"].ref.MaxCalls = 1
	s := r.NewSession("", nil)
	_, err := r.Turn(context.Background(), s, "hi")
	require.NoError(t, err)
	got := toolResults(s)
	require.Len(t, got, 2)
	assert.Equal(t, `Error: tool "query_logistics" may be called at most 1 times in a conversation`, got[1])
}

func TestToolTimeout(t *testing.T) {
	slow := action.MustNewTool("query_order", "waits", func(ctx context.Context, in orderIn) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	tools, err := action.NewTools(slow)
	require.NoError(t, err)
	def, err := Parse([]byte("agent: {name: a, system_prompt: p, model: {model_name: m}, tools: [{name: query_order, timeout: 1ms}], max_steps: 3}"), "a.yaml", WithTools(tools))
	require.NoError(t, err)
	model := fake.New(fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))), fake.Text("ok"))
	r, err := NewRunner(def, Config{Model: model, Tools: tools})
	require.NoError(t, err)
	s := r.NewSession("", nil)
	_, err = r.Turn(context.Background(), s, "hi")
	require.NoError(t, err)
	assert.Equal(t, []string{"Error: the tool did not answer within 1ms"}, toolResults(s))
}

func TestNewRunnerErrors(t *testing.T) {
	def, err := Parse([]byte("agent: {name: a, system_prompt: p, model: {model_name: m}, tools: [nope], max_steps: 3}"), "a.yaml")
	require.NoError(t, err, "without a registry, names are not checked at load time")
	_, err = NewRunner(def, Config{Model: fake.New()})
	assert.EqualError(t, err, `agent "a": unknown tool "nope"`)
	_, err = NewRunner(def, Config{})
	assert.EqualError(t, err, `agent "a": no model (set Config.Model)`)
	_, err = NewRunner(nil, Config{})
	assert.True(t, err != nil && !errors.Is(err, context.Canceled))
}

func TestInterceptorSeesEveryCall(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"}))),
		fake.Text("ok"),
	)
	tools := shopTools(t, "")
	def, err := Load(filepath.Join("testdata", "run_basic.yaml"), WithTools(tools))
	require.NoError(t, err)
	var seen []string
	var mu sync.Mutex
	r, err := NewRunner(def, Config{Model: model, Tools: tools, Intercept: func(ctx context.Context, c action.Call, next func(context.Context) (any, error)) (any, error) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s turn %d pos %d", c.Kind, c.Name, c.Turn, c.Position))
		mu.Unlock()
		if c.Kind == action.CallTool {
			return map[string]any{"recorded": true}, nil // replay without calling the tool
		}
		return next(ctx)
	}})
	require.NoError(t, err)
	s := r.NewSession("", nil)
	_, err = r.Turn(context.Background(), s, "hi")
	require.NoError(t, err)
	assert.Equal(t, []string{"llm fake/model turn 1 pos 0", "tool query_order turn 1 pos 1", "llm fake/model turn 2 pos 0"}, seen)
	assert.Equal(t, []string{`{"recorded":true}`}, toolResults(s))
}

func TestStepActionEvent(t *testing.T) {
	u := llm.Usage{InputTokens: 3}
	tests := []struct {
		step Step
		kind action.EventKind
		ok   bool
	}{
		{Step{Kind: "model", Tokens: &u}, action.EventLLMCompleted, true},
		{Step{Kind: "model", Error: "down"}, action.EventLLMFailed, true},
		{Step{Kind: "tool", Tool: "q", Args: map[string]any{"a": 1.0}, Result: "r"}, action.EventToolFinished, true},
		{Step{Kind: "tool", Tool: "q", Error: "Error: x"}, action.EventToolError, true},
		{Step{Kind: "transition", Tool: TransitionTool, Result: "a -> b on e"}, action.EventToolFinished, true},
		{Step{Kind: "approval"}, "", false},
		{Step{Kind: "retry"}, "", false},
	}
	for _, tt := range tests {
		ev, ok := tt.step.ActionEvent()
		assert.Equal(t, tt.ok, ok, tt.step.Kind)
		assert.Equal(t, tt.kind, ev.Kind, tt.step.Kind)
	}
	ev, _ := Step{Kind: "tool", Tool: "q", Args: map[string]any{"a": 1.0}, LatencyMS: 5}.ActionEvent()
	assert.JSONEq(t, `{"a":1}`, string(ev.Arguments))
	assert.Equal(t, 5*time.Millisecond, ev.Duration)
}
