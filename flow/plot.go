package flow

import (
	"fmt"
	"strings"
)

// Mermaid renders the flow's graph as a Mermaid flowchart: start, router
// and listener nodes, AND/OR joins, and router outcome edges.
func (d *Definition) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	for _, m := range d.Methods {
		shape := fmt.Sprintf("%s[%s]", m.Name, m.Name)
		switch {
		case m.IsRouter():
			shape = fmt.Sprintf("%s{%s}", m.Name, m.Name)
		case m.IsStart():
			shape = fmt.Sprintf("%s([%s])", m.Name, m.Name)
		}
		fmt.Fprintf(&b, "  %s\n", shape)
	}
	for _, e := range d.edges() {
		label := e.label
		if label != "" {
			label = "|" + label + "|"
		}
		arrow := "-->"
		if e.dashed {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  %s %s%s %s\n", e.from, arrow, label, e.to)
	}
	return b.String()
}

// DOT renders the flow's graph in Graphviz's DOT language.
func (d *Definition) DOT() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n", d.Name)
	for _, m := range d.Methods {
		shape := "box"
		switch {
		case m.IsRouter():
			shape = "diamond"
		case m.IsStart():
			shape = "oval"
		}
		fmt.Fprintf(&b, "  %q [shape=%s];\n", m.Name, shape)
	}
	for _, e := range d.edges() {
		attrs := ""
		if e.label != "" {
			attrs = fmt.Sprintf(" [label=%q]", e.label)
		}
		if e.dashed {
			attrs = strings.TrimSuffix(attrs, "]") + map[bool]string{true: ", style=dashed]", false: " [style=dashed]"}[attrs != ""]
		}
		fmt.Fprintf(&b, "  %q -> %q%s;\n", e.from, e.to, attrs)
	}
	b.WriteString("}\n")
	return b.String()
}

type edge struct {
	from, to, label string
	dashed          bool
}

// edges lists method-to-method edges: listens on a method (labelled AND or
// OR when the condition combines several) and router outcomes (dashed,
// labelled with the outcome).
func (d *Definition) edges() []edge {
	var out []edge
	routersFor := map[string][]string{}
	for _, m := range d.Methods {
		for _, ev := range m.Events() {
			routersFor[ev] = append(routersFor[ev], m.Name)
		}
	}
	for _, m := range d.Methods {
		cond := m.Listen
		if m.IsStart() {
			cond = m.Start.When
		}
		if cond == nil {
			continue
		}
		join := ""
		if cond.Op != "" && len(cond.Items) > 1 {
			join = strings.ToUpper(string(cond.Op))
		}
		for _, ev := range uniq(cond.Leaves()) {
			if d.Method(ev) != nil {
				out = append(out, edge{from: ev, to: m.Name, label: join})
			}
			for _, r := range routersFor[ev] {
				out = append(out, edge{from: r, to: m.Name, label: ev, dashed: true})
			}
		}
	}
	return out
}
