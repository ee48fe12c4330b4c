package flow

import (
	"fmt"
	"path/filepath"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/skill"
)

// WithSkills gives every agent, agent actions and crew agents alike, the
// skills items name (as in a skills list: a folder of skill folders, a
// skill folder, inline SKILL.md text, an @org/name reference), after the
// agent's own and its crew's. They are the host's: relative paths are made
// absolute against the working directory when the option is applied, and
// are not confined to the definition's folder.
func WithSkills(items ...string) Option {
	return func(e *Engine) {
		for _, it := range items {
			if skill.KindOf(it) == skill.ItemPath {
				if abs, err := filepath.Abs(it); err == nil {
					it = abs
				}
			}
			e.skills = append(e.skills, it)
		}
	}
}

// WithSkillScripts lets agents run the scripts of the skills they have
// loaded, through a run_skill_script tool: a file under a skill's scripts/
// folder, run directly (no shell) in the skill's folder, with a minimal
// environment, a timeout and capped output. Off by default: a skill's
// scripts are code from its author; allow them only for skills you trust
// (troupe run --allow-skill-scripts).
func WithSkillScripts(allow bool) Option { return func(e *Engine) { e.skillScripts = allow } }

// WithSkillToolLimits turns the enforcement of skills' allowed-tools on
// (the default) or off. While an agent has loaded a skill whose
// allowed-tools lists tools, a call to a tool it does not list is refused:
// the model is told so, and the refusal is a tool_usage_error event.
func WithSkillToolLimits(enforce bool) Option {
	return func(e *Engine) { e.skillNoLimits = !enforce }
}

// skillItems lists the skills an agent gets: its own items, its crew's,
// then the engine's.
func (e *Engine) skillItems(a *Agent, crew *Crew) []skill.Item {
	n := len(a.Skills) + len(e.skills)
	if crew != nil {
		n += len(crew.Skills)
	}
	if n == 0 {
		return nil
	}
	items := make([]skill.Item, 0, n)
	for j, s := range a.Skills {
		items = append(items, skill.Item{Value: s, Label: skillLabel(false, j)})
	}
	if crew != nil {
		for j, s := range crew.Skills {
			items = append(items, skill.Item{Value: s, Label: skillLabel(true, j)})
		}
	}
	for j, s := range e.skills {
		items = append(items, skill.Item{Value: s, Trusted: true, Label: fmt.Sprintf("flow.WithSkills[%d]", j)})
	}
	return items
}

// skillSet resolves an agent's skills, relative to (and confined to)
// def's folder and the engine's file roots; nil when it has none.
func (e *Engine) skillSet(def *Definition, a *Agent, crew *Crew) (*skill.Set, error) {
	items := e.skillItems(a, crew)
	if items == nil {
		return nil, nil
	}
	base, err := fileBase(def)
	if err != nil {
		return nil, err
	}
	r := &skill.Resolver{Base: base, Roots: e.fileRoots}
	set := r.Resolve(items)
	if err := set.Err(); err != nil {
		return nil, fileRootsHint(err)
	}
	return set, nil
}

// checkSkills reports, when a definition compiles, what would keep an
// agent from getting its skills.
func (e *Engine) checkSkills(def *Definition, a *Agent, crew *Crew, where string) error {
	if _, err := e.skillSet(def, a, crew); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// giveSkills resolves an agent's skills for one execution and attaches
// them to its spec, logging what resolving found (skills skipped, paths
// holding none) as warnings.
func (e *Engine) giveSkills(def *Definition, spec *action.AgentSpec, a *Agent, crew *Crew, where string) error {
	set, err := e.skillSet(def, a, crew)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if set == nil {
		return nil
	}
	for _, n := range set.Notes {
		e.logger.Warn("flow: "+where+": skills: "+n.Message, "code", n.Code)
	}
	skill.Attach(spec, set, skill.Options{Scripts: e.skillScripts, NoToolLimits: e.skillNoLimits})
	return nil
}

// giveCrewSkills gives a crew's agents, its manager included, their
// skills.
func (e *Engine) giveCrewSkills(def *Definition, c *Crew, spec *action.CrewSpec) error {
	specs := spec.Agents
	if spec.Manager != nil {
		specs = append(specs[:len(specs):len(specs)], spec.Manager)
	}
	for _, s := range specs {
		if a := c.Agent(s.Name); a != nil {
			if err := e.giveSkills(def, s, a, c, "crew action: agents."+a.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
