package skill_test

import (
	"testing"

	"github.com/troupe-dev/troupe/skill"
)

// Parse never panics, and every problem it places lies inside the text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\ndescription: d\n---\nBody",
		"---\nname: &a [*a]\n---\n",
		"---\nmetadata: {a: [1, {b: c}]}\nallowed-tools: [x, 1]\n---\n",
		"---\r\nname: ｘ\r\n---",
		"---\n- a\n---\n",
		"---\nname: \"\\u0000\"\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, mode := range []skill.Mode{skill.Spec, skill.CrewAI} {
			_, probs := skill.Parse([]byte(src), "SKILL.md", "x", mode)
			for _, p := range probs {
				if p.Offset > len(src) {
					t.Fatalf("problem past the end: %+v", p)
				}
			}
		}
		_, probs := skill.ParseInline(src)
		for _, p := range probs {
			if p.Offset > len(src) {
				t.Fatalf("inline problem past the end: %+v", p)
			}
		}
	})
}
