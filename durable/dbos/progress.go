package dbos

import (
	"context"
	"fmt"
	"slices"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/troupe-dev/troupe/flow"
)

// The event key of a run's status and the stream key of its events.
const (
	StatusEvent  = "troupe.status"
	EventsStream = "troupe.events"
)

// A RunStatus is where a run is, as it last published.
type RunStatus struct {
	// Phase is "running", "waiting" (for human feedback), "done" or
	// "failed".
	Phase string `json:"phase"`
	// Running are the method invocations under way ("method#n").
	Running []string `json:"running,omitempty"`
	// Pending is the method whose human feedback the run waits for.
	Pending string `json:"pending,omitempty"`
	// Error is the error a failed run ended with.
	Error string `json:"error,omitempty"`
}

// A RunEvent is one entry of a run's event stream: a method invocation
// started, finished or failed. Seq numbers a run's events from 1.
type RunEvent struct {
	Seq        int    `json:"seq"`
	Kind       string `json:"kind"` // "started", "finished", "failed", "feedback"
	Method     string `json:"method"`
	Invocation int    `json:"invocation"`
	Error      string `json:"error,omitempty"`
}

// progress publishes a run's status and events from its workflow; the
// writes are DBOS operations, recorded like steps, so a replay does not
// repeat them.
type progress struct {
	ctx     transact.Context
	seq     int
	running []string
}

func (p *progress) publish(st RunStatus) error {
	st.Running = slices.Clone(p.running)
	if err := transact.SetEvent(p.ctx, StatusEvent, st); err != nil {
		return fmt.Errorf("dbos: publish the run's status: %w", err)
	}
	return nil
}

func (p *progress) event(kind string, e flow.Effect, err error) error {
	p.seq++
	ev := RunEvent{Seq: p.seq, Kind: kind, Method: e.Method, Invocation: e.Invocation}
	if err != nil {
		ev.Error = err.Error()
	}
	if werr := transact.WriteStream(p.ctx, EventsStream, ev); werr != nil {
		return fmt.Errorf("dbos: write the run's events: %w", werr)
	}
	return nil
}

// started records that j starts and publishes the status.
func (p *progress) started(j *flow.Job) error {
	name := fmt.Sprintf("%s#%d", j.Effect.Method, j.Effect.Invocation)
	p.running = append(p.running, name)
	kind, st := "started", RunStatus{Phase: "running"}
	if j.Effect.Kind == flow.EffectFeedback {
		kind, st = "feedback", RunStatus{Phase: "waiting", Pending: j.Effect.Method}
	}
	if err := p.event(kind, j.Effect, nil); err != nil {
		return err
	}
	return p.publish(st)
}

// finished records j's outcome (err nil: it finished).
func (p *progress) finished(j *flow.Job, err error) error {
	name := fmt.Sprintf("%s#%d", j.Effect.Method, j.Effect.Invocation)
	p.running = slices.DeleteFunc(p.running, func(s string) bool { return s == name })
	kind := "finished"
	if err != nil {
		kind = "failed"
	}
	if err := p.event(kind, j.Effect, err); err != nil {
		return err
	}
	return p.publish(RunStatus{Phase: "running"})
}

// inline records the invocations the driver ran itself since the last
// call (pure expressions: they start and finish within one decision) and
// empties the list.
func (p *progress) inline(effects *[]flow.Effect) error {
	for _, e := range *effects {
		if err := p.event("started", e, nil); err != nil {
			return err
		}
		if err := p.event("finished", e, nil); err != nil {
			return err
		}
	}
	*effects = (*effects)[:0]
	return nil
}

// end publishes the run's last status and closes its event stream.
func (p *progress) end(err error) {
	st := RunStatus{Phase: "done"}
	if err != nil {
		st = RunStatus{Phase: "failed", Error: err.Error()}
	}
	p.running = nil
	_ = p.publish(st)
	_ = transact.CloseStream(p.ctx, EventsStream)
}

// Status returns the status run id last published; a run that has not
// published one yet is ErrNoRun when unknown, else Phase "".
func (w *Worker) Status(id string) (RunStatus, error) { return runStatus(w.dctx, id) }

// Status returns run id's status; see [Worker.Status].
func (c *Client) Status(id string) (RunStatus, error) { return runStatus(c.c, id) }

// Events returns run id's events after sequence number afterSeq, without
// waiting for more.
func (w *Worker) Events(id string, afterSeq int) ([]RunEvent, error) {
	return runEvents(w.dctx, id, afterSeq)
}

// Events returns run id's events after afterSeq; see [Worker.Events].
func (c *Client) Events(id string, afterSeq int) ([]RunEvent, error) {
	return runEvents(c.c, id, afterSeq)
}

// Watch calls fn with each of run id's events, from the first, as they
// come, until the run ends, ctx ends or fn returns an error.
func (w *Worker) Watch(ctx context.Context, id string, fn func(RunEvent) error) error {
	return watch(ctx, w.dctx, id, fn)
}

// Watch follows run id's events; see [Worker.Watch].
func (c *Client) Watch(ctx context.Context, id string, fn func(RunEvent) error) error {
	return watch(ctx, c.c, id, fn)
}

func runStatus(c transact.Client, id string) (RunStatus, error) {
	if err := exists(c, id); err != nil {
		return RunStatus{}, err
	}
	st, err := transact.GetEvent[RunStatus](c, id, StatusEvent, 0)
	if err != nil {
		return RunStatus{}, fmt.Errorf("dbos: status of run %s: %w", id, err)
	}
	return st, nil
}

func runEvents(c transact.Client, id string, afterSeq int) ([]RunEvent, error) {
	if err := exists(c, id); err != nil {
		return nil, err
	}
	evs, _, err := transact.ReadStream[RunEvent](c, id, EventsStream, transact.WithReadStreamSnapshot(),
		transact.WithReadStreamFromOffset(afterSeq))
	if err != nil {
		return nil, fmt.Errorf("dbos: events of run %s: %w", id, err)
	}
	return evs, nil
}

func watch(ctx context.Context, c transact.Client, id string, fn func(RunEvent) error) error {
	if err := exists(c, id); err != nil {
		return err
	}
	ch, err := transact.ReadStreamAsync[RunEvent](c, id, EventsStream)
	if err != nil {
		return fmt.Errorf("dbos: watch run %s: %w", id, err)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case v, ok := <-ch:
			if !ok || v.Closed {
				return nil
			}
			if v.Err != nil {
				return fmt.Errorf("dbos: watch run %s: %w", id, v.Err)
			}
			if err := fn(v.Value); err != nil {
				return err
			}
		}
	}
}

// exists returns ErrNoRun when the database has no run id.
func exists(c transact.Client, id string) error {
	wfs, err := transact.ListWorkflows(c, transact.WithFilterWorkflowIDs(id), transact.WithFilterLoadInput(false),
		transact.WithFilterLoadOutput(false))
	if err != nil {
		return fmt.Errorf("dbos: run %s: %w", id, err)
	}
	if len(wfs) == 0 {
		return fmt.Errorf("%w: %s", ErrNoRun, id)
	}
	return nil
}
