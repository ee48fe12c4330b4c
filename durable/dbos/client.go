package dbos

import (
	"fmt"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/troupe-dev/troupe/durable"
)

// A Client starts runs on a queue that workers serve, waits for their
// results and takes dead workers' runs over, without running flows itself.
type Client struct {
	c       transact.Client
	codec   *durable.Codec
	version string
}

// NewClient returns a Client over a DBOS client (transact.NewClient).
// version is the ApplicationVersion of the workers that are to run its
// runs.
func NewClient(c transact.Client, version string) *Client {
	return &Client{c: c, codec: &durable.Codec{}, version: version}
}

// Enqueue starts a run of the named flow with id runID on the queue
// (starting the same id again returns the same run).
func (c *Client) Enqueue(queue, flowName string, inputs map[string]any, runID string) error {
	b, err := c.codec.EncodeValue(runID, "inputs", inputs)
	if err != nil {
		return err
	}
	opts := []transact.EnqueueOption{transact.WithEnqueueWorkflowID(runID)}
	if c.version != "" {
		opts = append(opts, transact.WithEnqueueApplicationVersion(c.version))
	}
	if _, err := transact.Enqueue[string](c.c, queue, WorkflowName, RunInput{Flow: flowName, Inputs: string(b)}, opts...); err != nil {
		return fmt.Errorf("dbos: enqueue run %s: %w", runID, err)
	}
	return nil
}

// Result waits for run runID to end and returns its output.
func (c *Client) Result(runID string) (any, error) { return result(c.c, runID) }

// Recover resumes the unfinished runs of dead executors; see
// [Worker.Recover].
func (c *Client) Recover(executorIDs ...string) ([]string, error) {
	return recoverRuns(c.c, executorIDs)
}

// Feedback answers the human feedback request of method in run runID.
func (c *Client) Feedback(runID, method, text string) error {
	return feedback(c.c, runID, method, text)
}
