package flow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// scriptDriver runs one script action: it reads the script and its data as
// JSON on stdin, runs the body as _flow_script(state, outputs, input, item)
// and writes the result and the final state as JSON on stdout.
const scriptDriver = `
import json, sys
req = json.load(sys.stdin)
src = "def _flow_script(state, outputs, input, item):\n" + "".join(
    "    " + line + "\n" for line in (req["code"].splitlines() or ["pass"])) + "    pass\n"
scope = {}
exec(compile(src, "<flow script>", "exec"), scope)
state = req["state"]
result = scope["_flow_script"](state, req["outputs"], req["input"], req["item"])
json.dump({"result": result, "state": state}, sys.stdout, default=str)
`

func (e *Engine) compileScript(a *Action) execFn {
	code := a.Code
	return func(ctx context.Context, r *run, sc *scope, trigger any) (any, error) {
		r.mu.Lock()
		req := map[string]any{
			"code":    code,
			"state":   r.state(),
			"outputs": r.outputsFor(sc),
			"input":   normalize(trigger),
			"item":    sc.item,
		}
		in, err := json.Marshal(req)
		r.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("script: cannot pass data to Python: %w", err)
		}
		cmd := exec.CommandContext(ctx, e.python, "-c", scriptDriver)
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if i := strings.LastIndex(msg, "\n"); i >= 0 {
				msg = msg[i+1:]
			}
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("script failed: %s", msg)
		}
		var resp struct {
			Result any            `json:"result"`
			State  map[string]any `json:"state"`
		}
		raw, err := jsondata.Decode(stdout.Bytes())
		if err != nil {
			return nil, fmt.Errorf("script: unreadable result: %w", err)
		}
		m, _ := raw.(map[string]any)
		resp.Result = m["result"]
		resp.State, _ = m["state"].(map[string]any)
		if resp.State != nil {
			r.stateHandle.Update(func(s map[string]any) {
				for k := range s {
					if _, ok := resp.State[k]; !ok {
						delete(s, k)
					}
				}
				for k, v := range resp.State {
					s[k] = v
				}
			})
		}
		return resp.Result, nil
	}
}
