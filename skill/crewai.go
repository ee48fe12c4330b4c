package skill

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// NamePattern is the pattern CrewAI (and the specification) requires a
// skill's name to match.
var NamePattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// MaxBodyChars is the body length past which CrewAI warns that a skill may
// fill the context window.
const MaxBodyChars = 50_000

// checkCrewAI applies the rules of CrewAI's SkillFrontmatter model: known
// keys typed as PyYAML reads them, unknown keys ignored, every field's
// problem reported (in pydantic's words, which Troupe reuses for
// familiarity), then the folder's name.
func (p *parser) checkCrewAI(s *Skill, fs fields, root *yaml.Node, dir string) {
	name, nameOK := p.crewString(fs, root, "name", true, 1, MaxNameLength)
	if nameOK {
		s.Name = name
		if f, _ := fs.get("name"); !NamePattern.MatchString(name) {
			p.errorAt(f.v, fmt.Sprintf("name: String should match pattern '%s' [type=string_pattern_mismatch]", NamePattern))
			nameOK = false
		}
	}
	s.Description, _ = p.crewString(fs, root, "description", true, 1, MaxDescriptionLength)
	s.License, _ = p.crewString(fs, root, "license", false, 0, 0)
	s.Compatibility, _ = p.crewString(fs, root, "compatibility", false, 0, MaxCompatibilityLength)
	if f, ok := fs.get("metadata"); ok {
		p.crewMetadata(s, f.v)
	}
	f, ok := fs.get("allowed-tools")
	if alt, altOK := fs.get("allowed_tools"); altOK && (!ok || empty(f.v)) {
		f, ok = alt, true
	}
	if ok {
		p.allowedTools(s, f,
			func(_ int, n *yaml.Node) {
				p.errorAt(n, fmt.Sprintf("%s: Input should be a valid list [type=list_type]; got %s", f.key, kindOf(n, CrewAI).describe()))
			},
			func(i int, n *yaml.Node) {
				p.errorAt(n, fmt.Sprintf("%s.%d: Input should be a valid string [type=string_type]; got %s", f.key, i, kindOf(n, CrewAI).describe()))
			})
	}
	if nameOK && dir != "" && dir != name {
		f, _ := fs.get("name")
		p.errorAt(f.v, fmt.Sprintf("Directory name '%s' does not match skill name '%s'", dir, name))
	}
	if n := utf8.RuneCountInString(s.Body); n > MaxBodyChars {
		p.probs = append(p.probs, p.src.nowhere(Warning, fmt.Sprintf(
			"the body is %d characters, over the %d CrewAI warns at: a long body fills the context window when the skill is loaded (move details into references/)", n, MaxBodyChars)))
	}
}

// crewString checks a string field: present when required, a YAML string
// (null is absent for optional fields), and within its length bounds
// (max 0: none). It reports whether the value is usable.
func (p *parser) crewString(fs fields, root *yaml.Node, key string, required bool, minLen, maxLen int) (string, bool) {
	f, ok := fs.get(key)
	if !ok {
		if required {
			p.errorAt(root, key+": Field required [type=missing]")
		}
		return "", false
	}
	k := kindOf(f.v, CrewAI)
	if k == kindNull && !required {
		return "", false
	}
	if k != kindString {
		p.errorAt(f.v, fmt.Sprintf("%s: Input should be a valid string [type=string_type]; got %s%s", key, k.describe(), quoteHint(k)))
		return "", false
	}
	v := text(f.v)
	n := utf8.RuneCountInString(v)
	switch {
	case n < minLen:
		p.errorAt(f.v, fmt.Sprintf("%s: String should have at least %d character [type=string_too_short]", key, minLen))
		return v, false
	case maxLen > 0 && n > maxLen:
		p.errorAt(f.v, fmt.Sprintf("%s: String should have at most %d characters [type=string_too_long]; it has %d", key, maxLen, n))
		return v, false
	}
	return v, true
}

// crewMetadata requires a mapping of strings to strings, typed as PyYAML
// reads it, so an unquoted version: 1.0 is a number and fails.
func (p *parser) crewMetadata(s *Skill, v *yaml.Node) {
	m := resolve(v)
	switch kindOf(m, CrewAI) {
	case kindNull:
		return
	case kindMap:
	default:
		p.errorAt(v, fmt.Sprintf("metadata: Input should be a valid dictionary [type=dict_type]; got %s", kindOf(m, CrewAI).describe()))
		return
	}
	s.Metadata = map[string]string{}
	for _, f := range fieldsOf(m) {
		if k := kindOf(f.k, CrewAI); k != kindString {
			p.errorAt(f.k, fmt.Sprintf("metadata.%s.[key]: Input should be a valid string [type=string_type]; got %s%s", f.key, k.describe(), quoteHint(k)))
			continue
		}
		if k := kindOf(f.v, CrewAI); k != kindString {
			p.errorAt(f.v, fmt.Sprintf("metadata.%s: Input should be a valid string [type=string_type]; got %s%s", f.key, k.describe(), quoteHint(k)))
			continue
		}
		s.Metadata[f.key] = text(f.v)
	}
}

// quoteHint suggests quoting a scalar YAML read as something else.
func quoteHint(k kind) string {
	switch k {
	case kindBool, kindInt, kindFloat, kindDate:
		return " (quote the value to make it text)"
	}
	return ""
}

// empty reports whether a value is falsy as Python sees it: null, "" or an
// empty list or mapping.
func empty(n *yaml.Node) bool {
	n = resolve(n)
	switch kindOf(n, CrewAI) {
	case kindNull:
		return true
	case kindString:
		return n.Value == ""
	case kindSeq, kindMap:
		return len(n.Content) == 0
	}
	return false
}

// versionsMatch reports whether two versions name the same version:
// case and a leading "v" aside, as CrewAI compares them.
func versionsMatch(a, b string) bool {
	na := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(a)), "v")
	nb := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(b)), "v")
	return na != "" && na == nb
}
