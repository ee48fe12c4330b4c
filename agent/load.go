package agent

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/diag"
)

// A ToolRegistry finds tools by name; *action.Tools is one.
type ToolRegistry interface {
	Get(name string) (action.Tool, bool)
	Names() []string
}

// An Option changes how a file is loaded.
type Option func(*options)

type options struct {
	tools ToolRegistry
	bases map[string][]byte
	// chain lists the files of the hand-offs being loaded, to catch cycles.
	chain []string
}

// WithTools checks the file's tool names against r. Without it, tool
// names are not checked at load time (a Runner still checks them).
func WithTools(r ToolRegistry) Option { return func(o *options) { o.tools = r } }

// WithBase registers a base document under name, for files that say
// extends: name. A registered name wins over a file of that name.
func WithBase(name string, data []byte) Option {
	return func(o *options) {
		if o.bases == nil {
			o.bases = map[string][]byte{}
		}
		o.bases[name] = data
	}
}

// maxExtendsLevels is how deep extends may go before it is a warning.
const maxExtendsLevels = 2

var topKeys = []string{"schema", "agent", "extends", "overrides"}

// Load reads and validates the agent file at path. The error is
// Diagnostics when the file has errors; warnings are in Definition.Warnings.
func Load(path string, opts ...Option) (*Definition, error) {
	def, ds := CheckFile(path, opts...)
	if ds.HasErrors() {
		return nil, ds
	}
	return def, nil
}

// Parse is Load for a document in memory; source names it in diagnostics
// and is the directory base of a relative extends.
func Parse(data []byte, source string, opts ...Option) (*Definition, error) {
	def, ds := Check(data, source, opts...)
	if ds.HasErrors() {
		return nil, ds
	}
	return def, nil
}

// CheckFile reads and validates the file at path, returning every problem
// (warnings too) and the definition as far as it could be read.
func CheckFile(path string, opts ...Option) (*Definition, Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Diagnostics{{File: path, Severity: diag.SeverityError, Code: "read", Message: err.Error()}}
	}
	return Check(data, path, opts...)
}

// Check is CheckFile for a document in memory.
func Check(data []byte, source string, opts ...Option) (*Definition, Diagnostics) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	r := &reporter{pos: map[string]place{}}
	l := &loader{reporter: r, opts: &o}
	v := l.document(data, source, []string{source})
	def := &Definition{File: source, pos: r.pos}
	if v != nil {
		(&decoder{r}).agent(v, def)
		validate(def, r, &o)
	}
	slices.SortStableFunc(r.diags, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	def.Warnings = r.diags.Warnings()
	return def, r.diags
}

// loader reads documents and their extends chains.
type loader struct {
	*reporter
	opts *options
}

// document parses one document and returns its agent mapping, merged
// over its base's when it extends one; chain lists the documents being
// read, this one last, to catch cycles. It returns nil when there is
// nothing to decode.
func (l *loader) document(data []byte, file string, chain []string) *value {
	root, dups, err := parseValue(data, file)
	if err != nil {
		var se *syntaxError
		line := 0
		if errors.As(err, &se) {
			line = se.line
		}
		l.errorf(place{file, line, 1}, "", "syntax", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	for _, d := range dups {
		l.errorf(d.at, d.key, "duplicate_key", "key %q is written twice (the last one wins)", d.key)
	}
	if root.kind != yaml.MappingNode {
		l.errorf(root.at, "", "not_mapping", "an agent file is a mapping with an agent: key, got %s", root.describe())
		return nil
	}
	var agent, overrides, extends *value
	(&decoder{l.reporter}).mapping(root, "", topKeys, func(key, _ string, v *value) {
		switch key {
		case "schema":
			if v.kind != yaml.ScalarNode || v.text != SchemaID {
				l.errorf(v.at, "schema", "literal_error", "schema must be %q", SchemaID)
			}
		case "agent":
			agent = v
		case "overrides":
			overrides = v
		case "extends":
			extends = v
		}
	})
	for _, v := range []*value{agent, overrides} {
		if v != nil && v.kind != yaml.MappingNode {
			l.errorf(v.at, "agent", "not_mapping", "want a mapping of agent fields, got %s", v.describe())
			return nil
		}
	}
	if extends == nil {
		if overrides != nil {
			l.errorf(overrides.at, "overrides", "overrides_without_extends", "overrides: needs extends: (use agent: in a file that extends nothing)")
		}
		if agent == nil {
			l.errorf(root.at, "", "missing", "missing required key \"agent\"")
		}
		return agent
	}
	base := l.base(extends, file, chain)
	if base == nil {
		return nil
	}
	if agent != nil {
		base = merge(base, agent)
	}
	if overrides != nil {
		base = merge(base, overrides)
	}
	return base
}

// base reads the document named by an extends value.
func (l *loader) base(extends *value, file string, chain []string) *value {
	if extends.kind != yaml.ScalarNode || extends.tag != "!!str" || extends.text == "" {
		l.errorf(extends.at, "extends", "string_type", "want the path or registered name of a base agent, got %s", extends.describe())
		return nil
	}
	name := extends.text
	data, registered := l.opts.bases[name]
	id := name
	if !registered {
		if !filepath.IsAbs(name) {
			id = filepath.Join(filepath.Dir(file), name)
		}
		var err error
		data, err = os.ReadFile(id)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				msg = fmt.Sprintf("base agent %q not found (looked for %s; a Go host may register it with agent.WithBase)", name, id)
			}
			l.errorf(extends.at, "extends", "extends", "%s", msg)
			return nil
		}
	}
	if i := slices.Index(chain, id); i >= 0 {
		l.errorf(extends.at, "extends", "extends_cycle", "extends cycle: %s -> %s", strings.Join(chain[i:], " -> "), id)
		return nil
	}
	if len(chain) == maxExtendsLevels+1 {
		l.warnf(extends.at, "extends", "extends_depth", "more than %d levels of extends (%s -> %s) are hard to follow; consider flattening", maxExtendsLevels, strings.Join(chain, " -> "), id)
	}
	return l.document(data, id, append(slices.Clone(chain), id))
}

// IsDocument reports whether data looks like an agent file rather than a
// flow: a top-level agent: or overrides: key, or schema: troupe.agent/v1.
func IsDocument(data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // the YAML parser failed on hostile input: not ours
		}
	}()
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return false
	}
	_, hasAgent := top["agent"]
	_, hasOverrides := top["overrides"]
	return hasAgent || hasOverrides || top["schema"] == SchemaID
}
