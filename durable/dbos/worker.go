// Package dbos runs Troupe flows durably on DBOS Transact: one DBOS
// workflow per run (its id is the run id, so starting twice is
// idempotent), driven by [flow.Driver], with every model call and tool
// call a DBOS step named by its effect key. A worker that dies mid-run is
// recovered by DBOS; the recovered run replays recorded steps instead of
// calling models and tools again.
//
// It is its own Go module, so Troupe's core module never links DBOS:
//
//	go get github.com/troupe-dev/troupe/durable/dbos
//
// Import it under another name than DBOS's own package, e.g.
// troupedbos "github.com/troupe-dev/troupe/durable/dbos".
package dbos

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/flow"
)

// WorkflowName is the name runs are registered under.
const WorkflowName = "troupe.flow"

// Options configure a Worker.
type Options struct {
	// Flows are the definitions the worker runs, by name.
	Flows map[string]*flow.Definition
	// Engine are the engine's options: models, tools, code handlers. The
	// worker adds its own interceptor and runs tool rounds sequentially
	// (DBOS numbers steps in call order).
	Engine []flow.Option
	// Codec encodes step results; nil uses the default limits.
	Codec *durable.Codec
	// Queue, when set, is the name of a DBOS queue this worker serves
	// (with at most WorkerConcurrency runs at once, 10 when zero); Start
	// puts runs on it, so any worker serving it may take them.
	Queue             string
	WorkerConcurrency int
	// MethodQueue, when set, is the name of a DBOS queue for method
	// invocations (child workflows): every worker that serves it may take
	// a run's methods, so an AND fan-out spreads over workers (at most
	// MethodConcurrency at once on this worker, 10 when zero). Without it
	// a run's methods run on the run's worker, still concurrently.
	MethodQueue       string
	MethodConcurrency int
	// FeedbackWait is how long a run waits for a person's answer (30
	// days when zero).
	FeedbackWait time.Duration
}

// A Worker runs flows as DBOS workflows. Create it before transact.Launch.
type Worker struct {
	dctx  transact.Context
	eng   *flow.Engine
	flows map[string]*flow.Definition
	codec *durable.Codec
	wait  time.Duration
	queue transact.Queue
	// methodQueue serves method invocations (h-child); nil runs them
	// unqueued on the run's worker.
	methodQueue transact.Queue
	// runs maps a method invocation's key to its workflow context while
	// it runs here, for the steps of its effects.
	runs sync.Map
}

// RunInput is a run's workflow input: the flow's name and its inputs,
// encoded by the durable codec (integers stay integers).
type RunInput struct {
	Flow   string `json:"flow"`
	Inputs string `json:"inputs"`
	// Hash is the flow's definition hash when the run was started ("" when
	// unknown); a worker with another definition refuses the run. h-ops
	Hash string `json:"hash,omitempty"`
}

// NewWorker registers the run workflow on dctx.
func NewWorker(dctx transact.Context, o Options) (*Worker, error) {
	if dctx == nil {
		return nil, fmt.Errorf("dbos: no DBOS context")
	}
	w := &Worker{dctx: dctx, flows: o.Flows, codec: o.Codec, wait: o.FeedbackWait}
	if w.wait <= 0 {
		w.wait = 30 * 24 * time.Hour
	}
	if w.codec == nil {
		w.codec = &durable.Codec{}
	}
	// h-seams: model-call retries are the engine's, inside each model
	// call's step (the provider tries once per attempt): a step records the
	// call's final result, retries and back-off included, and only
	// llm.IsRetryable errors are retried, where a DBOS step retry
	// (WithStepMaxRetries) would retry any error, a 400 too. o.Engine may
	// set its own WithModelRetries after this one.
	opts := append([]flow.Option{flow.WithModelRetries(flow.ModelRetry{})}, o.Engine...)
	opts = append(opts, flow.WithToolRound(action.SequentialTools), flow.WithInterceptor(w.step))
	w.eng = flow.NewEngine(opts...)
	transact.RegisterWorkflow(dctx, w.run, transact.WithWorkflowName(WorkflowName))
	transact.RegisterWorkflow(dctx, w.method, transact.WithWorkflowName(MethodWorkflowName)) // h-child: child.go
	if o.MethodQueue != "" {
		n := o.MethodConcurrency
		if n <= 0 {
			n = 10
		}
		q, err := transact.RegisterQueue(dctx, o.MethodQueue, transact.WithWorkerConcurrency(n))
		if err != nil {
			return nil, fmt.Errorf("dbos: method queue %q: %w", o.MethodQueue, err)
		}
		w.methodQueue = q
	}
	if o.Queue != "" {
		n := o.WorkerConcurrency
		if n <= 0 {
			n = 10
		}
		q, err := transact.RegisterQueue(dctx, o.Queue, transact.WithWorkerConcurrency(n))
		if err != nil {
			return nil, fmt.Errorf("dbos: queue %q: %w", o.Queue, err)
		}
		w.queue = q
	}
	return w, nil
}

// Start starts a run of the named flow with id runID (starting the same
// id again returns the same run) and returns its id.
func (w *Worker) Start(flowName string, inputs map[string]any, runID string) (string, error) {
	if _, ok := w.flows[flowName]; !ok {
		return "", fmt.Errorf("dbos: no flow %q on this worker", flowName)
	}
	b, err := w.codec.EncodeValue(runID, "inputs", inputs)
	if err != nil {
		return "", err
	}
	opts := []transact.WorkflowOption{transact.WithWorkflowID(runID)}
	if w.queue != nil {
		opts = append(opts, transact.WithQueue(w.queue))
	}
	in := RunInput{Flow: flowName, Inputs: string(b), Hash: w.flows[flowName].Hash()} // h-ops: Hash
	h, err := transact.RunWorkflow(w.dctx, w.run, in, opts...)
	if err != nil {
		return "", fmt.Errorf("dbos: start run %s: %w", runID, err)
	}
	return h.GetWorkflowID(), nil
}

// Result waits for run runID to end and returns its output.
func (w *Worker) Result(runID string) (any, error) { return result(w.dctx, runID) }

func result(c transact.Client, runID string) (any, error) {
	h, err := transact.RetrieveWorkflow[string](c, runID)
	if err != nil {
		return nil, fmt.Errorf("dbos: run %s: %w", runID, err)
	}
	out, err := h.GetResult()
	if err != nil {
		return nil, fmt.Errorf("dbos: run %s: %w", runID, err)
	}
	return durable.DecodeResult([]byte(out))
}

// run is the workflow of one run: the driver, whose effectful jobs run as
// child workflows (child.go) that report their outcomes to the run's
// inbox. The run starts every ready job, then takes outcomes one at a
// time with Recv: DBOS records each received message, so a replayed run
// sees the outcomes in the same order and makes the same decisions.
// Expressions run inline (they are pure and read only recorded data);
// human feedback waits on the inbox too.
func (w *Worker) run(ctx transact.Context, in RunInput) (_ string, err error) {
	p := &progress{ctx: ctx}      // h-ops: status and events
	defer func() { p.end(err) }() // h-ops
	def, ok := w.flows[in.Flow]
	if !ok {
		return "", fmt.Errorf("dbos: no flow %q on this worker", in.Flow)
	}
	id, err := transact.GetWorkflowID(ctx)
	if err != nil {
		return "", err
	}
	if err := checkDefinition(id, in, def); err != nil { // h-ops
		return "", err
	}
	raw, err := durable.DecodeValue([]byte(in.Inputs))
	if err != nil {
		return "", err
	}
	inputs, _ := raw.(map[string]any)
	if inputs == nil {
		inputs = map[string]any{}
	}
	inputs["id"] = id
	// inlined collects the invocations the driver ran itself, for the
	// run's progress events (it calls the predicate once a job, in order).
	var inlined []flow.Effect
	d, err := w.eng.NewDriver(def, inputs, flow.InlineJobs(func(e flow.Effect) bool {
		m := def.Method(e.Method)
		ok := m != nil && m.Do != nil && m.Do.Call == flow.CallExpression
		if ok {
			inlined = append(inlined, e)
		}
		return ok
	}))
	if err != nil {
		return "", err
	}
	if err := p.inline(&inlined); err != nil {
		return "", err
	}
	defer d.Stop()
	started := map[string]bool{} // the child workflows started and not yet reported
	for !d.Done() {
		ready := d.Ready()
		if len(ready) == 0 {
			return "", fmt.Errorf("dbos: run %s waits for nothing but has not finished", id)
		}
		var fb *flow.Job
		for _, j := range ready {
			key := j.Effect.Key()
			switch {
			case j.Effect.Kind == flow.EffectFeedback:
				if fb == nil {
					fb = j
					if err := p.started(j); err != nil { // h-ops
						return "", err
					}
				}
			case !started[key]:
				if err := p.started(j); err != nil { // h-ops
					return "", err
				}
				if err := w.startMethod(ctx, d, j); err != nil {
					return "", err
				}
				started[key] = true
			}
		}
		if fb != nil {
			answer, err := w.awaitFeedback(ctx, fb)
			if err != nil {
				return "", err
			}
			if err := d.Complete(fb, answer); err != nil {
				return "", err
			}
			if err := p.finished(fb, nil); err != nil { // h-ops
				return "", err
			}
		} else if err := w.takeOutcome(ctx, d, p, ready, started); err != nil {
			return "", err
		}
		if err := p.inline(&inlined); err != nil {
			return "", err
		}
		for _, j := range d.Cancelled() {
			w.cancelMethod(ctx, j.Effect.Key(), started)
		}
	}
	for key := range sortedKeys(started) {
		w.cancelMethod(ctx, key, started)
	}
	res, err := d.Result()
	if err != nil {
		return "", err
	}
	b, err := w.codec.EncodeResult(id, res.Output)
	return string(b), err
}

// takeOutcome waits for the next outcome a method reports and gives it to
// the driver; an outcome of a job no longer waiting (a cancelled loser
// that finished anyway) is dropped.
func (w *Worker) takeOutcome(ctx transact.Context, d *flow.Driver, p *progress, ready []*flow.Job, started map[string]bool) error {
	msg, err := transact.Recv[methodDone](ctx, doneTopic, w.wait)
	if err != nil {
		return fmt.Errorf("dbos: wait for the methods' outcomes: %w", err)
	}
	delete(started, msg.Key)
	for _, j := range ready {
		if j.Effect.Key() != msg.Key || j.Effect.Kind != flow.EffectMethod {
			continue
		}
		out, patch, err := outcome(msg)
		if perr := p.finished(j, err); perr != nil { // h-ops
			return perr
		}
		if err != nil {
			return d.Fail(j, err)
		}
		j.Patch = patch
		return d.Complete(j, out)
	}
	return nil
}

// cancelMethod cancels the child workflow of a job whose outcome is no
// longer wanted. It is best effort: a child that already ended stays as
// it ended.
func (w *Worker) cancelMethod(ctx transact.Context, key string, started map[string]bool) {
	if !started[key] {
		return
	}
	delete(started, key)
	_ = transact.CancelWorkflow(ctx, key)
}

// sortedKeys returns m's keys in order, so that a replay cancels in the
// same order.
func sortedKeys(m map[string]bool) iter.Seq[string] {
	return slices.Values(slices.Sorted(maps.Keys(m)))
}

// step makes every model and tool call of a driven run a DBOS step named
// by its effect key, returning the decoded copy of its result.
// h-seams: and every memory read and write the engine makes for agents
// (a recall's result is recorded, so a replay sees what the run saw).
func (w *Worker) step(ctx context.Context, e flow.Effect, next func(context.Context) (any, error)) (any, error) {
	if e.Kind != flow.EffectLLM && e.Kind != flow.EffectTool && e.Kind != flow.EffectMemory {
		return next(ctx)
	}
	v, ok := w.runs.Load(flow.Effect{RunID: e.RunID, Method: e.Method, Invocation: e.Invocation, Kind: flow.EffectMethod}.Key())
	if !ok {
		return next(ctx)
	}
	wctx := v.(transact.Context)
	key := e.Key()
	b, err := transact.RunAsStep(wctx, func(context.Context) (string, error) {
		out, err := next(ctx)
		if err != nil {
			return "", err
		}
		b, err := w.codec.Encode(key, e.Kind, out)
		return string(b), err
	}, transact.WithStepName(key))
	if err != nil {
		return nil, err
	}
	return durable.Decode(e.Kind, []byte(b))
}

// Recover resumes the unfinished runs of the given executors (workers
// that died and will not come back under the same executor id) on the
// DBOS queues, where any live worker takes them, and returns their ids.
// Steps they recorded are not run again; the method invocations they had
// under way are resumed too.
func (w *Worker) Recover(executorIDs ...string) ([]string, error) {
	return recoverRuns(w.dctx, executorIDs)
}

func recoverRuns(c transact.Client, executorIDs []string) ([]string, error) {
	if len(executorIDs) == 0 {
		return nil, nil
	}
	runs, err := transact.ListWorkflows(c, transact.WithFilterStatus(transact.WorkflowStatusPending),
		transact.WithFilterExecutorIDs(executorIDs...), transact.WithFilterName(WorkflowName, MethodWorkflowName)) // h-child: and their methods
	if err != nil {
		return nil, fmt.Errorf("dbos: list the runs of %v: %w", executorIDs, err)
	}
	ids := make([]string, 0, len(runs))
	for _, r := range runs {
		if _, err := transact.ResumeWorkflow[string](c, r.ID); err != nil {
			return ids, fmt.Errorf("dbos: resume run %s: %w", r.ID, err)
		}
		if r.Name != MethodWorkflowName { // h-child: a run's methods are resumed with it, not listed
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// The topic of feedback answers and the event key of the pending request.
const (
	feedbackTopic = "troupe.feedback"
	pendingEvent  = "troupe.pending"
)

// A FeedbackAnswer answers the human feedback request of a method.
type FeedbackAnswer struct {
	Method string `json:"method"`
	Text   string `json:"text"`
}

// awaitFeedback publishes the pending request (its method) and waits on
// the run's inbox for the answer; the run holds no queue slot meanwhile.
func (w *Worker) awaitFeedback(ctx transact.Context, j *flow.Job) (string, error) {
	if err := transact.SetEvent(ctx, pendingEvent, j.Effect.Method); err != nil {
		return "", fmt.Errorf("dbos: run %s: publish the feedback request: %w", j.Effect.RunID, err)
	}
	for {
		a, err := transact.Recv[FeedbackAnswer](ctx, feedbackTopic, w.wait)
		if err != nil {
			return "", fmt.Errorf("dbos: run %s: wait for feedback on %s: %w", j.Effect.RunID, j.Effect.Method, err)
		}
		if a.Method == j.Effect.Method {
			if err := transact.SetEvent(ctx, pendingEvent, ""); err != nil {
				return "", err
			}
			return a.Text, nil
		}
		// An answer for another method is stale (sent twice, or late): drop it.
	}
}

// Pending returns the method whose human feedback run runID waits for,
// "" when it waits for none, waiting up to timeout for the run to say.
func (w *Worker) Pending(runID string, timeout time.Duration) (string, error) {
	m, err := transact.GetEvent[string](w.dctx, runID, pendingEvent, timeout)
	if err != nil {
		return "", fmt.Errorf("dbos: run %s: %w", runID, err)
	}
	return m, nil
}

// Feedback answers the human feedback request of method in run runID.
func (w *Worker) Feedback(runID, method, text string) error {
	return feedback(w.dctx, runID, method, text)
}

func feedback(c transact.Client, runID, method, text string) error {
	if err := transact.Send(c, runID, FeedbackAnswer{Method: method, Text: text}, feedbackTopic); err != nil {
		return fmt.Errorf("dbos: run %s: send feedback: %w", runID, err)
	}
	return nil
}
