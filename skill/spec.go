package skill

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// Limits of the Agent Skills specification.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
	// RecommendedMaxLines is the length the specification recommends a
	// SKILL.md stays under.
	RecommendedMaxLines = 500
)

// specKeys are the front matter keys the specification allows, sorted.
var specKeys = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

// checkSpec applies the specification's field rules as the reference
// validator does, in its order and with its messages, collecting every
// problem; then Troupe's own checks.
func (p *parser) checkSpec(s *Skill, fs fields, root *yaml.Node, dir string) {
	var unknown []string
	var first *yaml.Node
	for _, f := range fs {
		if !contains(specKeys, f.key) {
			unknown = append(unknown, f.key)
			if first == nil {
				first = f.k
			}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		quoted := make([]string, len(specKeys))
		for i, k := range specKeys {
			quoted[i] = "'" + k + "'"
		}
		p.errorAt(first, fmt.Sprintf("Unexpected fields in frontmatter: %s. Only [%s] are allowed.",
			strings.Join(unknown, ", "), strings.Join(quoted, ", ")))
	}
	if f, ok := fs.get("name"); !ok {
		p.errorAt(root, "Missing required field in frontmatter: name")
	} else {
		p.specName(s, f.v, dir)
	}
	if f, ok := fs.get("description"); !ok {
		p.errorAt(root, "Missing required field in frontmatter: description")
	} else if kindOf(f.v, Spec) != kindString || strings.TrimSpace(text(f.v)) == "" {
		p.errorAt(f.v, "Field 'description' must be a non-empty string")
	} else {
		s.Description = text(f.v)
		if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLength {
			p.errorAt(f.v, fmt.Sprintf("Description exceeds %d character limit (%d chars)", MaxDescriptionLength, n))
		}
	}
	if f, ok := fs.get("compatibility"); ok {
		if kindOf(f.v, Spec) != kindString {
			p.errorAt(f.v, "Field 'compatibility' must be a string")
		} else {
			s.Compatibility = text(f.v)
			if n := utf8.RuneCountInString(s.Compatibility); n > MaxCompatibilityLength {
				p.errorAt(f.v, fmt.Sprintf("Compatibility exceeds %d character limit (%d chars)", MaxCompatibilityLength, n))
			}
		}
	}
	if f, ok := fs.get("license"); ok && kindOf(f.v, Spec) == kindString {
		s.License = text(f.v)
	}
	// Troupe: the specification's metadata is a map of strings to strings
	// and allowed-tools a string (or a list); the reference does not check
	// either.
	if f, ok := fs.get("metadata"); ok {
		p.specMetadata(s, f.v)
	}
	if f, ok := fs.get("allowed-tools"); ok {
		p.allowedTools(s, f,
			func(_ int, n *yaml.Node) {
				p.errorAt(n, "Field 'allowed-tools' must be either a string or a list of strings")
			},
			func(_ int, n *yaml.Node) { p.errorAt(n, "Field 'allowed-tools' list items must all be strings") })
	}
	if n := strings.Count(strings.TrimSuffix(p.src.text, "\n"), "\n") + 1; n > RecommendedMaxLines {
		p.probs = append(p.probs, p.src.nowhere(Warning, fmt.Sprintf(
			"SKILL.md has %d lines; the specification recommends fewer than %d (move details into references/)", n, RecommendedMaxLines)))
	}
}

// specName checks the name as the reference validator does: trimmed and
// NFKC-normalized, then its length, case, hyphens, characters and the
// folder's name, each failure its own problem.
func (p *parser) specName(s *Skill, v *yaml.Node, dir string) {
	if kindOf(v, Spec) != kindString || strings.TrimSpace(text(v)) == "" {
		p.errorAt(v, "Field 'name' must be a non-empty string")
		return
	}
	name := norm.NFKC.String(strings.TrimSpace(text(v)))
	s.Name = name
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		p.errorAt(v, fmt.Sprintf("Skill name '%s' exceeds %d character limit (%d chars)", name, MaxNameLength, n))
	}
	if name != strings.ToLower(name) {
		p.errorAt(v, fmt.Sprintf("Skill name '%s' must be lowercase", name))
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		p.errorAt(v, "Skill name cannot start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		p.errorAt(v, "Skill name cannot contain consecutive hyphens")
	}
	alnum, ascii := true, true
	for _, r := range name {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			alnum = false
		}
		if r >= utf8.RuneSelf {
			ascii = false
		}
	}
	switch {
	case !alnum:
		p.errorAt(v, fmt.Sprintf("Skill name '%s' contains invalid characters. Only letters, digits, and hyphens are allowed.", name))
	case !ascii && !p.opts.unicodeNames:
		p.errorAt(v, fmt.Sprintf("Skill name '%s' contains letters or digits outside a-z and 0-9: the specification allows only lowercase ASCII letters, digits and hyphens (the reference validator accepts Unicode; so does troupe skills validate --unicode-names)", name))
	}
	if dir != "" && norm.NFKC.String(dir) != name {
		p.errorAt(v, fmt.Sprintf("Directory name '%s' must match skill name '%s'", dir, name))
	}
}

// specMetadata requires metadata to map strings to strings: under
// strictyaml every scalar is a string, so only nested blocks fail.
func (p *parser) specMetadata(s *Skill, v *yaml.Node) {
	m := resolve(v)
	if m == nil || m.Kind == yaml.ScalarNode && m.Value == "" {
		return // "metadata:" with no value: none
	}
	if kindOf(m, Spec) != kindMap {
		p.errorAt(v, "Field 'metadata' must be a mapping of string keys to string values")
		return
	}
	s.Metadata = map[string]string{}
	for _, f := range fieldsOf(m) {
		if kindOf(f.v, Spec) != kindString {
			p.errorAt(f.v, fmt.Sprintf("Field 'metadata' must map strings to strings; '%s' is %s", f.key, kindOf(f.v, Spec).describe()))
			continue
		}
		s.Metadata[f.key] = text(f.v)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
