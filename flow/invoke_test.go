package flow_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// TestInvokeMatchesJobRun drives every runtime fixture, performing each
// job twice: with Engine.Invoke on a fresh engine, from the job's
// Invocation, and with Job.Run in the driver's run. Output and state
// patch must agree, and the run fed Invoke's results must end as the
// fast scheduler's run does.
func TestInvokeMatchesJobRun(t *testing.T) {
	dir := filepath.Join(fixtureDir(t), "valid")
	for _, c := range manifestCases() {
		t.Run(strings.TrimSuffix(c.file, filepath.Ext(c.file)), func(t *testing.T) {
			if c.scripts && !hasPython() {
				t.Skip("python3 is not installed; script actions cannot run")
			}
			def, err := flow.Load(filepath.Join(dir, c.file))
			require.NoError(t, err)
			opts := []flow.Option{flow.WithScripts(c.scripts)}
			want, wantErr := fixtureEngine(opts...).Run(context.Background(), def, withID(c.inputs))
			d, err := fixtureEngine(opts...).NewDriver(def, withID(c.inputs))
			if wantErr != nil && err != nil {
				return
			}
			require.NoError(t, err)
			for steps := 0; !d.Done(); steps++ {
				require.Less(t, steps, 10000, "the run does not end")
				ready := d.Ready()
				require.NotEmpty(t, ready)
				j := ready[0]
				inv, err := d.Invocation(j)
				require.NoError(t, err)
				assert.Equal(t, j.Effect.Key(), inv.Key())
				got, gotErr := fixtureEngine(opts...).Invoke(context.Background(), def, inv)
				out, runErr := j.Run(context.Background())
				if runErr != nil {
					require.Error(t, gotErr, "job %s", inv.Key())
					assert.Equal(t, runErr.Error(), gotErr.Error())
					require.NoError(t, d.Fail(j, gotErr))
					continue
				}
				require.NoError(t, gotErr, "job %s", inv.Key())
				assert.Equal(t, flow.Data(out), flow.Data(got.Output), "job %s", inv.Key())
				assert.Equal(t, j.Patch, got.Patch, "job %s", inv.Key())
				j.Patch = got.Patch
				require.NoError(t, d.Complete(j, got.Output))
			}
			res, err := d.Result()
			if wantErr != nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, flow.Data(want.Output), flow.Data(res.Output))
			assert.Equal(t, want.State, res.State)
			assert.ElementsMatch(t, want.Trace, res.Trace) // completion order may differ from the fast run's
		})
	}
}

// TestInvokeKeepsEffectKeys checks that an agent invoked from its
// Invocation shows its model and tool calls under the job's keys.
func TestInvokeKeepsEffectKeys(t *testing.T) {
	lookup := action.MustNewTool("lookup", "Look up an item.", func(_ context.Context, in struct {
		ID string `json:"id"`
	}) (string, error) {
		return "item " + in.ID + " found", nil
	})
	model := fake.New(
		fake.Match("item C found", fake.Text("All found.")),
		fake.ToolCalls(fake.Call("lookup", map[string]any{"id": "A"}), fake.Call("lookup", map[string]any{"id": "B"}), fake.Call("lookup", map[string]any{"id": "C"})),
	)
	def := mustParse(t, parallelToolsFlow)
	d, err := flow.NewEngine(flow.WithLLM(model), flow.WithTools(lookup)).NewDriver(def, map[string]any{"id": "r1"})
	require.NoError(t, err)
	inv, err := d.Invocation(d.Ready()[0])
	require.NoError(t, err)
	rec := &keyRecorder{seen: map[string]string{}}
	got, err := flow.NewEngine(flow.WithInterceptor(rec.intercept), flow.WithLLM(model), flow.WithTools(lookup)).Invoke(context.Background(), def, inv)
	require.NoError(t, err)
	assert.Equal(t, "All found.", flow.Data(got.Output).(map[string]any)["raw"])
	assert.Equal(t, map[string]string{
		"r1/research#1/llm#1": "llm ", "r1/research#1/llm#2": "llm ",
		"r1/research#1/tool#1.1": "tool lookup", "r1/research#1/tool#1.2": "tool lookup", "r1/research#1/tool#1.3": "tool lookup",
	}, rec.seen)
}
