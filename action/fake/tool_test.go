package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/action/fake"
	"github.com/troupe-dev/troupe/llm"
)

var orderSpec = llm.ToolSpec{
	Name:        "lookup_order",
	Description: "Look up an order by its id.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"order_id": map[string]any{"type": "string"}, "verbose": map[string]any{"type": "boolean"}},
		"required":   []string{"order_id"},
	},
}

func TestRepliesAnswerInOrder(t *testing.T) {
	tool := fake.NewTool(orderSpec,
		fake.MatchArgs(map[string]any{"order_id": "A-1001"}, fake.Result(map[string]any{"status": "shipped"})),
		fake.Times(1, fake.Match(`(?i)"b-`, fake.Result("order not found"))),
		fake.Match(`"C-`, fake.Error("order service down")),
		fake.Result(nil),
	)
	require.NoError(t, tool.Err())
	tests := []struct {
		name    string
		args    string
		want    any
		wantErr string
	}{
		{"arguments equal", `{"order_id": "A-1001"}`, map[string]any{"status": "shipped"}, ""},
		{"other arguments ignored", `{"verbose": true, "order_id": "A-1001"}`, map[string]any{"status": "shipped"}, ""},
		{"regular expression", `{"order_id": "b-7"}`, "order not found", ""},
		{"times used up falls through", `{"order_id": "B-8"}`, nil, ""},
		{"scripted error", `{"order_id": "C-1"}`, nil, "order service down"},
		{"entry without match answers anything", `{"order_id": "Z"}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if tt.wantErr != "" {
				var te *fake.ToolError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, tt.wantErr, err.Error())
				assert.Equal(t, "lookup_order", te.Tool)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Len(t, tool.Calls(), len(tests))
}

func TestMatchArgsCompareJSONData(t *testing.T) {
	anyObject := llm.ToolSpec{Name: "t"}
	tests := []struct {
		name  string
		match map[string]any
		args  string
		want  bool
	}{
		{"equal string", map[string]any{"a": "x"}, `{"a": "x"}`, true},
		{"different string", map[string]any{"a": "x"}, `{"a": "y"}`, false},
		{"missing key", map[string]any{"a": "x"}, `{"b": "x"}`, false},
		{"null is not absence", map[string]any{"a": nil}, `{}`, false},
		{"null", map[string]any{"a": nil}, `{"a": null}`, true},
		{"int matches float by value", map[string]any{"n": 1}, `{"n": 1.0}`, true},
		{"float matches int by value", map[string]any{"n": 2.0}, `{"n": 2}`, true},
		{"fraction is not an int", map[string]any{"n": 1}, `{"n": 1.5}`, false},
		{"number is not a string", map[string]any{"n": 1}, `{"n": "1"}`, false},
		{"nested objects are equal as a whole", map[string]any{"o": map[string]any{"k": 1}}, `{"o": {"k": 1}}`, true},
		{"nested objects with extra keys differ", map[string]any{"o": map[string]any{"k": 1}}, `{"o": {"k": 1, "j": 2}}`, false},
		{"lists in order", map[string]any{"l": []string{"a", "b"}}, `{"l": ["a", "b"]}`, true},
		{"lists out of order", map[string]any{"l": []string{"a", "b"}}, `{"l": ["b", "a"]}`, false},
		{"bool", map[string]any{"b": true}, `{"b": true}`, true},
		{"empty match answers objects", map[string]any{}, `{"a": 1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := fake.NewTool(anyObject, fake.MatchArgs(tt.match, fake.Result("hit")))
			require.NoError(t, tool.Err())
			got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if tt.want {
				require.NoError(t, err)
				assert.Equal(t, "hit", got)
			} else {
				assert.ErrorIs(t, err, fake.ErrUnmatched)
			}
		})
	}
}

func TestPatternSearchesCanonicalJSON(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "t"},
		fake.Match(`^\{"a":1,"b":"<x>"\}$`, fake.Result("canonical")))
	got, err := tool.Call(t.Context(), json.RawMessage(` { "b" : "<x>", "a" : 1 } `))
	require.NoError(t, err)
	assert.Equal(t, "canonical", got)
}

func TestArgumentsAreValidatedFirst(t *testing.T) {
	spec := llm.ToolSpec{Name: "count", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"n": map[string]any{"type": "integer"}},
		"required":   []any{"n"},
	}}
	tool := fake.NewTool(spec, fake.MatchArgs(map[string]any{"n": 5}, fake.Result("five")))
	tests := []struct {
		name    string
		args    string
		want    any
		wantErr string
	}{
		{"coerced like pydantic's lax mode", `{"n": "5"}`, "five", ""},
		{"missing required", `{}`, nil, "n"},
		{"wrong type", `{"n": "many"}`, nil, "n"},
		{"not JSON", `{"n": `, nil, "invalid JSON"},
		{"not an object", `[5]`, nil, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			var ae *action.ArgumentError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "count", ae.Tool)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestEmptyArgumentsAreAnEmptyObject(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "now"}, fake.Result("noon"))
	for _, args := range []json.RawMessage{nil, json.RawMessage(""), json.RawMessage("  ")} {
		got, err := tool.Call(t.Context(), args)
		require.NoError(t, err)
		assert.Equal(t, "noon", got)
	}
	assert.Equal(t, []json.RawMessage{{}, json.RawMessage(""), json.RawMessage("  ")}, tool.Calls())
}

func TestUnmatchedCallQuotesItsArguments(t *testing.T) {
	tool := fake.NewTool(orderSpec, fake.Times(1, fake.Result("once")))
	_, err := tool.Call(t.Context(), json.RawMessage(`{"order_id": "A-1"}`))
	require.NoError(t, err)
	_, err = tool.Call(t.Context(), json.RawMessage(`{"order_id": "A-2"}`))
	require.ErrorIs(t, err, fake.ErrUnmatched)
	assert.EqualError(t, err, `fake: no reply matches the tool call: tool "lookup_order" (call 2) got the arguments {"order_id":"A-2"}; `+
		`add a reply whose match fits them, or one without match (1 of 1 replies have used up their times)`)
}

func TestSpecDefaultsToAnyObject(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "t", Description: "d"})
	assert.Equal(t, llm.ToolSpec{Name: "t", Description: "d", Parameters: map[string]any{"type": "object"}}, tool.Spec())

	// Given parameters are kept as a copy, in canonical JSON data.
	params := map[string]any{"type": "object", "required": []string{"a"}}
	tool = fake.NewTool(llm.ToolSpec{Name: "t", Parameters: params})
	params["type"] = "string"
	assert.Equal(t, map[string]any{"type": "object", "required": []any{"a"}}, tool.Spec().Parameters)
}

func TestCallsAreRecordedCopies(t *testing.T) {
	tool := fake.NewTool(orderSpec, fake.Result("ok"))
	args := json.RawMessage(`{"order_id": "A-1"}`)
	_, err := tool.Call(t.Context(), args)
	require.NoError(t, err)
	args[2] = 'X' // the caller reuses its buffer
	_, err = tool.Call(t.Context(), json.RawMessage(`{}`))
	require.Error(t, err, "invalid calls are recorded too")

	calls := tool.Calls()
	assert.Equal(t, []json.RawMessage{json.RawMessage(`{"order_id": "A-1"}`), json.RawMessage(`{}`)}, calls)
	calls[0][2] = 'Y'
	assert.Equal(t, json.RawMessage(`{"order_id": "A-1"}`), tool.Calls()[0])

	tool.Reset()
	assert.Empty(t, tool.Calls())
	quiet := fake.NewTool(orderSpec, fake.Result("ok")).WithRecording(false)
	_, err = quiet.Call(t.Context(), json.RawMessage(`{"order_id": "A-1"}`))
	require.NoError(t, err)
	assert.Empty(t, quiet.Calls())
}

func TestResultsAreCopies(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "t"}, fake.Result(map[string]any{"tags": []string{"a"}, "n": 1}))
	first, err := tool.Call(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"tags": []any{"a"}, "n": int64(1)}, first, "results are canonical JSON data")
	first.(map[string]any)["tags"].([]any)[0] = "changed"
	second, err := tool.Call(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"tags": []any{"a"}, "n": int64(1)}, second)
}

func TestResetRestoresTimes(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "t"}, fake.Times(1, fake.Result("once")))
	_, err := tool.Call(t.Context(), nil)
	require.NoError(t, err)
	_, err = tool.Call(t.Context(), nil)
	require.ErrorIs(t, err, fake.ErrUnmatched)
	tool.Reset()
	got, err := tool.Call(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, "once", got)
}

func TestNewToolReportsBadScripts(t *testing.T) {
	tests := []struct {
		name    string
		spec    llm.ToolSpec
		replies []fake.ToolReply
		want    string
	}{
		{"no name", llm.ToolSpec{}, nil, "fake: a tool has no name"},
		{"bad parameters", llm.ToolSpec{Name: "t", Parameters: map[string]any{"type": 5}}, nil, `fake: tool "t": parameters: schema: invalid JSON Schema`},
		{"bad regexp", llm.ToolSpec{Name: "t"}, []fake.ToolReply{fake.Result(1), fake.Match("(", fake.Result(2))}, `fake: tool "t": replies[1].match: invalid RE2 expression "("`},
		{"result and error", llm.ToolSpec{Name: "t"}, []fake.ToolReply{{Result: 1, Error: "e"}}, `replies[0].error: a reply has either result or error, not both`},
		{"negative times", llm.ToolSpec{Name: "t"}, []fake.ToolReply{fake.Times(-1, fake.Result(1))}, `replies[0].times: must be positive`},
		{"negative delay", llm.ToolSpec{Name: "t"}, []fake.ToolReply{{Delay: -time.Second}}, `replies[0].delay: must not be negative`},
		{"result not JSON", llm.ToolSpec{Name: "t"}, []fake.ToolReply{fake.Result(make(chan int))}, `replies[0].result: cannot be JSON data`},
		{"result NaN", llm.ToolSpec{Name: "t"}, []fake.ToolReply{fake.Result([]any{math.NaN()})}, `replies[0].result: cannot be JSON data: NaN`},
		{"match not JSON", llm.ToolSpec{Name: "t"}, []fake.ToolReply{fake.MatchArgs(map[string]any{"f": func() {}}, fake.Result(1))}, `replies[0].match: the arguments are not JSON data`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := fake.NewTool(tt.spec, tt.replies...)
			require.Error(t, tool.Err())
			assert.Contains(t, tool.Err().Error(), tt.want)
			_, err := tool.Call(t.Context(), json.RawMessage(`{}`))
			assert.Equal(t, tool.Err(), err, "every call reports the problem")
		})
	}
}

func TestConcurrentCallsNeverExceedTimes(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "t"}, fake.Times(10, fake.Result("limited")), fake.Result("rest"))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		limited int
	)
	for range 64 {
		wg.Go(func() {
			got, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			if err != nil {
				t.Error(err)
				return
			}
			if got == "limited" {
				mu.Lock()
				limited++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 10, limited)
	assert.Len(t, tool.Calls(), 64)
}

func TestDelayHonoursTheContext(t *testing.T) {
	tool := fake.NewTool(llm.ToolSpec{Name: "slow"}, fake.ToolReply{Result: "late", Delay: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err := tool.Call(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	cancelled, stop := context.WithCancel(t.Context())
	stop()
	_, err = fake.NewTool(llm.ToolSpec{Name: "t"}, fake.Result(1)).Call(cancelled, nil)
	assert.True(t, errors.Is(err, context.Canceled))
}

// TestTimesRule checks the rule of times shared with llm/fake: 0 (the
// default) is unlimited and such a reply never counts as used up; a
// limited reply answers its times, then lets the next entry answer, and
// Reset restores it. A script cannot say times: 0 (see TestParseToolsErrors).
func TestTimesRule(t *testing.T) {
	tool := fake.NewTool(orderSpec,
		fake.Times(2, fake.MatchArgs(map[string]any{"order_id": "A-1"}, fake.Result("limited"))),
		fake.Times(0, fake.MatchArgs(map[string]any{"order_id": "A-1"}, fake.Result("unlimited"))))
	args := json.RawMessage(`{"order_id": "A-1"}`)
	var got []any
	for range 5 {
		out, err := tool.Call(t.Context(), args)
		require.NoError(t, err)
		got = append(got, out)
	}
	assert.Equal(t, []any{"limited", "limited", "unlimited", "unlimited", "unlimited"}, got)

	_, err := tool.Call(t.Context(), json.RawMessage(`{"order_id": "B-2"}`))
	require.ErrorIs(t, err, fake.ErrUnmatched)
	assert.Contains(t, err.Error(), "1 of 2 replies have used up their times", "the unlimited reply is never used up")

	tool.Reset()
	out, err := tool.Call(t.Context(), args)
	require.NoError(t, err)
	assert.Equal(t, "limited", out)
}
