package flow

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/cel"
)

var (
	baseRoots = []string{"outputs", "state"}
	stepRoots = []string{"item", "outputs", "state"}
)

// checkExpr queues a full-CEL field for checking.
func (d *decoder) checkExpr(path, expr string, roots []string) {
	d.celJobs = append(d.celJobs, celJob{path: path, text: expr, roots: roots, full: true,
		method: d.curMethod, steps: d.curSteps})
}

// checkTemplate queues a ${...} template string for checking.
func (d *decoder) checkTemplate(path, s string, roots []string) {
	if strings.Contains(s, "${") {
		d.celJobs = append(d.celJobs, celJob{path: path, text: s, roots: roots,
			method: d.curMethod, steps: d.curSteps})
	}
}

// celJob is one CEL field or template waiting to be checked.
type celJob struct {
	path, text string
	roots      []string
	full       bool // a full-CEL field, else a template
	// method is the index of the method the text belongs to; steps are the
	// step names in scope when it is inside an each action.
	method int
	steps  []string
}

// celResult is what checking a text found: its problems and the method
// outputs it reads; exact says the outputs are known for certain, not
// guessed from the letters of the text (see scanOutputs).
type celResult struct {
	problems []cel.Problem
	outputs  []string
	exact    bool
}

func (j celJob) check() celResult {
	if outputs, ok := j.simple(); ok {
		return celResult{outputs: outputs, exact: true}
	}
	var r celResult
	if j.full {
		r.problems = cel.CheckExpr(j.path, j.text, j.roots)
	} else {
		r.problems = cel.CheckTemplate(j.path, j.text, j.roots)
	}
	if len(r.problems) == 0 && strings.Contains(j.text, "outputs") {
		r.outputs = scanOutputs(j.text)
	}
	return r
}

// simple recognises the commonest CEL texts without parsing them: bare
// paths on an allowed root such as state.topic or outputs.step.raw, alone
// or as every ${...} of a template. Those are valid, and what they read is
// plain. For anything else it returns false and the CEL parser decides.
func (j celJob) simple() (outputs []string, ok bool) {
	if j.full {
		text := strings.TrimSpace(j.text)
		if strings.HasPrefix(text, "${") && strings.HasSuffix(text, "}") {
			text = strings.TrimSpace(text[2 : len(text)-1])
		}
		out, ok := simplePath(text, j.roots)
		if out != "" {
			outputs = []string{out}
		}
		return outputs, ok
	}
	rest := j.text
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			return outputs, true
		}
		rest = rest[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, false
		}
		out, ok := simplePath(strings.TrimSpace(rest[:end]), j.roots)
		if !ok {
			return nil, false
		}
		if out != "" && !contains(outputs, out) {
			outputs = append(outputs, out)
		}
		rest = rest[end+1:]
	}
}

// simplePath reports whether text is root(.field)* with an allowed root
// and no CEL reserved word, and returns the field after an outputs root.
func simplePath(text string, roots []string) (output string, ok bool) {
	root, rest, more := strings.Cut(text, ".")
	if !isIdent(root) || celReserved[root] || !contains(roots, root) {
		return "", false
	}
	for i := 0; more; i++ {
		var field string
		field, rest, more = strings.Cut(rest, ".")
		if !isIdent(field) || celReserved[field] {
			return "", false
		}
		if i == 0 && root == "outputs" {
			output = field
		}
	}
	return output, true
}

// isIdent reports whether s is a CEL identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// celReserved holds CEL's keywords and reserved words, which cannot be
// plain identifiers.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true,
	"if": true, "import": true, "let": true, "loop": true, "package": true,
	"namespace": true, "return": true, "var": true, "void": true, "while": true,
}

// celKey identifies a check apart from its path: flows repeat expressions,
// and a text that passes once passes everywhere with the same roots.
type celKey struct {
	text  string
	roots *string
	full  bool
}

// minParallelJobs is the number of distinct checks from which parsing CEL
// is spread over the CPUs; parsing dominates the load time of large flows.
const minParallelJobs = 64

// runCEL checks the queued CEL fields and templates and reports their
// problems. Each distinct text is parsed once, on several goroutines when
// there are many. It returns the jobs with the outputs each one reads.
func (d *decoder) runCEL() []outputRefs {
	jobs := d.celJobs
	d.celJobs = nil
	if len(jobs) == 0 {
		return nil
	}
	first := make(map[celKey]int, len(jobs))
	var unique []int // index in jobs of the first job of each key
	slot := make([]int, len(jobs))
	for i, j := range jobs {
		k := celKey{j.text, &j.roots[0], j.full}
		u, ok := first[k]
		if !ok {
			u = len(unique)
			first[k] = u
			unique = append(unique, i)
		}
		slot[i] = u
	}
	results := make([]celResult, len(unique))
	workers := min(runtime.GOMAXPROCS(0), len(unique)/minParallelJobs+1)
	if workers <= 1 {
		for u, i := range unique {
			results[u] = jobs[i].check()
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					u := int(next.Add(1)) - 1
					if u >= len(unique) {
						return
					}
					results[u] = jobs[unique[u]].check()
				}
			})
		}
		wg.Wait()
	}
	var refs []outputRefs
	for i, j := range jobs {
		r := results[slot[i]]
		if len(r.outputs) > 0 {
			refs = append(refs, outputRefs{job: j, names: r.outputs, exact: r.exact})
		}
		if len(r.problems) == 0 {
			continue
		}
		problems := r.problems
		if unique[slot[i]] != i {
			// The messages name the path: check this copy on its own.
			problems = j.check().problems
		}
		for _, p := range problems {
			d.celProblem(j.path, p)
		}
	}
	return refs
}

// celProblem reports a CEL problem at its place inside the string when the
// source allows it, else at the field.
func (d *decoder) celProblem(path string, p cel.Problem) {
	pos, ok := d.locate(d.scalars[path], p.Offset)
	if !ok {
		pos = d.pos.at(path)
	}
	d.diags = append(d.diags, Diagnostic{
		File: d.file, Line: pos.Line, Column: pos.Column, Path: path,
		Severity: SeverityError, Code: celCode(p.Code), Message: p.Message,
	})
}

// locate finds the line and column of byte offset off inside the string
// scalar n. It succeeds when the text up to off appears verbatim in the
// source: on one line for plain and quoted scalars (escapes and folding
// stop it), line by line for literal blocks.
func (d *decoder) locate(n *node, off int) (Pos, bool) {
	if n == nil || d.src == nil {
		return Pos{}, false
	}
	s, _ := n.value.(string)
	if off < 0 || off > len(s) {
		return Pos{}, false
	}
	prefix := s[:off]
	if n.style != blockStyle {
		if strings.Contains(prefix, "\n") {
			return n.pos(), true
		}
		q := 0
		if n.style != plainStyle {
			q = 1
		}
		line, ok := d.line(n.line)
		if !ok {
			return n.pos(), true
		}
		start, ok := runeIndex(line, n.column-1+q)
		if !ok || !bytes.HasPrefix(line[start:], []byte(prefix)) {
			return n.pos(), true
		}
		return Pos{n.line, n.column + q + utf8.RuneCountInString(prefix)}, true
	}
	// A literal block starts on the line after its indicator; each text
	// line is the source line less its indentation.
	k := strings.Count(prefix, "\n")
	within := prefix[strings.LastIndexByte(prefix, '\n')+1:]
	textLine, _, _ := strings.Cut(s[len(prefix)-len(within):], "\n")
	line, ok := d.line(n.line + 1 + k)
	if !ok || !bytes.HasSuffix(line, []byte(textLine)) {
		return n.pos(), true
	}
	indent := line[:len(line)-len(textLine)]
	if len(bytes.TrimLeft(indent, " ")) != 0 {
		return n.pos(), true
	}
	return Pos{n.line + 1 + k, len(indent) + 1 + utf8.RuneCountInString(within)}, true
}

// line returns source line n (1-based) without its line break.
func (r *reporter) line(n int) ([]byte, bool) {
	if r.lines == nil {
		r.lines = append(r.lines, 0)
		for i, c := range r.src {
			if c == '\n' {
				r.lines = append(r.lines, i+1)
			}
		}
	}
	if n < 1 || n > len(r.lines) {
		return nil, false
	}
	start, end := r.lines[n-1], len(r.src)
	if n < len(r.lines) {
		end = r.lines[n] - 1
	}
	return bytes.TrimSuffix(r.src[start:end], []byte("\r")), true
}

// runeIndex returns the byte index of the rune at index i in b.
func runeIndex(b []byte, i int) (int, bool) {
	at := 0
	for ; i > 0; i-- {
		if at >= len(b) {
			return 0, false
		}
		_, size := utf8.DecodeRune(b[at:])
		at += size
	}
	return at, at <= len(b)
}

func celCode(c string) string {
	if c == "" {
		return "cel"
	}
	return strings.ReplaceAll(c, "-", "_")
}
