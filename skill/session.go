package skill

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/troupe-dev/troupe/action"
)

// session is one agent run's state: the skills it has loaded.
type session struct {
	a           *agentSkills
	agent, task string
	mu          sync.Mutex
	loaded      []string // catalog labels, in load order
}

var _ action.Session = (*session)(nil)

// Start reports, at the agent's first run, what resolving its skills
// found, and at every run that its always-on skills are used.
func (s *session) Start(ctx context.Context, agent, task string) {
	s.agent, s.task = agent, task
	s.a.started.Do(func() {
		for _, ev := range s.a.set.events {
			ev.Agent, ev.Task = agent, task
			action.Report(ctx, ev)
		}
	})
	for _, sk := range s.a.alwaysOn {
		s.report(ctx, action.EventSkillUsed, sk.Name, sk, 2)
	}
}

// report delivers a skill event of the run.
func (s *session) report(ctx context.Context, kind action.EventKind, name string, sk *Skill, level int) {
	action.Report(ctx, action.Event{Kind: kind, Agent: s.agent, Task: s.task,
		Skill: &action.SkillInfo{Name: name, Path: sk.Path(), Level: level}})
}

// load marks a catalog skill loaded.
func (s *session) load(label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.loaded {
		if l == label {
			return
		}
	}
	s.loaded = append(s.loaded, label)
}

// isLoaded reports whether the run loaded the catalog skill.
func (s *session) isLoaded(label string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.loaded {
		if l == label {
			return true
		}
	}
	return false
}

// AllowTool refuses a tool that an active skill's allowed-tools does not
// list: every always-on skill is active, and every catalog skill the run
// has loaded. The skill tools themselves are always allowed, and so is
// everything when a skill declares no (or an empty) allowed-tools.
func (s *session) AllowTool(name string) (bool, string) {
	if s.a.opts.NoToolLimits || s.a.skillTool(name) {
		return true, ""
	}
	check := func(label string, sk *Skill) (bool, string) {
		if len(sk.AllowedTools) == 0 || allows(sk.AllowedTools, name) {
			return true, ""
		}
		return false, fmt.Sprintf("tool %s is not allowed while skill %s is active; allowed: %s", name, label, strings.Join(sk.AllowedTools, ", "))
	}
	for _, sk := range s.a.alwaysOn {
		if ok, why := check(sk.Name, sk); !ok {
			return false, why
		}
	}
	s.mu.Lock()
	loaded := append([]string(nil), s.loaded...)
	s.mu.Unlock()
	for _, label := range loaded {
		if ok, why := check(label, s.a.byLabel[label]); !ok {
			return false, why
		}
	}
	return true, ""
}

// allows reports whether an allowed-tools list names the tool: by its name
// or by its name as CrewAI sanitizes it. Patterns such as Bash(git:*) name
// no tool.
func allows(list []string, tool string) bool {
	sanitized := SanitizeToolName(tool)
	for _, entry := range list {
		if !ToolPattern(entry) && (entry == tool || entry == sanitized) {
			return true
		}
	}
	return false
}

// sessionOf returns the skill session of the run ctx belongs to, if its
// skills are a's.
func sessionOf(ctx context.Context, a *agentSkills) *session {
	if s, ok := action.SessionOf(ctx).(*session); ok && s.a == a {
		return s
	}
	return nil
}
