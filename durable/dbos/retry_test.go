package dbos_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/llm/llmtest"
	"github.com/troupe-dev/troupe/llm/openai"
)

// instantClock tells the system time and does not wait.
type instantClock struct{}

func (instantClock) Now() time.Time                                   { return time.Now() }
func (instantClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

const retryFlow = `
schema: crewai.flow/v1
name: Answer
methods:
  answer:
    start: true
    do:
      call: agent
      with: {role: Support, goal: Answer, backstory: Helpful., input: "Where is order 5?", llm: openai/gpt-4o-mini}
`

// TestWorkerRetriesModelCallsItself scripts three server errors before an
// answer for a model whose provider would retry four times on its own: the
// worker turns those off and retries in the step, three attempts, so the
// run fails after exactly three requests; with two errors it succeeds on
// the third.
func TestWorkerRetriesModelCallsItself(t *testing.T) {
	fail := llmtest.Reply{Status: http.StatusInternalServerError, Error: "boom", Code: "server_error"}
	for _, tc := range []struct {
		name  string
		fails int
		ok    bool
	}{{"two failures", 2, true}, {"three failures", 3, false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t)
			for range tc.fails {
				srv.Push(fail)
			}
			srv.Push(llmtest.Reply{Text: "Shipped."})
			m, err := openai.New(llm.Config{Model: "openai/gpt-4o-mini", BaseURL: srv.URL(), APIKey: "k"},
				openai.WithRetry(4, time.Millisecond, time.Second))
			require.NoError(t, err)
			def, err := flow.Parse([]byte(retryFlow), "flow.yaml")
			require.NoError(t, err)
			dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe-test",
				DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "dbos.sqlite"), ApplicationVersion: "test-v1"})
			require.NoError(t, err)
			w, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: map[string]*flow.Definition{"Answer": def},
				Engine: []flow.Option{flow.WithLLM(m), flow.WithClock(instantClock{})}})
			require.NoError(t, err)
			require.NoError(t, transact.Launch(dctx))
			defer transact.Shutdown(dctx, 5*time.Second)
			_, err = w.Start("Answer", map[string]any{}, "run-1")
			require.NoError(t, err)
			out, err := w.Result("run-1")
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, "Shipped.", flow.Data(out).(map[string]any)["raw"])
			} else {
				require.Error(t, err)
			}
			assert.Len(t, srv.Received(), 3)
		})
	}
}

const memoryFlow = `
schema: crewai.flow/v1
name: Atlas
methods:
  ask:
    start: true
    do:
      call: crew
      with:
        memory: true
        agents:
          guide: {role: Guide, goal: Answer geography questions, backstory: Remembers what it learns.}
        tasks:
          - {description: "What is the capital of Atlantis?", expected_output: One sentence., agent: guide}
`

// TestWorkerStepsMemoryEffects checks that an agent's memory recall and
// remember are steps of the run, named by their effect keys, between its
// model call's.
func TestWorkerStepsMemoryEffects(t *testing.T) {
	def, err := flow.Parse([]byte(memoryFlow), "flow.yaml")
	require.NoError(t, err)
	dctx, err := transact.NewContext(context.Background(), transact.Config{AppName: "troupe-test",
		DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "dbos.sqlite"), ApplicationVersion: "test-v1"})
	require.NoError(t, err)
	w, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: map[string]*flow.Definition{"Atlas": def},
		Engine: []flow.Option{flow.WithLLM(fake.New(fake.Text("Poseidonia.")))}})
	require.NoError(t, err)
	require.NoError(t, transact.Launch(dctx))
	defer transact.Shutdown(dctx, 5*time.Second)
	_, err = w.Start("Atlas", map[string]any{}, "run-1")
	require.NoError(t, err)
	out, err := w.Result("run-1")
	require.NoError(t, err)
	assert.Equal(t, "Poseidonia.", flow.Data(out).(map[string]any)["raw"])
	steps, err := transact.GetWorkflowSteps(dctx, "run-1/ask#1") // the method runs as a child workflow
	require.NoError(t, err)
	var names []string
	for _, s := range steps {
		if strings.HasPrefix(s.StepName, "run-1/") {
			names = append(names, s.StepName)
		}
	}
	assert.Equal(t, []string{"run-1/ask#1/memory#1", "run-1/ask#1/llm#1", "run-1/ask#1/memory#2"}, names)
}
