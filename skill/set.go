package skill

import (
	"strings"

	"github.com/troupe-dev/troupe/action"
)

// Note codes: what resolving an item found.
const (
	NoteMissing    = "skill_path_missing"   // error: the path is not a folder
	NoteOutside    = "skill_path_outside"   // error: the path leads outside the allowed folders
	NoteRef        = "skill_ref"            // error: a malformed @org/name reference
	NoteNotFound   = "skill_not_found"      // error: no local copy of an @org/name skill
	NoteInline     = "skill_inline_invalid" // error: inline SKILL.md text CrewAI refuses
	NoteSkipped    = "skill_skipped"        // warning: a skill folder that failed to load, skipped
	NoteIsSkill    = "skill_path_is_skill"  // warning: the path is itself a skill (CrewAI finds none there)
	NoteEmpty      = "skill_path_empty"     // warning: the path holds no skill
	NoteShadowed   = "skill_shadowed"       // warning: a second skill of one name, ignored
	NoteSkillIssue = "skill_warning"        // warning: a loaded skill's own warning
)

// A Note is something resolving an item found worth telling: an error that
// keeps the agent from running, or a warning.
type Note struct {
	// Item is the index of the item in the list given to Resolve.
	Item     int
	Severity Severity
	Code     string
	Message  string
	// Err is the error behind an error note (ErrOutside matches it for a
	// path outside the allowed folders).
	Err error
	// Problems are the SKILL.md problems behind the note, when there are.
	Problems Problems
}

// An Entry is one skill of a Set.
type Entry struct {
	Skill *Skill
	// Item is the index of the item it came from.
	Item int
	// Org is the organisation of a skill found through an @org/name
	// reference.
	Org string
	// AlwaysOn marks an inline skill: its instructions are always in the
	// prompt, and it has no catalog entry.
	AlwaysOn bool
}

// A Set is the skills of one agent, in the order of their items, each name
// once (the first wins; an @org/name skill counts as org/name).
type Set struct {
	Entries []Entry
	Notes   []Note
	items   []Item
	// events are the discovery events, reported when an agent's first run
	// starts.
	events []action.Event
}

// Err returns the first error note as an *ItemError; nil when the set has
// none.
func (s *Set) Err() error {
	for _, n := range s.Notes {
		if n.Severity == Error {
			return &ItemError{Label: s.items[n.Item].Label, Note: n}
		}
	}
	return nil
}

// An ItemError reports a skills item that keeps an agent from getting its
// skills.
type ItemError struct {
	// Label names the item, such as "skills[0]".
	Label string
	Note  Note
}

// Error implements error.
func (e *ItemError) Error() string { return "skill: " + e.Label + ": " + e.Note.Message }

// Unwrap returns the cause (ErrOutside matches a path outside the allowed
// folders).
func (e *ItemError) Unwrap() error { return e.Note.Err }

// Empty reports whether the set has no skill.
func (s *Set) Empty() bool { return s == nil || len(s.Entries) == 0 }

func (s *Set) fail(i int, code string, err error, probs Problems) {
	s.Notes = append(s.Notes, Note{Item: i, Severity: Error, Code: code, Message: strings.TrimPrefix(err.Error(), "skill: "), Err: err, Problems: probs})
}

func (s *Set) warn(i int, code, msg string, probs Problems) {
	s.Notes = append(s.Notes, Note{Item: i, Severity: Warning, Code: code, Message: msg, Problems: probs})
}

// skillWarnings passes a loaded skill's warnings on as notes.
func (s *Set) skillWarnings(i int, probs Problems) {
	for _, p := range probs.Warnings() {
		s.warn(i, NoteSkillIssue, p.String(), Problems{p})
	}
}

// okSoFar reports whether item i has no skipped skill yet.
func (s *Set) okSoFar(i int) bool {
	for _, n := range s.Notes {
		if n.Item == i && n.Code == NoteSkipped {
			return false
		}
	}
	return true
}
