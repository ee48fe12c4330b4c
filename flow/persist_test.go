package flow_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/store"
)

// buckets is the test double of CrewAI's DefinitionStoreBackend: one store
// per "store" setting, each recording the method of every save.
type buckets struct {
	mu    sync.Mutex
	saves map[string][]string
	store map[string]store.Store
}

func newBuckets() *buckets {
	return &buckets{saves: map[string][]string{}, store: map[string]store.Store{}}
}

type recordingStore struct {
	store.Store
	b      *buckets
	bucket string
}

func (s recordingStore) Save(ctx context.Context, snap *store.Snapshot) error {
	if snap.Method != "" {
		s.b.mu.Lock()
		s.b.saves[s.bucket] = append(s.b.saves[s.bucket], snap.Method)
		s.b.mu.Unlock()
	}
	return s.Store.Save(ctx, snap)
}

func (b *buckets) backend(settings map[string]any) (store.Store, error) {
	name, _ := settings["store"].(string)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.store[name] == nil {
		b.store[name] = recordingStore{Store: store.NewMemory(), b: b, bucket: name}
	}
	return b.store[name], nil
}

func (b *buckets) of(name string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.saves[name]...)
}

func persistEngine(b *buckets, opts ...flow.Option) *flow.Engine {
	const m = "test_flow_from_definition:"
	incr := func(ret string) flow.Handler {
		return func(_ context.Context, in flow.Input) (any, error) {
			in.State.Update(func(s map[string]any) { s["count"] = intOf(s["count"]) + 1 })
			return ret, nil
		}
	}
	return fixtureEngine(append([]flow.Option{
		flow.WithBackend("DefinitionStoreBackend", b.backend),
		flow.WithCode(m+"PersistedFlow.first", incr("one")),
		flow.WithCode(m+"PersistedFlow.second", incr("two")),
		flow.WithCode(m+"ReviewFlow.draft", func(context.Context, flow.Input) (any, error) { return "draft-content", nil }),
		flow.WithCode(m+"ReviewFlow.publish", func(_ context.Context, in flow.Input) (any, error) {
			hf, _ := in.Trigger.(map[string]any)
			return fmt.Sprintf("published:%v", hf["feedback"]), nil
		}),
		flow.WithCode(m+"ReviewFlow.discard", func(context.Context, flow.Input) (any, error) { return "discarded", nil }),
		flow.WithCode(m+"_pending_generate", func(context.Context, flow.Input) (any, error) { return "content", nil }),
		flow.WithCode(m+"_pending_process", func(_ context.Context, in flow.Input) (any, error) {
			hf, _ := in.Trigger.(map[string]any)
			return fmt.Sprintf("resumed:%v", hf["feedback"]), nil
		}),
	}, opts...)...)
}

func loadFixture(t *testing.T, name string) *flow.Definition {
	t.Helper()
	def, err := flow.Load(filepath.Join(fixtureDir(t), "valid", name))
	require.NoError(t, err)
	return def
}

func TestPersistFlowLevelSavesOncePerMethodAndRestores(t *testing.T) {
	b := newBuckets()
	eng := persistEngine(b)
	def := loadFixture(t, "persist_flow_level.yaml")
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "two", res.Output)
	assert.Equal(t, []string{"first", "second"}, b.of("yaml-flow-level"), "every method saves once")
	assert.Equal(t, int64(2), res.State["count"])

	again, err := eng.Run(context.Background(), def, map[string]any{"id": res.RunID})
	require.NoError(t, err)
	assert.Equal(t, int64(4), again.State["count"], "restored state, both methods run again")
	assert.Equal(t, res.RunID, again.RunID)
}

func TestPersistMethodLevelAndOverrides(t *testing.T) {
	cases := []struct {
		file string
		want map[string][]string
	}{
		{"persist_method_level.yaml", nil},
		{"persist_method_opt_out.yaml", map[string][]string{"yaml-opt-out": {"first"}}},
		{"persist_method_backend_override.yaml", map[string][]string{"yaml-mixed-flow": {"first"}, "yaml-mixed-method": {"second"}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			b := newBuckets()
			def := loadFixture(t, c.file)
			_, err := persistEngine(b).Run(context.Background(), def, nil)
			require.NoError(t, err)
			if c.want == nil {
				// Only the method with persist saves, once.
				total := 0
				for name := range b.saves {
					assert.Equal(t, []string{"first"}, b.of(name))
					total++
				}
				assert.Equal(t, 1, total)
				return
			}
			for bucket, want := range c.want {
				assert.Equal(t, want, b.of(bucket), bucket)
			}
		})
	}
}

func TestHumanFeedbackDefaultOutcomeRoutes(t *testing.T) {
	asked := 0
	eng := persistEngine(newBuckets(), flow.WithFeedback(flow.FeedbackFunc(
		func(_ context.Context, req *flow.FeedbackRequest) (string, error) {
			asked++
			assert.Equal(t, "draft-content", req.Output)
			assert.Equal(t, "Review the draft:", req.Message)
			return "", nil
		})))
	res, err := eng.Run(context.Background(), loadFixture(t, "hitl_review_emit.yaml"), nil)
	require.NoError(t, err)
	assert.Equal(t, "discarded", res.Output)
	assert.Equal(t, 1, asked)
	assert.Equal(t, "draft-content", res.Outputs["draft"], "a routing review keeps the method's own output")
}

func TestHumanFeedbackFreeTextCollapsesThroughModel(t *testing.T) {
	model := fake.New(fake.Reply{Match: "ship it", JSON: map[string]any{"outcome": "approved"}})
	eng := persistEngine(newBuckets(), flow.WithLLM(model), flow.WithFeedback(flow.FeedbackFunc(
		func(context.Context, *flow.FeedbackRequest) (string, error) { return "ship it", nil })))
	res, err := eng.Run(context.Background(), loadFixture(t, "hitl_review_emit.yaml"), nil)
	require.NoError(t, err)
	assert.Equal(t, "published:ship it", res.Output)
	require.Len(t, model.Requests(), 1)
	assert.NotNil(t, model.Requests()[0].ResponseSchema, "the outcome is asked for as structured output")
}

func TestHumanFeedbackPauseAndResume(t *testing.T) {
	b := newBuckets()
	def := loadFixture(t, "hitl_pending_resume.yaml")
	eng := persistEngine(b, flow.WithFeedbackProvider("test_flow_from_definition:PausingProvider", flow.PendingProvider))
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err, "a pause is a result, not an error")
	require.NotNil(t, res.Pending)
	assert.Equal(t, "generate", res.Pending.Method)
	assert.Equal(t, "Review:", res.Pending.Message)

	// A new engine (as in another process) continues from the store.
	fresh := persistEngine(b, flow.WithFeedbackProvider("test_flow_from_definition:PausingProvider", flow.PendingProvider))
	done, err := fresh.Resume(context.Background(), def, flow.ResumeRequest{FlowID: res.RunID, Feedback: "looks good"})
	require.NoError(t, err)
	assert.Nil(t, done.Pending)
	assert.Equal(t, "resumed:looks good", done.Output)
	assert.Equal(t, []string{"generate", "process"}, done.Trace)
	hf, _ := done.Outputs["generate"].(map[string]any)
	assert.Equal(t, "looks good", hf["feedback"])
	assert.Equal(t, "content", hf["output"])

	_, err = fresh.Resume(context.Background(), def, flow.ResumeRequest{FlowID: res.RunID, Feedback: "again"})
	assert.ErrorContains(t, err, "already completed")
}

func TestHumanFeedbackProviderErrors(t *testing.T) {
	_, err := persistEngine(newBuckets()).Run(context.Background(), loadFixture(t, "hitl_provider_unresolvable.yaml"), nil)
	assert.ErrorContains(t, err, "unresolvable human_feedback.provider ref")
}

func TestHumanFeedbackGlobalProviderFallback(t *testing.T) {
	calls := 0
	eng := persistEngine(newBuckets(), flow.WithFeedback(flow.FeedbackFunc(
		func(_ context.Context, req *flow.FeedbackRequest) (string, error) {
			calls++
			assert.Equal(t, "generate", req.Method)
			return "from-config", nil
		})))
	res, err := eng.Run(context.Background(), loadFixture(t, "hitl_global_provider_fallback.yaml"), nil)
	require.NoError(t, err)
	assert.Equal(t, "resumed:from-config", res.Output)
	assert.Equal(t, 1, calls)
}

func TestResumeAfterCrashSkipsFinishedMethods(t *testing.T) {
	st := store.NewMemory()
	ran := map[string]int{}
	var mu sync.Mutex
	count := func(name string, fail bool) flow.Handler {
		return func(context.Context, flow.Input) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			ran[name]++
			if fail && ran[name] == 1 {
				return nil, fmt.Errorf("process died during %s", name)
			}
			return name + "-out", nil
		}
	}
	def := mustParse(t, `
schema: crewai.flow/v1
name: Crashy
persist: {enabled: true}
methods:
  a: {start: true, do: {ref: "t:a"}}
  b: {listen: a, do: {ref: "t:b"}}
  c: {listen: b, do: {ref: "t:c"}}
  d: {listen: c, do: {call: expression, expr: "outputs.a + '+' + outputs.b + '+' + outputs.c"}}
`)
	eng := flow.NewEngine(flow.WithStore(st), flow.WithCode("t:a", count("a", false)),
		flow.WithCode("t:b", count("b", false)), flow.WithCode("t:c", count("c", true)))
	_, err := eng.Run(context.Background(), def, map[string]any{"id": "run-1"})
	require.Error(t, err)

	res, err := eng.Resume(context.Background(), def, flow.ResumeRequest{FlowID: "run-1"})
	require.NoError(t, err)
	assert.Equal(t, "a-out+b-out+c-out", res.Output)
	assert.Equal(t, map[string]int{"a": 1, "b": 1, "c": 2}, ran, "a and b were replayed, not run again")
}

func TestResumeRefusesChangedDefinition(t *testing.T) {
	b := newBuckets()
	def := loadFixture(t, "hitl_pending_resume.yaml")
	eng := persistEngine(b, flow.WithFeedbackProvider("test_flow_from_definition:PausingProvider", flow.PendingProvider))
	res, err := eng.Run(context.Background(), def, nil)
	require.NoError(t, err)
	changed := mustParse(t, `
schema: crewai.flow/v1
name: PendingReviewFlow
persist: {enabled: true, persistence: {persistence_type: DefinitionStoreBackend, store: hitl-pending}}
methods:
  generate: {start: true, do: {ref: "test_flow_from_definition:_pending_generate"}}
`)
	_, err = persistEngine(b).Resume(context.Background(), changed, flow.ResumeRequest{FlowID: res.RunID, Feedback: "ok"})
	require.ErrorIs(t, err, flow.ErrDefinitionChanged)
}

// hitl_provider_needs_args.yaml: CrewAI instantiates a provider class from
// its ref and fails with "cannot instantiate human_feedback.provider ref"
// when the constructor needs arguments. Go hosts register provider values
// (flow.WithFeedbackProvider), so nothing is instantiated; the honest Go
// equivalent is that a ref nobody registered fails loudly before feedback
// is asked, naming the field and the ref.
func TestHumanFeedbackProviderRefMustBeRegistered(t *testing.T) {
	_, err := persistEngine(newBuckets()).Run(context.Background(), loadFixture(t, "hitl_provider_needs_args.yaml"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unresolvable human_feedback.provider ref 'test_flow_from_definition:_NeedsArgsProvider'")
}

// TestPersistedNaNFailsTheMethod sets NaN and infinities in the state of a
// persisted run: the method that set them fails, naming the state key,
// before it counts as done, and nothing after it runs.
func TestPersistedNaNFailsTheMethod(t *testing.T) {
	cases := []struct {
		name  string
		score any
	}{
		{"NaN", math.NaN()},
		{"infinity", math.Inf(1)},
		{"nested", map[string]any{"a": []any{1.0, math.Inf(-1)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := store.NewMemory()
			var events []flow.Event
			eng := flow.NewEngine(flow.WithStore(st), flow.WithEvents(func(ev flow.Event) { events = append(events, ev) }),
				flow.WithCode("t:score", func(_ context.Context, in flow.Input) (any, error) {
					in.State.Set("score", c.score)
					in.State.Set("ok", "fine")
					return "scored", nil
				}))
			def := mustParse(t, `
schema: crewai.flow/v1
name: Scores
persist: {enabled: true}
methods:
  score: {start: true, do: {ref: "t:score"}}
  after: {listen: score, do: {call: expression, expr: "'after'"}}
`)
			res, err := eng.Run(t.Context(), def, map[string]any{"id": "run-1"})
			require.Error(t, err)
			assert.Nil(t, res)
			var me *flow.MethodError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "score", me.Method)
			assert.Contains(t, err.Error(), "state.score")
			for _, ev := range events {
				assert.False(t, ev.Kind == flow.MethodFinished, "%s finished", ev.Method)
				assert.NotEqual(t, "after", ev.Method)
			}
			_, err = st.Load(t.Context(), "run-1")
			assert.ErrorIs(t, err, store.ErrNotFound, "no snapshot holds the method as done")
		})
	}
}

// failingPauses is a store whose saves of paused runs fail, as a write
// or a commit to a broken disk does.
type failingPauses struct{ store.Store }

func (f failingPauses) Save(ctx context.Context, s *store.Snapshot) error {
	if s.Status == store.StatusPaused {
		return errors.New("disk I/O error")
	}
	return f.Store.Save(ctx, s)
}

// TestPauseIsReportedOnlyOnceSaved pauses a run on a store that cannot save
// the pause: the run fails with the store's error instead of reporting a
// pause nobody could resume.
func TestPauseIsReportedOnlyOnceSaved(t *testing.T) {
	eng := flow.NewEngine(flow.WithStore(failingPauses{store.NewMemory()}))
	res, err := eng.Run(t.Context(), mustParse(t, `
schema: crewai.flow/v1
name: Pauses
methods:
  a: {start: true, do: {call: expression, expr: "'x'"}, human_feedback: {message: "ok?"}}
`), nil)
	require.ErrorContains(t, err, "disk I/O error")
	assert.Nil(t, res)
}
