package flow

import "github.com/troupe-dev/troupe/skill"

// skills decodes the skills list of an agent or a crew: each item a string
// (a folder, inline SKILL.md text or an @org/name reference). The Python
// objects CrewAI also takes are refused with a way out.
func (d *decoder) skills(path string, n *node) []string {
	if n == nil || n.isNull() {
		return nil
	}
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type]: skills is a list of skill folders, inline SKILL.md texts and @org/name references, got %s", n.describe())
		return nil
	}
	out := make([]string, 0, len(n.items))
	for i, it := range n.items {
		p := d.mark(index(path, i), it)
		s, ok := it.value.(string)
		switch {
		case it.kind == scalarNode && ok:
			out = append(out, s)
			if d.scalars != nil && skill.KindOf(s) == skill.ItemInline {
				d.scalars[p] = it // to place the text's problems inside it
			}
		case it.kind == mapNode:
			if _, py := it.get("python"); py {
				d.errorf(p, "skill_type", "skills[%d]: a Python object reference ({python: ...}) is not supported by Troupe: give a skill folder, inline SKILL.md text or an @org/name reference", i)
			} else {
				d.errorf(p, "skill_type", "skills[%d]: a Skill object written as a mapping is not supported by Troupe: give a skill folder, inline SKILL.md text (a string starting with ---) or an @org/name reference", i)
			}
		default:
			d.errorf(p, "string_type", "Input should be a valid string [type=string_type]: skills[%d] is a skill folder, inline SKILL.md text or an @org/name reference, got %s", i, it.describe())
		}
	}
	if len(out) == 0 && len(n.items) > 0 {
		return nil // every item was reported
	}
	return out
}
