package skill

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// ItemKind is what one item of a skills: list is.
type ItemKind int

// The kinds of skills: items, in the order CrewAI tells them apart.
const (
	// ItemRegistry is an @org/name or @org/name@version reference.
	ItemRegistry ItemKind = iota
	// ItemInline is SKILL.md text written in the list: its text, left
	// trimmed, starts with "---" and a line break. Its instructions are
	// always in the agent's prompt.
	ItemInline
	// ItemPath is a folder: one holding skill folders, or (Troupe) a skill
	// folder itself.
	ItemPath
)

// KindOf tells what a skills: item is.
func KindOf(item string) ItemKind {
	switch {
	case strings.HasPrefix(item, "@"):
		return ItemRegistry
	case strings.HasPrefix(strings.TrimLeftFunc(item, unicode.IsSpace), "---\n"):
		return ItemInline
	}
	return ItemPath
}

// A Ref is a parsed registry reference.
type Ref struct {
	Org, Name string
	// Version is the pinned version; "" resolves any.
	Version string
}

// String writes the reference as @org/name[@version].
func (r Ref) String() string {
	s := "@" + r.Org + "/" + r.Name
	if r.Version != "" {
		s += "@" + r.Version
	}
	return s
}

// A RefError reports a malformed registry reference.
type RefError struct {
	Ref string
	// Msg is CrewAI's message.
	Msg string
}

// Error implements error.
func (e *RefError) Error() string { return "skill: " + e.Msg }

// ParseRef reads an @org/name or @org/name@version reference, with CrewAI's
// rules and messages. Its error is a *RefError.
func ParseRef(ref string) (Ref, error) {
	bad := func(format string) (Ref, error) {
		return Ref{}, &RefError{Ref: ref, Msg: fmt.Sprintf(format, pyjson.QuoteRepr(ref))}
	}
	if !strings.HasPrefix(ref, "@") {
		return bad("Registry reference must start with '@', got: %s")
	}
	rest := ref[1:]
	if strings.Count(rest, "/") != 1 {
		return bad("Registry reference must be in '@org/name' format, got: %s")
	}
	org, remainder, _ := strings.Cut(rest, "/")
	name, version, pinned := strings.Cut(remainder, "@")
	version = strings.TrimSpace(version)
	if org == "" || name == "" || strings.HasPrefix(org, ".") || strings.HasPrefix(name, ".") {
		return bad("Registry reference org and name must be single, non-empty path segments (no '..' or leading dots), got: %s")
	}
	if pinned && version == "" {
		return bad("Registry reference version must be non-empty when pinned, got: %s")
	}
	if strings.Contains(version, "@") {
		return bad("Registry reference must carry a single version pin, got: %s")
	}
	return Ref{Org: org, Name: name, Version: version}, nil
}

// CheckItem reports what is wrong with a skills: item before any file is
// read: a malformed registry reference, or inline SKILL.md text that CrewAI
// would refuse (its problems placed in the item's text). Path items are
// checked when they are resolved.
func CheckItem(item string) Problems {
	switch KindOf(item) {
	case ItemRegistry:
		if _, err := ParseRef(item); err != nil {
			return Problems{{Offset: -1, Severity: Error, Message: err.(*RefError).Msg}}
		}
	case ItemInline:
		_, probs := ParseInline(item)
		return probs
	}
	return nil
}

// ParseInline reads inline SKILL.md text as CrewAI does: left-trimmed, and
// checked with the CrewAI rules (no folder name to match). The problems'
// offsets count in item as given.
func ParseInline(item string) (*Skill, Problems) {
	lead := len(item) - len(strings.TrimLeftFunc(item, unicode.IsSpace))
	text := strings.TrimRightFunc(item[lead:], unicode.IsSpace)
	s, probs := Parse([]byte(text), "", "", CrewAI)
	src := newSource("", item)
	for i := range probs {
		if probs[i].Offset >= 0 {
			probs[i].Offset += lead
			probs[i].Line, probs[i].Column = src.pos(probs[i].Offset)
		}
	}
	return s, probs
}
