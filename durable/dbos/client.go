package dbos

import (
	"fmt"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/flow"
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
	return c.enqueue(queue, RunInput{Flow: flowName}, inputs, runID)
}

// EnqueueDefinition starts a run of def like Enqueue, recording def's
// hash with it: a worker whose definition of the flow differs refuses
// the run with a [DefinitionChangedError].
func (c *Client) EnqueueDefinition(queue string, def *flow.Definition, inputs map[string]any, runID string) error {
	return c.enqueue(queue, RunInput{Flow: def.Name, Hash: def.Hash()}, inputs, runID)
}

func (c *Client) enqueue(queue string, in RunInput, inputs map[string]any, runID string) error {
	b, err := c.codec.EncodeValue(runID, "inputs", inputs)
	if err != nil {
		return err
	}
	opts := []transact.EnqueueOption{transact.WithEnqueueWorkflowID(runID)}
	if c.version != "" {
		opts = append(opts, transact.WithEnqueueApplicationVersion(c.version))
	}
	in.Inputs = string(b)
	if _, err := transact.Enqueue[string](c.c, queue, WorkflowName, in, opts...); err != nil {
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
