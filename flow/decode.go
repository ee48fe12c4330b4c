package flow

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/troupe-dev/troupe/internal/diag"
)

// decoder turns a parsed document into a Definition, reporting every shape
// problem with its path instead of stopping at the first.
type decoder struct {
	*reporter
	// built is set when validating a Definition built in Go, which has no
	// source: problems the loader reports while decoding must then be
	// found by the validator.
	built bool
	// scalars holds the string nodes whose text is CEL, by path, so that a
	// CEL problem can point inside the string.
	scalars map[string]*node
	// invalid holds the paths of values that were given but could not be
	// decoded, so the validator does not report them as missing too.
	invalid map[string]bool
	// celJobs are the CEL checks queued by the validator (see runCEL);
	// curMethod and curSteps say where the validator is: the index of the method
	// and the step names in scope inside an each action.
	celJobs   []celJob
	curMethod int
	curSteps  []string
	// suggestBudget is the work left for "did you mean" hints on the
	// flow's own names (see suggester).
	suggestBudget int
}

func newDecoder(source string, src []byte, root *node) *decoder {
	return &decoder{
		reporter: &reporter{file: source, src: src, pos: positions{"": root.pos()}},
		scalars:  map[string]*node{},
		invalid:  map[string]bool{},
	}
}

// celText decodes a required string holding CEL and remembers where it is.
func (d *decoder) celText(path string, n *node) string {
	s := d.str(path, n)
	if d.scalars != nil && n.kind == scalarNode {
		d.scalars[path] = n
	}
	return s
}

// mark records where path stands in the source and returns path.
func (d *decoder) mark(path string, n *node) string {
	if n != nil {
		if _, ok := d.pos[path]; !ok {
			d.pos[path] = n.pos()
		}
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// extraMode is what a model does with keys it does not declare, as in
// pydantic's extra setting.
type extraMode int

const (
	// extraIgnore drops unknown keys; Troupe warns since CrewAI is silent.
	extraIgnore extraMode = iota
	// extraForbid rejects unknown keys.
	extraForbid
	// extraAllow keeps unknown keys (agents, crews, tasks, LLMs).
	extraAllow
)

// fields walks a mapping. known lists the accepted keys (aliases map to
// their canonical key with "alias=canonical"). It returns the values by
// canonical key; with extraAllow, unknown keys are returned too.
func (d *decoder) fields(path string, n *node, mode extraMode, known ...string) map[string]*node {
	out := make(map[string]*node, len(n.keys))
	for i, k := range n.keys {
		kp := join(path, k)
		d.pos[kp] = n.keyPos[i]
		v := n.vals[i]
		target, ok := canonical(k, known)
		if !ok && mode == extraAllow {
			out[k] = v
			continue
		}
		if !ok {
			names := fieldNames(known)
			hint := ""
			if c := closest(k, names); c != "" {
				hint = fmt.Sprintf(" Did you mean %q?", c)
			}
			if mode == extraForbid {
				d.errorf(kp, "extra_forbidden", "Extra inputs are not permitted [type=extra_forbidden]: %q is not a field here; allowed: %s.%s", k, strings.Join(names, ", "), hint)
			} else {
				d.warnf(kp, "unknown_key", "unknown key %q is ignored.%s", k, hint)
			}
			continue
		}
		if _, dup := out[target]; dup {
			d.errorf(kp, "duplicate_field", "%q and its alias are both set; keep one", k)
			continue
		}
		out[target] = v
	}
	return out
}

// canonical finds key among known field specs ("name" or "alias=name") and
// returns its canonical name. The lists are short: a scan beats a map.
func canonical(key string, known []string) (string, bool) {
	for _, k := range known {
		if len(k) < len(key) || k[:len(key)] != key {
			continue
		}
		if len(k) == len(key) {
			return k, true
		}
		if k[len(key)] == '=' {
			return k[len(key)+1:], true
		}
	}
	return "", false
}

// fieldNames lists the canonical names of known field specs.
func fieldNames(known []string) []string {
	names := make([]string, 0, len(known))
	for _, k := range known {
		if !strings.Contains(k, "=") {
			names = append(names, k)
		}
	}
	return names
}

// isMap reports an error unless n is a mapping.
func (d *decoder) isMap(path string, n *node, what string) bool {
	if n.kind == mapNode {
		return true
	}
	d.errorf(path, "dict_type", "Input should be a valid dictionary [type=dict_type]: %s must be a mapping, got %s", what, n.describe())
	return false
}

func (d *decoder) required(path string, f map[string]*node, key string) (*node, bool) {
	v, ok := f[key]
	if !ok {
		d.errorf(join(path, key), "missing", "Field required [type=missing]: add %q", key)
	}
	return v, ok
}

// str decodes a required string.
func (d *decoder) str(path string, n *node) string {
	if s, ok := n.value.(string); ok && n.kind == scalarNode {
		return s
	}
	if n.outOfRange() {
		return ""
	}
	d.errorf(path, "string_type", "Input should be a valid string [type=string_type], got %s", n.describe())
	return ""
}

// optStr decodes a string that may be null.
func (d *decoder) optStr(path string, n *node) string {
	if n == nil || n.isNull() {
		return ""
	}
	return d.str(path, n)
}

// boolean decodes a bool with pydantic's lax coercion.
func (d *decoder) boolean(path string, n *node) bool {
	if n == nil || n.kind != scalarNode {
		if n != nil {
			d.errorf(path, "bool_type", "Input should be a valid boolean [type=bool_type], got %s", n.describe())
		}
		return false
	}
	if b, ok := laxBool(n.value); ok || n.outOfRange() {
		return b
	}
	d.errorf(path, "bool_parsing", "Input should be a valid boolean [type=bool_parsing]: use true or false")
	return false
}

func laxBool(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int64:
		if v == 0 || v == 1 {
			return v == 1, true
		}
	case float64:
		if v == 0 || v == 1 {
			return v == 1, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		case "0", "off", "f", "false", "n", "no":
			return false, true
		}
	}
	return false, false
}

// optBool decodes a bool that may be null.
func (d *decoder) optBool(path string, n *node) *bool {
	if n == nil || n.isNull() {
		return nil
	}
	b := d.boolean(path, n)
	return &b
}

// optInt decodes an integer that may be null, with lax coercion.
func (d *decoder) optInt(path string, n *node) *int {
	if n == nil || n.isNull() {
		return nil
	}
	switch v := n.value.(type) {
	case int64:
		i := int(v)
		return &i
	case float64:
		if v == float64(int64(v)) {
			i := int(v)
			return &i
		}
	case string:
		if i, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return &i
		}
	case bigInt:
		return nil
	}
	d.errorf(path, "int_type", "Input should be a valid integer [type=int_type], got %s", n.describe())
	return nil
}

// strList decodes a list of strings that may be null.
func (d *decoder) strList(path string, n *node) []string {
	if n == nil || n.isNull() {
		return nil
	}
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type], got %s", n.describe())
		return nil
	}
	out := make([]string, 0, len(n.items))
	for i, it := range n.items {
		p := d.mark(index(path, i), it)
		out = append(out, d.str(p, it))
	}
	return out
}

// anyMap decodes an optional mapping of free-form values.
func (d *decoder) anyMap(path string, n *node, what string) map[string]any {
	if n == nil || n.isNull() {
		return nil
	}
	if !d.isMap(path, n, what) {
		return nil
	}
	d.markTree(path, n)
	m, _ := n.data().(map[string]any)
	return m
}

// exprData decodes ExpressionData: JSON data where every string may hold
// ${...} templates. Dates are rejected as CrewAI does.
func (d *decoder) exprData(path string, n *node) any {
	d.mark(path, n)
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			kp := join(path, k)
			d.pos[kp] = n.keyPos[i]
			m[k] = d.exprData(kp, n.vals[i])
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = d.exprData(index(path, i), it)
		}
		return l
	}
	if s, ok := n.value.(string); ok && d.scalars != nil && strings.Contains(s, "${") {
		d.scalars[path] = n
	}
	switch v := n.value.(type) {
	case timestamp:
		d.errorf(path, "expression_data", "an unquoted date (%s) is not valid expression data; quote it to make it a string", string(v))
		return string(v)
	case bigInt:
		return string(v)
	}
	return n.value
}

// exprMap decodes an optional map of ExpressionData.
func (d *decoder) exprMap(path string, n *node, what string) map[string]any {
	if n == nil || n.isNull() {
		return nil
	}
	if !d.isMap(path, n, what) {
		return nil
	}
	m, _ := d.exprData(path, n).(map[string]any)
	return m
}

// markTree records positions for every node below path.
func (d *decoder) markTree(path string, n *node) {
	d.mark(path, n)
	switch n.kind {
	case mapNode:
		for i, k := range n.keys {
			kp := join(path, k)
			d.pos[kp] = n.keyPos[i]
			d.markTree(kp, n.vals[i])
		}
	case seqNode:
		for i, it := range n.items {
			d.markTree(index(path, i), it)
		}
	}
}

// extras returns the keys of n not listed in known, as data.
func extras(n *node, known map[string]*node, skip ...string) map[string]any {
	var out map[string]any
outer:
	for i, k := range n.keys {
		if _, ok := known[k]; ok {
			continue
		}
		for _, s := range skip {
			if s == k {
				continue outer
			}
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = n.vals[i].data()
	}
	return out
}

// closest suggests the known name nearest to s, or "".
func closest(s string, names []string) string { return diag.Closest(s, names) }

func editDistance(a, b string) int { return diag.EditDistance(a, b) }
