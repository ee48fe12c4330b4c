package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/pyjson"
	"github.com/troupe-dev/troupe/llm"
)

// The loader's texts, CrewAI's.
const (
	loaderDescription = "Load one available skill's full instructions. Most requests need no skill, so only call this when an available skill's description clearly matches the current request."
	skillNameArg      = "Exact name of the available skill whose instructions are needed."
)

// loaderTool is load_skill: it returns a catalog skill's instructions.
type loaderTool struct{ a *agentSkills }

var _ action.ArgumentChecker = (*loaderTool)(nil)

// Spec implements action.Tool. Beyond CrewAI, the argument is an enum of
// the catalog's labels.
func (t *loaderTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.a.loader, Description: loaderDescription, Parameters: objectSchema(
		[]string{"skill_name"},
		"skill_name", map[string]any{"type": "string", "description": skillNameArg, "enum": t.a.labels()},
	)}
}

// ChecksArguments implements action.ArgumentChecker: a name outside the
// enum gets CrewAI's "not available" answer, not a schema error.
func (t *loaderTool) ChecksArguments() {}

// Call implements action.Tool. A label the catalog does not have is an
// ordinary result in CrewAI's words; a known one is reported as
// skill_activated and skill_used, marked loaded for the run, and answered
// with the skill's instructions block, which ends with the list of its
// resource files when the agent can read them.
func (t *loaderTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := decodeArgs(t.a.loader, raw, "skill_name")
	if err != nil {
		return nil, err
	}
	label := args.str("skill_name")
	sk := t.a.byLabel[label]
	if sk == nil {
		available := strings.Join(t.a.labels(), ", ")
		if available == "" {
			available = "none"
		}
		return fmt.Sprintf("Skill %s is not available. Available skills: %s.", pyjson.QuoteRepr(label), available), nil
	}
	var resources []ResourceDir
	if t.a.reader != "" {
		resources = Resources(sk)
	}
	level := 2
	if len(resources) > 0 {
		level = 3
	}
	if s := sessionOf(ctx, t.a); s != nil {
		s.load(label)
		s.report(ctx, action.EventSkillActivated, label, sk, 2)
		s.report(ctx, action.EventSkillUsed, label, sk, level)
	}
	return InstructionsBlock(label, sk, resources), nil
}

// objectSchema is the JSON Schema of an object with the given properties
// (name, schema pairs) and required names.
func objectSchema(required []string, props ...any) map[string]any {
	p := map[string]any{}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i].(string)] = props[i+1]
	}
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "properties": p, "required": req}
}

// toolArgs are a skill tool's decoded arguments.
type toolArgs map[string]json.RawMessage

// decodeArgs reads a JSON object whose required fields are strings.
func decodeArgs(tool string, raw json.RawMessage, required ...string) (toolArgs, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage("{}")
	}
	var m toolArgs
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, &action.ArgumentError{Tool: tool, Err: errors.New("the arguments must be a JSON object")}
	}
	for _, name := range required {
		v, ok := m[name]
		if !ok {
			return nil, &action.ArgumentError{Tool: tool, Err: fmt.Errorf("%s: Field required", name)}
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, &action.ArgumentError{Tool: tool, Err: fmt.Errorf("%s: Input should be a valid string", name)}
		}
	}
	return m, nil
}

// str returns a string argument ("" when absent or not a string).
func (a toolArgs) str(name string) string {
	var s string
	_ = json.Unmarshal(a[name], &s)
	return s
}
