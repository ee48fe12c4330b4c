package skill

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An Option changes how a SKILL.md is checked.
type Option func(*options)

type options struct {
	unicodeNames bool
}

// UnicodeNames accepts, in [Spec] mode, names with any Unicode letters and
// digits, as the reference validator does (so 技能 and мой-навык pass);
// by default names are ASCII, as the specification says.
func UnicodeNames() Option { return func(o *options) { o.unicodeNames = true } }

// Parse reads the text of a SKILL.md under mode's rules and returns the
// skill with every problem found, warnings included. The skill is nil when
// the text cannot be read as front matter and a body; otherwise it holds
// what could be read, even when problems make it invalid
// (Problems.HasErrors). file names the text in problems ("" for an inline
// skill); dir is the name of the skill's folder, which the skill's name
// must match ("" skips that check).
func Parse(data []byte, file, dir string, mode Mode, opts ...Option) (*Skill, Problems) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	p := &parser{src: newSource(file, normalizeNewlines(string(data))), mode: mode, opts: o}
	s := p.parse(dir)
	return s, p.probs
}

// parser checks one SKILL.md text.
type parser struct {
	src   *source
	fm    front
	ysrc  *source // the front matter, for the positions of its nodes
	mode  Mode
	opts  options
	probs Problems
}

func (p *parser) parse(dir string) *Skill {
	fm, prob := splitFront(p.src, p.mode)
	if prob != nil {
		p.probs = append(p.probs, *prob)
		return nil
	}
	p.fm, p.ysrc = fm, newSource("", fm.yaml)
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm.yaml), &doc); err != nil {
		p.yamlError(err)
		return nil
	}
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = resolve(doc.Content[0])
	}
	if root == nil || root.Kind != yaml.MappingNode {
		off := fm.at
		if root != nil {
			off = p.nodeOffset(root)
		}
		p.probs = append(p.probs, p.src.at(off, Error, msgNotMapping[p.mode]))
		return nil
	}
	if p.mode == Spec {
		if bad, msg := strictYAML(root); bad != nil {
			p.errorAt(bad, "Invalid YAML in frontmatter: "+msg)
			return nil
		}
	}
	s := &Skill{Body: fm.body}
	fs := fieldsOf(root)
	if p.mode == Spec {
		p.checkSpec(s, fs, root, dir)
	} else {
		p.checkCrewAI(s, fs, root, dir)
	}
	return s
}

// yamlLine reads the line number out of a YAML parser's message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError reports front matter that is not YAML.
func (p *parser) yamlError(err error) {
	msg := err.Error()
	off := p.fm.at
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		off += p.ysrc.offset(line, 1)
		msg = msg[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	p.probs = append(p.probs, p.src.at(off, Error, "Invalid YAML in frontmatter: "+msg))
}

// nodeOffset is the byte offset of n in the SKILL.md text.
func (p *parser) nodeOffset(n *yaml.Node) int {
	return p.fm.at + p.ysrc.offset(n.Line, n.Column)
}

func (p *parser) errorAt(n *yaml.Node, msg string) {
	p.probs = append(p.probs, p.src.at(p.nodeOffset(n), Error, msg))
}

func (p *parser) warnAt(n *yaml.Node, msg string) {
	p.probs = append(p.probs, p.src.at(p.nodeOffset(n), Warning, msg))
}

// A field is one key of the front matter and its value.
type field struct {
	key  string
	k, v *yaml.Node
}

// fields is the front matter's keys in source order.
type fields []field

// fieldsOf lists the keys of a mapping. A key written twice keeps its
// first place and its last value, as PyYAML reads it.
func fieldsOf(m *yaml.Node) fields {
	var out fields
	at := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := text(k)
		if j, ok := at[key]; ok {
			out[j].v = v
			continue
		}
		at[key] = len(out)
		out = append(out, field{key: key, k: k, v: v})
	}
	return out
}

// get returns the field with the key.
func (fs fields) get(key string) (field, bool) {
	for _, f := range fs {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// text is the value of a scalar node ("" for none).
func text(n *yaml.Node) string {
	if n = resolve(n); n == nil {
		return ""
	}
	return n.Value
}

// allowedTools reads allowed-tools: a string split on white space, or a
// list of strings. It reports what makes it neither.
func (p *parser) allowedTools(s *Skill, f field, notList, notString func(i int, n *yaml.Node)) {
	v := resolve(f.v)
	switch kindOf(v, p.mode) {
	case kindNull:
		return
	case kindString:
		s.AllowedTools = strings.Fields(v.Value)
	case kindSeq:
		s.AllowedTools = []string{}
		for i, it := range v.Content {
			if kindOf(it, p.mode) != kindString {
				notString(i, it)
				continue
			}
			s.AllowedTools = append(s.AllowedTools, text(it))
		}
	default:
		notList(0, v)
		return
	}
	for _, t := range s.AllowedTools {
		if ToolPattern(t) {
			p.warnAt(f.v, "allowed-tools entry '"+t+"' is a pattern, which Troupe does not support: it enforces plain tool names only, so this entry allows no tool")
		}
	}
}
