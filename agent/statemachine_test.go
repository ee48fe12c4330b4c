package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

func TestStateMachine(t *testing.T) {
	order := func(id string) fake.Reply {
		return fake.Times(1, fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": id})))
	}
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{"order_id": "A1"}))),
		order("B2"), // not found: no event
		fake.Times(1, fake.ToolCalls(fake.Call(TransitionTool, map[string]any{"event": "refunded"}))),
		order("A1"), // found: verified
		fake.Text("Order A1 is verified. Shall I open a refund?"),
	).WithRecording(true)
	rec := &recorder{}
	r := newRunner(t, "run_refund.yaml", model, rec, nil)
	s := r.NewSession("", nil)
	assert.Equal(t, "start", s.State)
	res, err := r.Turn(context.Background(), s, "refund A1")
	require.NoError(t, err)
	assert.Equal(t, "verified", res.State)
	assert.Equal(t, "verified", s.State)
	got := toolResults(s)
	require.Len(t, got, 4)
	assert.Equal(t, `Error: tool "create_refund_ticket" is not available in state "start"`, got[0])
	assert.Equal(t, `{"found":false,"order_id":"B2"}`, got[1])
	assert.Equal(t, `Refused: event "refunded" is not allowed in state "start" (allowed: verified, give_up).`, got[2])
	assert.Equal(t, `{"found":true,"order_id":"A1"}`+"\n"+`The conversation moved from state "start" to "verified" (event verified).`, got[3])
	reqs := model.Requests()
	names := func(req *llm.Request) []string {
		var out []string
		for _, s := range req.Tools {
			out = append(out, s.Name)
		}
		return out
	}
	assert.Equal(t, []string{"query_order", TransitionTool}, names(reqs[0]), "only the state's tools, and transition")
	assert.Equal(t, []any{"verified", "give_up"}, reqs[0].Tools[1].Parameters["properties"].(map[string]any)["event"].(map[string]any)["enum"])
	assert.Equal(t, []string{"query_order", "create_refund_ticket", TransitionTool}, names(reqs[4]), "all tools in a state without a list")
	assert.Contains(t, reqs[4].Messages[0].Text(), "Current state: verified.")
	assert.Contains(t, rec.kinds(), "transition:transition")

	// A second turn: the transition tool reaches a final state, which ends
	// the turn with the model's closing words.
	model2 := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call(TransitionTool, map[string]any{"event": "refunded"}))),
		fake.Text("All done."),
	).WithRecording(true)
	r2 := newRunner(t, "run_refund.yaml", model2, nil, nil)
	res, err = r2.Turn(context.Background(), s, "never mind the ticket, close it")
	require.NoError(t, err)
	assert.Equal(t, StatusFinal, res.Status)
	assert.Equal(t, "done", res.State)
	assert.Equal(t, "All done.", res.Answer)
	assert.Equal(t, llm.ToolChoiceNone, model2.Requests()[1].ToolChoice)
}

func TestApprovals(t *testing.T) {
	script := func() *fake.Model {
		return fake.New(
			fake.Match(`rejected`, fake.Text("Understood, no refund.")),
			fake.Match(`ticket R-A1`, fake.Text("Refund ticket R-A1 is open.")),
			fake.Match(`verified`, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{"order_id": "A1"}))),
			fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"})),
		)
	}
	for _, approve := range []bool{true, false} {
		r := newRunner(t, "run_refund.yaml", script(), nil, nil)
		s := r.NewSession("sess", nil)
		res, err := r.Turn(context.Background(), s, "refund A1")
		require.NoError(t, err)
		require.Equal(t, StatusPaused, res.Status)
		require.NotNil(t, s.Pending)
		assert.Equal(t, "create_refund_ticket", s.Pending.Call.Name)
		assert.Equal(t, 0, s.Calls["create_refund_ticket"], "no call before the approval")
		_, err = r.Turn(context.Background(), s, "again")
		require.ErrorContains(t, err, "waits for an approval of create_refund_ticket")

		// Resume in a "new process": the session goes through JSON and a
		// new runner.
		data, err := json.Marshal(s)
		require.NoError(t, err)
		var restored Session
		require.NoError(t, json.Unmarshal(data, &restored))
		r2 := newRunner(t, "run_refund.yaml", script(), nil, nil)
		res, err = r2.Resume(context.Background(), &restored, Decision{Approve: approve, Reason: "not eligible"})
		require.NoError(t, err)
		if approve {
			assert.Equal(t, "Refund ticket R-A1 is open.", res.Answer)
			assert.Equal(t, StatusFinal, res.Status)
			assert.Equal(t, "done", restored.State)
			assert.Equal(t, 1, restored.Calls["create_refund_ticket"])
		} else {
			assert.Equal(t, "Understood, no refund.", res.Answer)
			assert.Equal(t, "verified", restored.State)
			results := toolResults(&restored)
			assert.Equal(t, "A person rejected this call: not eligible", results[len(results)-1])
		}
		_, err = r2.Resume(context.Background(), &restored, Decision{Approve: true})
		assert.ErrorContains(t, err, "has no call waiting for approval")
	}
}

func TestNoApprovalIsAskedForACallThatCannotRun(t *testing.T) {
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{}))), // missing argument
		fake.Text("Which order?"),
	)
	r := newRunner(t, "run_refund.yaml", model, nil, nil)
	s := r.NewSession("", nil)
	s.State = "verified"
	res, err := r.Turn(context.Background(), s, "refund")
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, res.Status, "the bad call is answered with its problem, not paused")
	assert.Equal(t, []string{"Error: missing parameter order_id"}, toolResults(s))

	s.Calls["create_refund_ticket"] = 1 // max_calls is 1
	model2 := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{"order_id": "A1"}))),
		fake.Text("I cannot open another refund."),
	)
	r2 := newRunner(t, "run_refund.yaml", model2, nil, nil)
	res, err = r2.Turn(context.Background(), s, "another refund")
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, res.Status)
	results := toolResults(s)
	assert.Equal(t, `Error: tool "create_refund_ticket" may be called at most 1 times in a conversation`, results[len(results)-1])
}
