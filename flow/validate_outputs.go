package flow

import (
	"fmt"
	"regexp"

	"github.com/troupe-dev/troupe/cel"
)

// outputsRef matches outputs.name and outputs['name'] in CEL text.
var outputsRef = regexp.MustCompile(`\boutputs\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*\])`)

// scanOutputs finds the method outputs a text may read, by its letters:
// a cheap first pass, since most references are fine. The ones that would
// be reported are confirmed on the parsed expression (readsOutput).
func scanOutputs(text string) []string {
	var out []string
	for _, m := range outputsRef.FindAllStringSubmatch(text, -1) {
		name := m[1] + m[2] + m[3]
		if !contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// readsOutput confirms on the parsed CEL that the job's text reads
// outputs.name (not, say, a string literal that mentions it).
func (j celJob) readsOutput(name string) bool {
	var names []string
	if j.full {
		names = cel.ExprOutputs(j.text)
	} else {
		names = cel.TemplateOutputs(j.text)
	}
	return contains(names, name)
}

// outputRefs are the method outputs one CEL text reads; exact says the
// names are certain, so they need no confirmation (readsOutput).
type outputRefs struct {
	job   celJob
	names []string
	exact bool
}

// checkOutputs warns about outputs.x read by a method that x cannot have
// run before (DESIGN.md: CrewAI fails only at run time, on the missing key).
// A method can have run before m when it can lead to m's trigger: it names
// the method or an event it emits; routers without declared outcomes may
// emit anything.
func (d *decoder) checkOutputs(def *Definition, refs []outputRefs) {
	if len(refs) == 0 || (def.Conversational != nil && def.Conversational.Enabled) {
		return
	}
	index := make(map[string]int, len(def.Methods))
	producers := map[string][]int{}
	var undeclared []int
	for i, m := range def.Methods {
		index[m.Name] = i
		producers[m.Name] = append(producers[m.Name], i)
		for _, e := range m.Events() {
			producers[e] = append(producers[e], i)
		}
		if m.IsRouter() && len(m.Events()) == 0 {
			undeclared = append(undeclared, i)
		}
	}
	preds := func(i int) []int {
		m := def.Methods[i]
		c := m.Listen
		if m.IsStart() {
			c = m.Start.When
		}
		if c == nil {
			return nil
		}
		var out []int
		for _, leaf := range c.Leaves() {
			out = append(out, producers[leaf]...)
		}
		return append(out, undeclared...)
	}
	// before returns whether method x can complete before method m starts,
	// walking m's predecessors; the walk is reused across the refs of m.
	// The walks share a budget linear in the size of the flow: past it,
	// x is assumed to be able to run first, so no warning is given.
	var (
		walking = -1
		walk    = 0
		seen    = make([]int, len(def.Methods)) // the walk that last visited each method
		queue   []int
		budget  = 64*len(def.Methods) + 1<<16
	)
	before := func(x, m int) bool {
		if walking != m {
			walking, queue = m, append(queue[:0], preds(m)...)
			walk++
			budget -= len(queue)
		}
		for seen[x] != walk && len(queue) > 0 {
			if budget <= 0 {
				return true
			}
			p := queue[0]
			queue = queue[1:]
			if seen[p] == walk {
				continue
			}
			seen[p] = walk
			next := preds(p)
			budget -= len(next) + 1
			queue = append(queue, next...)
		}
		return seen[x] == walk
	}
	names := newSuggester(func() []string { return sortedKeys(index) }, &d.suggestBudget)
	for _, r := range refs {
		m := def.Methods[r.job.method]
		for _, name := range r.names {
			if contains(r.job.steps, name) {
				continue
			}
			x, ok := index[name]
			switch {
			case ok && before(x, r.job.method):
			case !r.exact && !r.job.readsOutput(name):
			case !ok:
				hint := ""
				if c := names.suggest(name); c != "" {
					hint = fmt.Sprintf("; did you mean outputs.%s?", c)
				}
				d.warnf(r.job.path, "unknown_output", "outputs.%s names no method of this flow, so reading it fails when the method runs%s", name, hint)
			default:
				d.warnf(r.job.path, "output_not_ready", "outputs.%s is read by %q, but %q cannot have run before it; listen to %q (or to a method after it) to read its output", name, m.Name, name, name)
			}
		}
	}
}

// checkData checks every string inside JSON data as a template.
func (d *decoder) checkData(path string, v any, roots []string) {
	switch v := v.(type) {
	case string:
		d.checkTemplate(path, v, roots)
	case map[string]any:
		for _, k := range sortedKeys(v) {
			d.checkData(join(path, k), v[k], roots)
		}
	case []any:
		for i, it := range v {
			d.checkData(index(path, i), it, roots)
		}
	}
}
