package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/confine"
)

// ErrOutside is matched (with errors.Is) by the error of a skill path, or a
// skill file, that leads outside the folders it may be read from.
var ErrOutside = confine.ErrOutside

// An Item is one entry of a skills: list.
type Item struct {
	// Value is the entry as written.
	Value string
	// Trusted marks an entry the host gave (flow.WithSkills) rather than a
	// definition: its path is not confined to the Resolver's folders.
	Trusted bool
	// Label names the entry in messages, such as "skills[0]".
	Label string
}

// A Resolver turns the items of skills: lists into skills, as an agent
// loads them.
type Resolver struct {
	// Base is the folder relative paths resolve against: the definition's
	// folder.
	Base string
	// Roots are folders, besides Base, that the paths of untrusted items
	// may lead into; a path that leads elsewhere (through "..", as an
	// absolute path or through a symbolic link) is an error matching
	// ErrOutside.
	Roots []string
	// WorkDir is where @org/name references look for skills/NAME/ first;
	// "" means the working directory.
	WorkDir string
	// Home is where they look for .crewai/skills/ORG/NAME/ next; "" means
	// the user's home folder.
	Home string
}

// Resolve reads the skills the items name, with CrewAI's rules: inline
// texts are parsed, @org/name references are looked up in WorkDir/skills/
// and then Home/.crewai/skills/ (Troupe downloads nothing), and a path is
// scanned for skill folders among its immediate children, in name order;
// a child that fails to load is skipped with a warning. Troupe also takes
// a path that is itself a skill folder as that one skill, with a warning
// that CrewAI would find none there. Every problem is a Note; the set
// holds the skills that loaded.
func (r *Resolver) Resolve(items []Item) *Set {
	s := &Set{items: items}
	seen := map[string]int{}
	add := func(e Entry) {
		key := e.Skill.Name
		if e.Org != "" {
			key = e.Org + "/" + key
		}
		if first, dup := seen[key]; dup {
			s.Notes = append(s.Notes, Note{Item: e.Item, Severity: Warning, Code: NoteShadowed,
				Message: fmt.Sprintf("skill %q is also given by %s, which comes first: this one is not used", e.Skill.Name, items[first].Label)})
			return
		}
		seen[key] = e.Item
		s.Entries = append(s.Entries, e)
	}
	for i, it := range items {
		switch KindOf(it.Value) {
		case ItemInline:
			r.inline(s, i, it, add)
		case ItemRegistry:
			r.registry(s, i, it, add)
		default:
			r.path(s, i, it, add)
		}
	}
	return s
}

func (r *Resolver) inline(s *Set, i int, it Item, add func(Entry)) {
	sk, probs := ParseInline(it.Value)
	if errs := probs.Errors(); len(errs) > 0 {
		s.Notes = append(s.Notes, Note{Item: i, Severity: Error, Code: NoteInline,
			Message: "inline SKILL.md: " + joinProblems(errs), Err: errs, Problems: probs})
		return
	}
	s.skillWarnings(i, probs)
	add(Entry{Skill: sk, Item: i, AlwaysOn: true})
}

func (r *Resolver) loaded(s *Set, i int, sk *Skill, org string, add func(Entry)) {
	s.events = append(s.events, action.Event{Kind: action.EventSkillLoaded, Skill: &action.SkillInfo{Name: sk.Name, Path: sk.Path(), Level: 1}})
	add(Entry{Skill: sk, Item: i, Org: org})
}

// path resolves a path item: a folder of skill folders, or a skill folder.
func (r *Resolver) path(s *Set, i int, it Item, add func(Entry)) {
	dir, err := r.folder(it)
	if err != nil {
		code := NoteMissing
		if errors.Is(err, ErrOutside) {
			code = NoteOutside
		}
		s.fail(i, code, err, nil)
		return
	}
	s.events = append(s.events, action.Event{Kind: action.EventSkillDiscoveryStarted, Skill: &action.SkillInfo{SearchPath: dir}})
	var found []string
	if exactFile(dir, FileName) {
		s.warn(i, NoteIsSkill, fmt.Sprintf("%s is a skill folder (it holds a %s): Troupe loads it as one skill, while CrewAI looks only at the folders inside it and would find no skill", it.Value, FileName), nil)
		if sk := r.child(s, i, dir); sk != nil {
			found = append(found, sk.Name)
			r.loaded(s, i, sk, "", add)
		}
	} else {
		entries, err := os.ReadDir(dir)
		if err != nil {
			s.fail(i, NoteMissing, fmt.Errorf("skill: %s: %w", dir, err), nil)
			return
		}
		for _, e := range entries {
			child := filepath.Join(dir, e.Name())
			if st, err := os.Stat(child); err != nil || !st.IsDir() || !exactFile(child, FileName) {
				continue
			}
			if !it.Trusted {
				if err := r.confined(child); err != nil {
					s.warn(i, NoteSkipped, fmt.Sprintf("skipped %s: %v", child, err), nil)
					continue
				}
			}
			if sk := r.child(s, i, child); sk != nil {
				found = append(found, sk.Name)
				r.loaded(s, i, sk, "", add)
			}
		}
		if len(found) == 0 && s.okSoFar(i) {
			s.warn(i, NoteEmpty, fmt.Sprintf("no skill found in %s: it holds no folder with a %s", dir, FileName), nil)
		}
	}
	s.events = append(s.events, action.Event{Kind: action.EventSkillDiscoveryCompleted, Skill: &action.SkillInfo{SearchPath: dir, Found: found}})
}

// child loads one skill folder found by a discovery; one that fails is
// skipped with a warning and a skill_load_failed event.
func (r *Resolver) child(s *Set, i int, dir string) *Skill {
	sk, probs := Load(dir, CrewAI)
	if probs.HasErrors() {
		s.warn(i, NoteSkipped, fmt.Sprintf("skipped the skill in %s: %s", dir, joinProblems(probs.Errors())), probs)
		s.events = append(s.events, action.Event{Kind: action.EventSkillLoadFailed, Err: probs.Errors(),
			Skill: &action.SkillInfo{Name: filepath.Base(dir), Path: dir}})
		return nil
	}
	s.skillWarnings(i, probs)
	return sk
}

// folder resolves a path item to an existing folder, confined unless the
// item is trusted.
func (r *Resolver) folder(it Item) (string, error) {
	p := it.Value
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Base, p)
	}
	p = filepath.Clean(p)
	if !it.Trusted {
		if err := r.confined(p); err != nil {
			return "", err
		}
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", fmt.Errorf("skill: Skill search path does not exist or is not a directory: %s", p)
	}
	return p, nil
}

// confined checks that p leads inside Base or Roots.
func (r *Resolver) confined(p string) error {
	dirs, err := confine.New(r.Base, r.Roots...)
	if err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	if _, err := dirs.Resolve(p); err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	return nil
}

// joinProblems writes problems on one line.
func joinProblems(ps Problems) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}
