package dbos

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
)

// ErrNoRun reports a run id the system database does not know.
var ErrNoRun = errors.New("dbos: no such run")

// A RunFilter selects runs; its zero value selects all.
type RunFilter struct {
	// Status is a DBOS workflow status: PENDING, ENQUEUED, SUCCESS,
	// ERROR, CANCELLED, MAX_RECOVERY_ATTEMPTS_EXCEEDED ("" is any).
	Status string
	// Flow is a flow name ("" is any).
	Flow string
	// Limit is the most runs to return, newest first (0 is no limit).
	Limit int
}

// RunInfo describes a run.
type RunInfo struct {
	ID, Flow, Status string
	// Executor is the executor id of the worker that runs or ran it;
	// Version its ApplicationVersion.
	Executor, Version string
	Created, Updated  time.Time
	// Error is the error a failed run ended with.
	Error string
}

// Runs lists the runs that match f, newest first.
func (w *Worker) Runs(f RunFilter) ([]RunInfo, error) { return listRuns(w.dctx, f) }

// Runs lists the runs that match f, newest first.
func (c *Client) Runs(f RunFilter) ([]RunInfo, error) { return listRuns(c.c, f) }

// Cancel cancels run id and its child workflows (DBOS stops a run at the
// start of its next step; a step in flight finishes). Cancelling a
// finished run changes nothing. An unknown id is ErrNoRun.
func (w *Worker) Cancel(id string) error { return cancelRun(w.dctx, id) }

// Cancel cancels run id; see [Worker.Cancel].
func (c *Client) Cancel(id string) error { return cancelRun(c.c, id) }

func listRuns(c transact.Client, f RunFilter) ([]RunInfo, error) {
	opts := []transact.ListWorkflowsOption{transact.WithFilterName(WorkflowName), transact.WithFilterSortDesc(),
		transact.WithFilterLoadInput(true), transact.WithFilterLoadOutput(false)}
	if f.Status != "" {
		opts = append(opts, transact.WithFilterStatus(transact.WorkflowStatusType(f.Status)))
	}
	if f.Limit > 0 && f.Flow == "" {
		opts = append(opts, transact.WithFilterLimit(f.Limit))
	}
	wfs, err := transact.ListWorkflows(c, opts...)
	if err != nil {
		return nil, fmt.Errorf("dbos: list runs: %w", err)
	}
	out := make([]RunInfo, 0, len(wfs))
	for _, wf := range wfs {
		r := RunInfo{ID: wf.ID, Flow: runFlow(wf.Input), Status: string(wf.Status), Executor: wf.ExecutorID,
			Version: wf.ApplicationVersion, Created: wf.CreatedAt, Updated: wf.UpdatedAt}
		if wf.Error != nil {
			r.Error = wf.Error.Error()
		}
		if f.Flow != "" && r.Flow != f.Flow {
			continue
		}
		out = append(out, r)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

// runFlow reads the flow name out of a run's input as DBOS lists it (a
// RunInput, a decoded JSON object or its text).
func runFlow(input any) string {
	var in RunInput
	switch v := input.(type) {
	case RunInput:
		return v.Flow
	case string:
		_ = json.Unmarshal([]byte(v), &in)
	default:
		b, err := json.Marshal(v)
		if err == nil {
			_ = json.Unmarshal(b, &in)
		}
	}
	return in.Flow
}

func cancelRun(c transact.Client, id string) error {
	wfs, err := transact.ListWorkflows(c, transact.WithFilterWorkflowIDs(id), transact.WithFilterLoadInput(false),
		transact.WithFilterLoadOutput(false))
	if err != nil {
		return fmt.Errorf("dbos: cancel run %s: %w", id, err)
	}
	if len(wfs) == 0 {
		return fmt.Errorf("%w: %s", ErrNoRun, id)
	}
	if err := transact.CancelWorkflow(c, id, transact.WithCancelChildren()); err != nil {
		return fmt.Errorf("dbos: cancel run %s: %w", id, err)
	}
	// Child workflows named after the run (id/...) that DBOS does not
	// know as its children.
	kids, err := transact.ListWorkflows(c, transact.WithFilterWorkflowIDPrefix(id+"/"),
		transact.WithFilterStatus(transact.WorkflowStatusPending, transact.WorkflowStatusEnqueued),
		transact.WithFilterLoadInput(false), transact.WithFilterLoadOutput(false))
	if err != nil {
		return fmt.Errorf("dbos: cancel the methods of run %s: %w", id, err)
	}
	if len(kids) == 0 {
		return nil
	}
	ids := make([]string, len(kids))
	for i, k := range kids {
		ids[i] = k.ID
	}
	if err := transact.CancelWorkflows(c, ids); err != nil {
		return fmt.Errorf("dbos: cancel the methods of run %s: %w", id, err)
	}
	return nil
}
