package skill

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// LoaderName is the name of the tool that loads a skill's instructions,
// when no other tool of the agent has it.
const LoaderName = "load_skill"

// MetadataBlock is a skill as the catalog shows it: its name (or label)
// and description, in CrewAI's form.
func MetadataBlock(name, description string) string {
	return `<skill name="` + name + `">` + "\n" + description + "\n</skill>"
}

// InstructionsBlock is a loaded skill: its name (or label), description
// and body, then, when resources is not empty, the list of its resource
// files, in CrewAI's form. A skill without a body gets the metadata form.
func InstructionsBlock(name string, s *Skill, resources []ResourceDir) string {
	if s.Body == "" {
		return MetadataBlock(name, s.Description)
	}
	var b strings.Builder
	b.WriteString(`<skill name="` + name + `">` + "\n")
	b.WriteString(s.Description)
	b.WriteString("\n\n")
	b.WriteString(s.Body)
	if len(resources) > 0 {
		b.WriteString("\n\n### Available Resources")
		for _, d := range resources {
			b.WriteString("\n- **" + d.Name + "/**: " + strings.Join(d.Files, ", "))
		}
	}
	b.WriteString("\n</skill>")
	return b.String()
}

// AlwaysOnBlock is the group of always-on (inline) skills' instructions.
func AlwaysOnBlock(skills []*Skill) string {
	blocks := make([]string, len(skills))
	for i, s := range skills {
		blocks[i] = InstructionsBlock(s.Name, s, nil)
	}
	return "<skills>\n" + strings.Join(blocks, "\n\n") + "\n</skills>"
}

// CatalogBlock is the catalog of the skills an agent can load with the
// tool named loader, in CrewAI's words.
func CatalogBlock(loader string, catalog []CatalogEntry) string {
	blocks := make([]string, len(catalog))
	for i, c := range catalog {
		blocks[i] = MetadataBlock(c.Label, c.Skill.Description)
	}
	return "<available_skills>\n" +
		"These skills are not loaded. Most requests need none of them, so answer directly unless one clearly applies to this request. " +
		"When one does, call `" + loader + "` with its exact name to load its full instructions, and do not follow a skill's instructions without loading it first.\n\n" +
		strings.Join(blocks, "\n\n") + "\n</available_skills>"
}

// PromptSection is what skills add to an agent's system prompt: a blank
// line, then the always-on group and the catalog, whichever exist, in that
// order, a blank line apart; "" when neither exists.
func PromptSection(alwaysOn []*Skill, catalog []CatalogEntry, loader string) string {
	var blocks []string
	if len(alwaysOn) > 0 {
		blocks = append(blocks, AlwaysOnBlock(alwaysOn))
	}
	if len(catalog) > 0 {
		blocks = append(blocks, CatalogBlock(loader, catalog))
	}
	if len(blocks) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(blocks, "\n\n")
}

// A CatalogEntry is a skill an agent can load, under its catalog label.
type CatalogEntry struct {
	Label string
	Skill *Skill
}

// Catalog lists the skills of entries that are not always on, labelled as
// CrewAI labels them: by name, or, for a name two of them share, by
// PARENT/NAME where PARENT is the name of the folder holding the skill's
// folder (the org of an @org/name skill), with -2, -3, ... added to a
// label already taken.
func Catalog(entries []Entry) []CatalogEntry {
	count := map[string]int{}
	for _, e := range entries {
		if !e.AlwaysOn {
			count[e.Skill.Name]++
		}
	}
	var out []CatalogEntry
	used := map[string]bool{}
	for _, e := range entries {
		if e.AlwaysOn {
			continue
		}
		label := e.Skill.Name
		if count[label] > 1 {
			label = filepath.Base(filepath.Dir(e.Skill.Dir)) + "/" + label
		}
		qualified := label
		for n := 2; used[label]; n++ {
			label = qualified + "-" + itoa(n)
		}
		used[label] = true
		out = append(out, CatalogEntry{Label: label, Skill: e.Skill})
	}
	return out
}

// ResourceDir is one resource folder of a skill and its files.
type ResourceDir struct {
	// Name is scripts, references or assets.
	Name string
	// Files are the folder's files, recursively, relative to it, sorted.
	Files []string
}

// resourceDirs are the folders CrewAI lists a skill's resources from, in
// the sorted order it lists them.
var resourceDirs = []string{"assets", "references", "scripts"}

// maxListed bounds the files listed per resource folder.
const maxListed = 200

// Resources lists the files of a skill's assets/, references/ and scripts/
// folders, leaving out empty folders. Symbolic links are not followed.
func Resources(s *Skill) []ResourceDir {
	if s.Dir == "" {
		return nil
	}
	var out []ResourceDir
	for _, name := range resourceDirs {
		root := filepath.Join(s.Dir, name)
		var files []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if len(files) == 0 {
			continue
		}
		sort.Strings(files)
		if len(files) > maxListed {
			files = append(files[:maxListed], "... ("+itoa(len(files)-maxListed)+" more)")
		}
		out = append(out, ResourceDir{Name: name, Files: files})
	}
	return out
}
