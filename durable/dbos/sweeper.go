package dbos

import (
	"context"
	"fmt"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
)

// sweep resumes the pending workflows of every executor whose lease
// expired, then drops its lease. Only the elected sweeper sweeps, and a
// resumed workflow is ENQUEUED and then PENDING under the worker that
// takes it, so it is not listed again: each is resumed once. A sweeper
// that dies between the two steps leaves the lease, and the next one
// resumes what is left.
func (l *Lease) sweep(ctx context.Context) error {
	dead, err := l.db.expired(ctx, l.executor)
	if err != nil {
		return err
	}
	for _, ex := range dead {
		ids, err := resumePending(l.dctx, ex)
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			l.log.Info("troupe: took over the runs of an executor whose lease expired", "executor", ex, "runs", ids)
		}
		if err := l.db.release(ctx, ex); err != nil {
			return err
		}
	}
	return nil
}

// resumePending puts every pending workflow of executor (runs, and any
// child workflows of theirs) back on a queue, as DBOS's own recovery does
// at launch for the executor that comes back.
func resumePending(c transact.Client, executor string) ([]string, error) {
	wfs, err := transact.ListWorkflows(c, transact.WithFilterStatus(transact.WorkflowStatusPending),
		transact.WithFilterExecutorIDs(executor), transact.WithFilterLoadInput(false), transact.WithFilterLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("dbos: list the runs of %s: %w", executor, err)
	}
	if len(wfs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(wfs))
	for i, wf := range wfs {
		ids[i] = wf.ID
	}
	if _, err := transact.ResumeWorkflows[any](c, ids); err != nil {
		return nil, fmt.Errorf("dbos: resume the runs of %s: %w", executor, err)
	}
	return ids, nil
}
