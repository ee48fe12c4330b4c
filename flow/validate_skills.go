package flow

import (
	"fmt"

	"github.com/troupe-dev/troupe/skill"
)

// checkSkills checks a skills list without reading files: an agent's list
// is not empty (CrewAI's min_length), @org/name references are well formed
// and inline SKILL.md texts pass CrewAI's rules, their problems placed
// inside the text when the source allows. Paths are checked by
// CheckSkills, which reads them.
func (d *decoder) checkSkills(path string, items []string, agent bool) {
	if agent && items != nil && len(items) == 0 {
		d.errorf(path, "too_short", "List should have at least 1 item after validation, not 0 [type=too_short]: an agent's skills list needs a skill; remove the key to give none")
	}
	for i, it := range items {
		p := index(path, i)
		probs := skill.CheckItem(it)
		for _, pr := range probs {
			code, msg := "skill_ref", pr.Message
			if skill.KindOf(it) == skill.ItemInline {
				code, msg = "skill_inline_invalid", "inline SKILL.md: "+pr.Message
				if pr.Severity == skill.Warning {
					code = "skill_warning"
				}
			}
			pos, ok := d.locate(d.scalars[p], pr.Offset)
			if pr.Offset < 0 || !ok {
				pos = d.pos.at(p)
			}
			sev := SeverityError
			if pr.Severity == skill.Warning {
				sev = SeverityWarning
			}
			d.diags = append(d.diags, Diagnostic{File: d.file, Line: pos.Line, Column: pos.Column, Path: p,
				Severity: sev, Code: code, Message: msg})
		}
	}
}

// checkCrewSkills checks the skills lists of a crew and of its agents.
func (d *decoder) checkCrewSkills(path string, c *Crew) {
	d.checkSkills(join(path, "skills"), c.Skills, false)
	for i, a := range c.Agents {
		d.checkSkills(join(crewAgentPath(d.pos, path, i, a.Name), "skills"), a.Skills, true)
	}
}

// crewAgentPath is the diagnostic path of a crew's i-th agent: agents.NAME
// in the mapping form, agents[i].NAME or agents[i] in CrewAI's list forms,
// whichever the source used (the mapping form for a built crew).
func crewAgentPath(pos positions, crewPath string, i int, name string) string {
	agents := join(crewPath, "agents")
	for _, p := range []string{join(agents, name), join(index(agents, i), name), index(agents, i)} {
		if _, ok := pos[p]; ok {
			return p
		}
	}
	return join(agents, name)
}

// skillLabel names the j-th item of a skills list in messages.
func skillLabel(crew bool, j int) string {
	if crew {
		return fmt.Sprintf("crew skills[%d]", j)
	}
	return fmt.Sprintf("skills[%d]", j)
}
