package skill

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// kind is what a YAML value is once a loader has read it.
type kind int

const (
	kindString kind = iota
	kindNull
	kindBool
	kindInt
	kindFloat
	kindDate
	kindMap
	kindSeq
)

// describe names a kind in messages.
func (k kind) describe() string {
	return [...]string{"text", "null", "a boolean", "an integer", "a number", "a date", "a mapping", "a list"}[k]
}

// YAML 1.1 implicit types, as PyYAML's safe loader (CrewAI's) resolves
// plain scalars.
var (
	yaml11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yaml11Null  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yaml11Date  = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)
)

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// kindOf says what n is under mode's loader: strictyaml (Spec) reads every
// scalar as text; PyYAML (CrewAI) applies YAML 1.1's implicit types to
// plain scalars and honours explicit tags.
func kindOf(n *yaml.Node, mode Mode) kind {
	n = resolve(n)
	switch {
	case n == nil:
		return kindNull
	case n.Kind == yaml.MappingNode:
		return kindMap
	case n.Kind == yaml.SequenceNode:
		return kindSeq
	case mode == Spec:
		return kindString
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!null":
			return kindNull
		case "!!bool":
			return kindBool
		case "!!int":
			return kindInt
		case "!!float":
			return kindFloat
		case "!!timestamp":
			return kindDate
		}
		return kindString
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return kindString
	}
	v := n.Value
	if v != "" && !strings.ContainsRune("yYnNtTfFoO~-+.0123456789", rune(v[0])) {
		return kindString
	}
	switch {
	case yaml11Null.MatchString(v):
		return kindNull
	case yaml11Bool.MatchString(v):
		return kindBool
	case yaml11Int.MatchString(v):
		return kindInt
	case yaml11Float.MatchString(v):
		return kindFloat
	case yaml11Date.MatchString(v):
		return kindDate
	}
	return kindString
}

// strictYAML reports the first YAML feature strictyaml (the reference
// validator's loader) refuses: flow style, anchors and aliases, tags and
// duplicate keys.
func strictYAML(n *yaml.Node) (*yaml.Node, string) {
	switch {
	case n.Kind == yaml.AliasNode || n.Anchor != "":
		return n, "anchors and aliases are not allowed"
	case n.Style&yaml.FlowStyle != 0:
		return n, "flow style ({...} and [...]) is not allowed; write mappings and lists in block style"
	case n.Style&yaml.TaggedStyle != 0:
		return n, "tags such as " + n.Tag + " are not allowed"
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && seen[k.Value] {
				return k, "duplicate key '" + k.Value + "'"
			}
			seen[k.Value] = true
		}
	}
	for _, c := range n.Content {
		if bad, msg := strictYAML(c); bad != nil {
			return bad, msg
		}
	}
	return nil, ""
}
