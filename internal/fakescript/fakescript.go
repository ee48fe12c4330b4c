// Package fakescript holds what the YAML scripts of the test doubles
// llm/fake (a scripted model) and action/fake (scripted tools) share: the
// script error with its position ([Error]), a [Reader] that walks a YAML
// tree keeping the first error, the list-of-replies loop ([Entries]) and
// the counter of a reply's uses ([Uses]).
//
// Start with [Reader]; each double's script.go shows it in use. The
// package imports only the YAML parser and internal/yamlsyntax; it must not
// import anything else of Troupe (llm/fake and action/fake import it).
package fakescript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/internal/yamlsyntax"
)

// An Error reports a problem in a YAML script, with its position.
type Error struct {
	// File is the script's path or source name, when known.
	File         string
	Line, Column int
	// Path locates the value, e.g. "replies[2].times".
	Path string
	Msg  string
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("fake: ")
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	} else {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// A FieldError is a problem with one field of a reply, found when the
// reply is compiled; [Entries] places it at the field's key.
type FieldError struct {
	// Field is the YAML key, possibly with a rest: "times",
	// "tool_calls[0].name".
	Field string
	Msg   string
}

// Error implements error.
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Document parses the one document of a script and returns its root
// (aliases followed). A syntax error is placed where the text stops being
// YAML; an empty script says it wants a mapping with what.
func Document(data []byte, source, what string) (*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, syntaxError(data, source, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: source, Line: 1, Column: 1, Msg: "the script is empty; want a mapping with " + what}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &Error{File: source, Line: next.Line, Column: next.Column, Msg: "a second YAML document; a script is one document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(data, source, err)
	}
	return Deref(doc.Content[0]), nil
}

// syntaxError reports err, the parser's error, where data stops being
// YAML (line 1, column 1 when no place can be found).
func syntaxError(data []byte, source string, err error) *Error {
	line, col, ok := yamlsyntax.Locate(data)
	if !ok {
		line, col = 1, 1
	}
	return &Error{File: source, Line: line, Column: col, Msg: "invalid YAML: " + yamlsyntax.Message(err)}
}

// Reader walks a script, keeping the first error in Err.
type Reader struct {
	// Source names the script in errors.
	Source string
	// Err is the first problem found.
	Err   *Error
	nodes int // nodes visited, aliases expanded
}

// MaxNodes bounds the nodes a script may expand to through aliases, so
// that a hostile one ("billion laughs") cannot exhaust time or memory.
const MaxNodes = 1 << 17

// Fail records a problem at n unless one is already recorded.
func (r *Reader) Fail(n *yaml.Node, path, msg string) {
	if r.Err == nil {
		r.Err = &Error{File: r.Source, Line: n.Line, Column: n.Column, Path: path, Msg: msg}
	}
}

// Visit counts a node, failing once the script expands to too many; it
// reports whether reading may go on.
func (r *Reader) Visit(n *yaml.Node, path string) bool {
	r.nodes++
	if r.nodes > MaxNodes {
		r.Fail(n, path, fmt.Sprintf("the script expands to more than %d values (aliases)", MaxNodes))
	}
	return r.Err == nil
}

// Deref follows YAML aliases.
func Deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Join appends a key to a path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index appends an index to a path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Mapping calls f for each key of n (aliases followed), rejecting
// non-mappings, keys that are not text, merge keys and duplicates.
func (r *Reader) Mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) {
	n = Deref(n)
	if !r.Visit(n, path) {
		return
	}
	if n.Kind != yaml.MappingNode {
		r.Fail(n, path, "want a mapping")
		return
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content) && r.Err == nil; i += 2 {
		k, v := Deref(n.Content[i]), Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			r.Fail(k, path, "want a text key")
			return
		}
		if k.ShortTag() == "!!merge" {
			r.Fail(k, Join(path, k.Value), "merge keys (<<) are not supported; write the keys out")
			return
		}
		if seen[k.Value] {
			r.Fail(k, Join(path, k.Value), "duplicate key")
			return
		}
		seen[k.Value] = true
		f(k.Value, k, v)
	}
}

// Entries reads n, a list of replies at path, into entries: field reads
// one key of a reply into *R, then compile checks the reply. A
// [*FieldError] from compile is placed at the field's key, any other
// error at the reply.
func Entries[R, E any](r *Reader, n *yaml.Node, path string,
	field func(reply *R, at, key string, k, v *yaml.Node), compile func(R) (E, error)) []E {
	if n.Kind != yaml.SequenceNode {
		r.Fail(n, path, "want a list of replies")
		return nil
	}
	entries := make([]E, 0, len(n.Content))
	for i, item := range n.Content {
		at := Index(path, i)
		keys := map[string]*yaml.Node{}
		var reply R
		r.Mapping(item, at, func(key string, k, v *yaml.Node) {
			keys[key] = k
			field(&reply, at, key, k, v)
		})
		if r.Err != nil {
			return nil
		}
		e, err := compile(reply)
		if err != nil {
			node := Deref(item)
			fe, ok := errors.AsType[*FieldError](err)
			if !ok {
				r.Fail(node, at, err.Error())
				return nil
			}
			if k := keys[strings.SplitN(fe.Field, "[", 2)[0]]; k != nil {
				node = k
			}
			r.Fail(node, Join(at, fe.Field), fe.Msg)
			return nil
		}
		entries = append(entries, e)
	}
	return entries
}

// Str reads a scalar as text, as written (so `name: yes` is "yes"); null
// is "".
func (r *Reader) Str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode {
		r.Fail(n, path, "want a string")
		return ""
	}
	if n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

// Int reads an integer.
func (r *Reader) Int(n *yaml.Node, path string) int {
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		r.Fail(n, path, fmt.Sprintf("want an integer, got %q", n.Value))
	}
	return v
}

// Times reads the times of a reply: a positive integer. A script cannot
// say 0 (unlimited is saying nothing), though a reply built in Go can.
func (r *Reader) Times(n *yaml.Node, path string) int {
	t := r.Int(n, path)
	if t <= 0 && r.Err == nil {
		r.Fail(n, path, fmt.Sprintf("must be a positive integer, got %d", t))
	}
	return t
}

// Bool reads true or false.
func (r *Reader) Bool(n *yaml.Node, path string) bool {
	var v bool
	if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil {
		r.Fail(n, path, fmt.Sprintf("want true or false, got %q", n.Value))
	}
	return v
}

// Duration reads a Go duration ("250ms") or a number of seconds, neither
// negative.
func (r *Reader) Duration(n *yaml.Node, path string) time.Duration {
	if n.Kind == yaml.ScalarNode {
		if d, err := time.ParseDuration(n.Value); err == nil && d >= 0 {
			return d
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 && f < 1e9 {
			return time.Duration(f * float64(time.Second))
		}
	}
	r.Fail(n, path, fmt.Sprintf("want a duration such as 250ms or a number of seconds, got %q", n.Value))
	return 0
}

// Field returns a [*FieldError].
func Field(field, msg string) *FieldError { return &FieldError{Field: field, Msg: msg} }
