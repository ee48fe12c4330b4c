package flow

import (
	"path/filepath"

	"github.com/troupe-dev/troupe/skill"
)

// CheckSkills reads the skills the agents and crews of def name, as their
// agents will load them (relative to def's folder, confined to it and to
// roots, as WithFileRoots confines them), and reports at each skills
// entry: errors for what keeps an agent from running (a path that is not a
// folder or leads outside the allowed folders, an @org/name skill with no
// local copy), warnings for what an agent will skip or see otherwise than
// a CrewAI agent (a skill folder that fails to load, a path holding no
// skill, a path that is itself a skill, a second skill of one name,
// allowed-tools patterns). Load, Parse and Build already check what needs
// no file: inline SKILL.md texts, @org/name syntax, empty lists. Crews
// read from_declaration are checked when they run.
func CheckSkills(def *Definition, roots ...string) Diagnostics {
	base, err := fileBase(def)
	if err != nil {
		return Diagnostics{{File: def.Source, Severity: SeverityError, Code: "read_error", Message: err.Error()}}
	}
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			r = a
		}
		abs = append(abs, r)
	}
	c := &skillChecker{def: def, r: &skill.Resolver{Base: base, Roots: abs}, seen: map[Diagnostic]bool{}}
	for _, m := range def.Methods {
		if m.Do != nil {
			c.action(join(join("methods", m.Name), "do"), m.Do)
		}
	}
	c.diags.sort()
	return c.diags
}

// skillChecker walks a definition's agents for CheckSkills.
type skillChecker struct {
	def   *Definition
	r     *skill.Resolver
	diags Diagnostics
	seen  map[Diagnostic]bool // a crew's items are checked once per agent
}

func (c *skillChecker) action(path string, a *Action) {
	switch a.Call {
	case CallAgent:
		if a.Agent != nil {
			c.agent(join(path, "with"), a.Agent, "", nil)
		}
	case CallCrew:
		if a.Crew != nil {
			crewPath := join(path, "with")
			for i, ag := range a.Crew.Agents {
				c.agent(crewAgentPath(c.pos(), crewPath, i, ag.Name), ag, crewPath, a.Crew)
			}
		}
	case CallEach:
		for i, s := range a.Steps {
			if s.Action != nil {
				c.action(join(index(join(path, "do"), i), "action"), s.Action)
			}
		}
	}
}

func (c *skillChecker) pos() positions {
	if c.def.pos == nil {
		return positions{}
	}
	return c.def.pos
}

// agent resolves one agent's items, its own then its crew's, and reports
// what resolving found at the items.
func (c *skillChecker) agent(path string, a *Agent, crewPath string, crew *Crew) {
	var items []skill.Item
	var paths []string
	for j, s := range a.Skills {
		items = append(items, skill.Item{Value: s, Label: skillLabel(false, j)})
		paths = append(paths, index(join(path, "skills"), j))
	}
	if crew != nil {
		for j, s := range crew.Skills {
			items = append(items, skill.Item{Value: s, Label: skillLabel(true, j)})
			paths = append(paths, index(join(crewPath, "skills"), j))
		}
	}
	if len(items) == 0 {
		return
	}
	set := c.r.Resolve(items)
	for _, n := range set.Notes {
		// Inline texts and reference syntax were checked when the
		// definition loaded.
		if skill.KindOf(items[n.Item].Value) == skill.ItemInline && n.Code != skill.NoteShadowed || n.Code == skill.NoteRef {
			continue
		}
		p := paths[n.Item]
		at := c.pos().at(p)
		sev := SeverityWarning
		if n.Severity == skill.Error {
			sev = SeverityError
		}
		msg := n.Message
		if n.Code == skill.NoteOutside {
			msg += "; move it into the flow's folder, or allow its folder with flow.WithFileRoots (troupe run --allow-path DIR)"
		}
		d := Diagnostic{File: c.def.Source, Line: at.Line, Column: at.Column, Path: p, Severity: sev, Code: n.Code, Message: msg}
		if !c.seen[d] {
			c.seen[d] = true
			c.diags = append(c.diags, d)
		}
	}
}
