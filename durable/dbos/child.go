package dbos

import (
	"context"
	"errors"
	"fmt"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/troupe-dev/troupe/durable"
	"github.com/troupe-dev/troupe/flow"
)

// MethodWorkflowName is the name method invocations are registered under:
// each effectful invocation of a run is a child workflow of the run, with
// the invocation's key ("run/method#invocation") as its id.
const MethodWorkflowName = "troupe.method"

// doneTopic is the topic on a run's inbox where its method invocations
// report their outcomes.
const doneTopic = "troupe.done"

// MethodInput is a method invocation's workflow input: a [flow.Invocation]
// whose values the durable codec encoded.
type MethodInput struct {
	Flow       string `json:"flow"`
	RunID      string `json:"run"`
	Method     string `json:"method"`
	Invocation int    `json:"invocation"`
	Trigger    string `json:"trigger"` // durable.EncodeResult
	State      string `json:"state"`   // durable.EncodeValue
	Outputs    string `json:"outputs"` // durable.EncodeValue
}

// methodDone is what an invocation sends its run when it ends.
type methodDone struct {
	Key    string   `json:"key"`
	Output string   `json:"output,omitempty"` // durable.EncodeResult
	Set    string   `json:"set,omitempty"`    // durable.EncodeValue
	Delete []string `json:"delete,omitempty"`
	Err    string   `json:"err,omitempty"`
}

func (w *Worker) encodeInvocation(inv flow.Invocation) (MethodInput, error) {
	key := inv.Key()
	in := MethodInput{Flow: inv.Flow, RunID: inv.RunID, Method: inv.Method, Invocation: inv.Invocation}
	t, err := w.codec.EncodeResult(key, inv.Trigger)
	if err != nil {
		return in, err
	}
	s, err := w.codec.EncodeValue(key, "state", inv.State)
	if err != nil {
		return in, err
	}
	o, err := w.codec.EncodeValue(key, "outputs", inv.Outputs)
	if err != nil {
		return in, err
	}
	in.Trigger, in.State, in.Outputs = string(t), string(s), string(o)
	return in, nil
}

func decodeInvocation(in MethodInput) (flow.Invocation, error) {
	inv := flow.Invocation{RunID: in.RunID, Flow: in.Flow, Method: in.Method, Invocation: in.Invocation}
	var err error
	if inv.Trigger, err = durable.DecodeResult([]byte(in.Trigger)); err != nil {
		return inv, err
	}
	if inv.State, err = decodeMap(in.State); err != nil {
		return inv, err
	}
	inv.Outputs, err = decodeMap(in.Outputs)
	return inv, err
}

func decodeMap(s string) (map[string]any, error) {
	v, err := durable.DecodeValue([]byte(s))
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// stepped reports whether the method's whole action is one step: code,
// tool and script actions make no model or tool calls of their own that
// could be steps, so their result is recorded once it is known.
func stepped(def *flow.Definition, method string) bool {
	m := def.Method(method)
	if m == nil || m.Do == nil {
		return false
	}
	switch m.Do.Call {
	case flow.CallCode, flow.CallTool, flow.CallScript:
		return true
	}
	return false
}

// method is the workflow of one method invocation: it performs the
// action (its model and tool calls are steps of this workflow, named by
// their effect keys) and sends the outcome to the run's inbox.
func (w *Worker) method(ctx transact.Context, in MethodInput) (string, error) {
	def, ok := w.flows[in.Flow]
	if !ok {
		return "", fmt.Errorf("dbos: no flow %q on this worker", in.Flow)
	}
	inv, err := decodeInvocation(in)
	if err != nil {
		return "", err
	}
	key := inv.Key()
	w.runs.Store(key, ctx)
	defer w.runs.Delete(key)
	perform := func() (methodDone, error) {
		res, err := w.eng.Invoke(ctx, def, inv)
		if err != nil {
			if ctx.Err() != nil {
				return methodDone{}, err // cancelled: nobody waits for the outcome
			}
			return methodDone{Key: key, Err: err.Error()}, nil
		}
		msg, err := w.encodeDone(key, res)
		if err != nil {
			msg = methodDone{Key: key, Err: err.Error()}
		}
		return msg, nil
	}
	var msg methodDone
	if stepped(def, inv.Method) {
		msg, err = transact.RunAsStep(ctx, func(_ context.Context) (methodDone, error) { return perform() }, transact.WithStepName(key))
	} else {
		msg, err = perform()
	}
	if err != nil {
		return "", err
	}
	if err := transact.Send(ctx, inv.RunID, msg, doneTopic); err != nil {
		return "", fmt.Errorf("dbos: method %s: report to run %s: %w", key, inv.RunID, err)
	}
	if msg.Err != "" {
		return "", errors.New(msg.Err)
	}
	return msg.Output, nil
}

func (w *Worker) encodeDone(key string, res flow.InvokeResult) (methodDone, error) {
	msg := methodDone{Key: key, Delete: res.Patch.Delete}
	b, err := w.codec.EncodeResult(key, res.Output)
	if err != nil {
		return msg, err
	}
	msg.Output = string(b)
	if len(res.Patch.Set) > 0 {
		if b, err = w.codec.EncodeValue(key, "state patch", res.Patch.Set); err != nil {
			return msg, err
		}
		msg.Set = string(b)
	}
	return msg, nil
}

// outcome turns a reported outcome into the job's output and patch, or
// its failure.
func outcome(msg methodDone) (any, flow.StatePatch, error) {
	if msg.Err != "" {
		return nil, flow.StatePatch{}, errors.New(msg.Err)
	}
	out, err := durable.DecodeResult([]byte(msg.Output))
	if err != nil {
		return nil, flow.StatePatch{}, err
	}
	p := flow.StatePatch{Delete: msg.Delete}
	if msg.Set != "" {
		if p.Set, err = decodeMap(msg.Set); err != nil {
			return nil, flow.StatePatch{}, err
		}
	}
	return out, p, nil
}

// startMethod starts job j of the run as a child workflow, on the method
// queue when the worker has one. Starting it again (on replay) returns
// the recorded child.
func (w *Worker) startMethod(ctx transact.Context, d *flow.Driver, j *flow.Job) error {
	inv, err := d.Invocation(j)
	if err != nil {
		return err
	}
	in, err := w.encodeInvocation(inv)
	if err != nil {
		return err
	}
	opts := []transact.WorkflowOption{transact.WithWorkflowID(inv.Key())}
	if w.methodQueue != nil {
		opts = append(opts, transact.WithQueue(w.methodQueue))
	}
	if _, err := transact.RunWorkflow(ctx, w.method, in, opts...); err != nil {
		return fmt.Errorf("dbos: run %s: start %s: %w", inv.RunID, inv.Key(), err)
	}
	return nil
}
