package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm/fake"
)

func TestHandoffTopology(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"front.yaml", nil},
		{"cycle_a.yaml", []string{
			`cycle_a.yaml:6:28 error handoff agent.handoffs[1]: hand-off agent file "missing.yaml" not found (looked for testdata/handoffs/missing.yaml)`,
			`cycle_b.yaml:6:14 error handoff_cycle agent.handoffs[0]: hand-off cycle: testdata/handoffs/cycle_a.yaml -> testdata/handoffs/cycle_b.yaml -> testdata/handoffs/cycle_a.yaml`,
		}},
		// The problems of a hand-off file are reported in that file.
		{"bad_child.yaml", []string{`errors.yaml:2:3 error missing agent: missing required key "system_prompt"`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, ds := CheckFile(filepath.Join("testdata", "handoffs", tt.file), WithTools(testRegistry(t)))
			got := make([]string, len(ds))
			for i, d := range ds {
				got[i] = render(d)
			}
			if tt.file == "bad_child.yaml" {
				require.NotEmpty(t, got)
				assert.True(t, strings.HasPrefix(got[0], tt.want[0]), got[0])
				return
			}
			require.Len(t, got, len(tt.want), strings.Join(got, "\n"))
			for i := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], tt.want[i]), "diagnostic %d:\n got %s\nwant %s", i, got[i], tt.want[i])
			}
		})
	}
}

func TestHandoffRunsTheOtherAgent(t *testing.T) {
	model := fake.New(
		fake.Match(`Refund ticket R-A1 opened`, fake.Text("Done: your refund R-A1 is open.")),
		fake.Match(`ticket R-A1`, fake.Text("Refund ticket R-A1 opened.")),
		fake.Match(`You handle refunds`, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{"order_id": "A1"}))),
		fake.ToolCalls(fake.Call("handoff_refund_agent", map[string]any{"task": "refund order A1"})),
	).WithRecording(true)
	rec := &recorder{}
	tools := shopTools(t, "")
	def, err := Load(filepath.Join("testdata", "handoffs", "front.yaml"), WithTools(tools))
	require.NoError(t, err)
	r, err := NewRunner(def, Config{Model: model, Tools: tools, Observer: rec.observe})
	require.NoError(t, err)
	s := r.NewSession("", nil)
	res, err := r.Turn(context.Background(), s, "I want a refund for A1")
	require.NoError(t, err)
	assert.Equal(t, "Done: your refund R-A1 is open.", res.Answer)
	assert.Equal(t, int64(4), res.Usage.Requests, "the hand-off's two model calls count")
	assert.Equal(t, []string{"Refund ticket R-A1 opened."}, toolResults(s))
	first := model.Requests()[0]
	require.Len(t, first.Tools, 2)
	assert.Equal(t, "handoff_refund_agent", first.Tools[1].Name)
	assert.Equal(t, "Hand a task to the refund_agent agent and get its answer. It handles refunds.", first.Tools[1].Description)
	var agents []string
	for _, st := range rec.steps {
		agents = append(agents, st.Agent+":"+st.Kind)
	}
	assert.Equal(t, []string{"front:model", "refund_agent:model", "refund_agent:tool", "refund_agent:model", "front:tool", "front:model"}, agents)
}
