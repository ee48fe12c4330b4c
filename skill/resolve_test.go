package skill_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/skill"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		item string
		want skill.ItemKind
	}{
		{"@acme/pdf", skill.ItemRegistry},
		{"@acme/pdf@1.2", skill.ItemRegistry},
		{"---\nname: x\n---\n", skill.ItemInline},
		{"  \n---\nname: x\n---\n", skill.ItemInline},
		{"---name: x", skill.ItemPath},
		{"./skills", skill.ItemPath},
		{"/abs/skills", skill.ItemPath},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, skill.KindOf(tt.item), tt.item)
	}
}

// Registry references follow CrewAI's rules and messages.
func TestParseRef(t *testing.T) {
	tests := []struct {
		ref  string
		want skill.Ref
		err  string
	}{
		{"@acme/pdf", skill.Ref{Org: "acme", Name: "pdf"}, ""},
		{"@acme/pdf@v1.2.0", skill.Ref{Org: "acme", Name: "pdf", Version: "v1.2.0"}, ""},
		{"acme/pdf", skill.Ref{}, "Registry reference must start with '@', got: 'acme/pdf'"},
		{"@acme", skill.Ref{}, "Registry reference must be in '@org/name' format, got: '@acme'"},
		{"@a/b/c", skill.Ref{}, "Registry reference must be in '@org/name' format, got: '@a/b/c'"},
		{"@/pdf", skill.Ref{}, "Registry reference org and name must be single, non-empty path segments (no '..' or leading dots), got: '@/pdf'"},
		{"@acme/..", skill.Ref{}, "no '..' or leading dots"},
		{"@acme/pdf@", skill.Ref{}, "Registry reference version must be non-empty when pinned, got: '@acme/pdf@'"},
		{"@acme/pdf@1@2", skill.Ref{}, "Registry reference must carry a single version pin, got: '@acme/pdf@1@2'"},
		{"@acme/it's", skill.Ref{Org: "acme", Name: "it's"}, ""},
	}
	for _, tt := range tests {
		got, err := skill.ParseRef(tt.ref)
		if tt.err != "" {
			var re *skill.RefError
			require.ErrorAs(t, err, &re, tt.ref)
			assert.Contains(t, re.Msg, tt.err)
			continue
		}
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.ref, got.String())
	}
}

// names lists a set's skill names.
func names(s *skill.Set) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, e.Skill.Name)
	}
	return out
}

// codes lists a set's note codes.
func codes(s *skill.Set) []string {
	var out []string
	for _, n := range s.Notes {
		out = append(out, n.Code)
	}
	return out
}

// A folder of skills: its immediate children with a SKILL.md, in name
// order; others skipped silently, invalid ones with a warning.
func TestResolveFolderOfSkills(t *testing.T) {
	base := t.TempDir()
	lib := filepath.Join(base, "skills")
	writeSkill(t, lib, "zeta", "SKILL.md", skillMD("zeta", "Z.", "z"))
	writeSkill(t, lib, "alpha", "SKILL.md", skillMD("alpha", "A.", "a"))
	writeSkill(t, lib, "notes", "README.md", "no skill here")
	writeSkill(t, lib, "broken", "SKILL.md", skillMD("other", "Mismatch.", ""))
	writeSkill(t, lib, "deep/nested", "SKILL.md", skillMD("nested", "Too deep.", ""))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "file.md"), []byte("x"), 0o644))

	r := &skill.Resolver{Base: base}
	set := r.Resolve([]skill.Item{{Value: "skills", Label: "skills[0]"}})
	require.NoError(t, set.Err())
	assert.Equal(t, []string{"alpha", "zeta"}, names(set))
	assert.Equal(t, []string{skill.NoteSkipped}, codes(set))
	assert.Contains(t, set.Notes[0].Message, "Directory name 'broken' does not match skill name 'other'")
	assert.False(t, set.Entries[0].AlwaysOn)
	assert.Equal(t, filepath.Join(lib, "alpha"), set.Entries[0].Skill.Dir)
}

// A path that is a skill folder is that one skill, with a warning that
// CrewAI would find none.
func TestResolveSkillFolderPath(t *testing.T) {
	base := t.TempDir()
	writeSkill(t, base, "pdf", "SKILL.md", skillMD("pdf", "PDFs.", "p"))
	set := (&skill.Resolver{Base: base}).Resolve([]skill.Item{{Value: "./pdf", Label: "skills[0]"}})
	require.NoError(t, set.Err())
	assert.Equal(t, []string{"pdf"}, names(set))
	assert.Equal(t, []string{skill.NoteIsSkill}, codes(set))
	assert.Contains(t, set.Notes[0].Message, "CrewAI looks only at the folders inside it")
}

// Paths that are no folder, or lead outside the allowed folders, keep the
// agent from running; a folder without skills is a warning.
func TestResolvePathErrors(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "flow")
	outside := filepath.Join(root, "outside")
	writeSkill(t, outside, "pdf", "SKILL.md", skillMD("pdf", "PDFs.", ""))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "empty"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(base, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "lib"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "pdf"), filepath.Join(base, "lib", "pdf")))

	tests := []struct {
		name, item string
		roots      []string
		trusted    bool
		code       string
		msg        string
		skills     []string
	}{
		{"missing", "nope", nil, false, skill.NoteMissing, "Skill search path does not exist or is not a directory: " + filepath.Join(base, "nope"), nil},
		{"a file", "../outside/pdf/SKILL.md", []string{outside}, false, skill.NoteMissing, "Skill search path does not exist or is not a directory", nil},
		{"dot dot", "../outside", nil, false, skill.NoteOutside, "outside the allowed folders", nil},
		{"absolute", outside, nil, false, skill.NoteOutside, "outside the allowed folders", nil},
		{"symlink out", "link", nil, false, skill.NoteOutside, "outside the allowed folders", nil},
		{"allowed by a root", "../outside", []string{outside}, false, "", "", []string{"pdf"}},
		{"trusted", outside, nil, true, "", "", []string{"pdf"}},
		{"child linked out", "lib", nil, false, skill.NoteSkipped, "outside the allowed folders", nil},
		{"empty", "empty", nil, false, skill.NoteEmpty, "no skill found in " + filepath.Join(base, "empty"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := (&skill.Resolver{Base: base, Roots: tt.roots}).Resolve([]skill.Item{{Value: tt.item, Trusted: tt.trusted, Label: "skills[0]"}})
			assert.Equal(t, tt.skills, names(set))
			if tt.code == "" {
				assert.Empty(t, set.Notes)
				return
			}
			require.NotEmpty(t, set.Notes)
			n := set.Notes[0]
			assert.Equal(t, tt.code, n.Code)
			assert.Contains(t, n.Message, tt.msg)
			if n.Severity == skill.Error {
				err := set.Err()
				var ie *skill.ItemError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, "skills[0]", ie.Label)
				assert.Equal(t, tt.code == skill.NoteOutside, errors.Is(err, skill.ErrOutside))
			} else {
				assert.NoError(t, set.Err())
			}
		})
	}
}

// Inline texts are always-on skills; an invalid one keeps the agent from
// running.
func TestResolveInline(t *testing.T) {
	r := &skill.Resolver{Base: t.TempDir()}
	set := r.Resolve([]skill.Item{{Value: "\n---\nname: tone\ndescription: Be kind.\n---\nAlways thank the user.\n", Label: "skills[0]"}})
	require.NoError(t, set.Err())
	require.Len(t, set.Entries, 1)
	assert.True(t, set.Entries[0].AlwaysOn)
	assert.Equal(t, "Always thank the user.", set.Entries[0].Skill.Body)
	assert.Equal(t, ".", set.Entries[0].Skill.Path())

	set = r.Resolve([]skill.Item{{Value: "---\nname: Tone\ndescription: d\n---\n", Label: "skills[0]"}})
	err := set.Err()
	require.Error(t, err)
	assert.Equal(t, "skill: skills[0]: inline SKILL.md: 2:7: name: String should match pattern '^[a-z0-9]+(?:-[a-z0-9]+)*$' [type=string_pattern_mismatch]", err.Error())
	var probs skill.Problems
	require.ErrorAs(t, err, &probs)
	assert.Equal(t, 2, probs[0].Line)
}

// @org/name skills are looked up in ./skills/NAME/ (its metadata.version
// must match a pin), then in the CrewAI cache (its .crewai_meta.json
// version must); Troupe downloads nothing.
func TestResolveRegistry(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(work, "skills"), "pdf", "SKILL.md", "---\nname: pdf\ndescription: Local.\nmetadata:\n  version: \"1.0\"\n---\n")
	cache := filepath.Join(home, ".crewai", "skills", "acme")
	writeSkill(t, cache, "pdf", "SKILL.md", skillMD("pdf", "Cached.", ""))
	writeSkill(t, cache, "pdf", ".crewai_meta.json", `{"org": "acme", "name": "pdf", "version": "2.0.0"}`)
	writeSkill(t, cache, "csv", "SKILL.md", skillMD("csv", "Not installed: no meta file.", ""))
	r := &skill.Resolver{Base: work, WorkDir: work, Home: home}

	tests := []struct {
		ref, description, err string
	}{
		{"@acme/pdf", "Local.", ""},
		{"@acme/pdf@V1.0", "Local.", ""},
		{"@acme/pdf@v2.0.0", "Cached.", ""},
		{"@acme/pdf@3", "", "Failed to download skill '@acme/pdf@3' from registry: Troupe does not download skills"},
		{"@acme/csv", "", "Failed to download skill '@acme/csv' from registry:"},
		{"@acme", "", "Registry reference must be in '@org/name' format"},
	}
	for _, tt := range tests {
		set := r.Resolve([]skill.Item{{Value: tt.ref, Label: "skills[0]"}})
		if tt.err != "" {
			require.Error(t, set.Err(), tt.ref)
			assert.Contains(t, set.Err().Error(), tt.err)
			continue
		}
		require.NoError(t, set.Err(), tt.ref)
		require.Len(t, set.Entries, 1)
		assert.Equal(t, tt.description, set.Entries[0].Skill.Description, tt.ref)
		assert.Equal(t, "acme", set.Entries[0].Org)
	}
}

// One name is one skill: the first item wins, the others are warned
// about; @org/name skills count by org/name, so two orgs may share a name.
func TestResolveDeduplicates(t *testing.T) {
	base, home := t.TempDir(), t.TempDir()
	writeSkill(t, base, "a/pdf", "SKILL.md", skillMD("pdf", "First.", ""))
	writeSkill(t, base, "b/pdf", "SKILL.md", skillMD("pdf", "Second.", ""))
	for _, org := range []string{"one", "two"} {
		d := writeSkill(t, filepath.Join(home, ".crewai", "skills", org), "csv", "SKILL.md", skillMD("csv", "From "+org+".", ""))
		require.NoError(t, os.WriteFile(filepath.Join(d, ".crewai_meta.json"), []byte(`{}`), 0o644))
	}
	r := &skill.Resolver{Base: base, WorkDir: base, Home: home}
	set := r.Resolve([]skill.Item{{Value: "a", Label: "skills[0]"}, {Value: "b", Label: "crew skills[0]"},
		{Value: "@one/csv", Label: "skills[1]"}, {Value: "@two/csv", Label: "skills[2]"}, {Value: "@two/csv", Label: "skills[3]"}})
	require.NoError(t, set.Err())
	assert.Equal(t, []string{"pdf", "csv", "csv"}, names(set))
	assert.Equal(t, "First.", set.Entries[0].Skill.Description)
	assert.Equal(t, []string{skill.NoteShadowed, skill.NoteShadowed}, codes(set))
	assert.Contains(t, set.Notes[0].Message, `skill "pdf" is also given by skills[0], which comes first`)

	cat := skill.Catalog(set.Entries)
	var labels []string
	for _, c := range cat {
		labels = append(labels, c.Label)
	}
	assert.Equal(t, []string{"pdf", "one/csv", "two/csv"}, labels)
}

// Catalog labels: a shared name is qualified by the parent folder, and a
// label still taken gets -2, -3.
func TestCatalogLabels(t *testing.T) {
	mk := func(name, dir string) skill.Entry {
		return skill.Entry{Skill: &skill.Skill{Name: name, Dir: dir}}
	}
	entries := []skill.Entry{mk("pdf", "/x/lib/pdf"), mk("csv", "/x/a/csv"), mk("pdf", "/y/lib/pdf"), mk("pdf", "/z/other/pdf"),
		{Skill: &skill.Skill{Name: "tone"}, AlwaysOn: true}}
	var labels []string
	for _, c := range skill.Catalog(entries) {
		labels = append(labels, c.Label)
	}
	assert.Equal(t, []string{"lib/pdf", "csv", "lib/pdf-2", "other/pdf"}, labels)
}

// Discovery is reported when the agent's first run starts: started,
// loaded or failed per skill, completed with the names found.
func TestResolveRecordsDiscoveryEvents(t *testing.T) {
	base := t.TempDir()
	writeSkill(t, base, "lib/alpha", "SKILL.md", skillMD("alpha", "A.", ""))
	writeSkill(t, base, "lib/bad", "SKILL.md", "no front matter")
	set := (&skill.Resolver{Base: base}).Resolve([]skill.Item{{Value: "lib", Label: "skills[0]"}})
	spec := &action.AgentSpec{Role: "R"}
	skill.Attach(spec, set, skill.Options{})
	rec := &events{}
	startRun(t, spec, rec)
	lib := filepath.Join(base, "lib")
	got := rec.skillEvents()
	require.Len(t, got, 4)
	assert.Equal(t, skillEvent{action.EventSkillDiscoveryStarted, action.SkillInfo{SearchPath: lib}}, got[0])
	assert.Equal(t, skillEvent{action.EventSkillLoaded, action.SkillInfo{Name: "alpha", Path: filepath.Join(lib, "alpha"), Level: 1}}, got[1])
	assert.Equal(t, action.EventSkillLoadFailed, got[2].kind)
	assert.Equal(t, "bad", got[2].info.Name)
	assert.Equal(t, skillEvent{action.EventSkillDiscoveryCompleted, action.SkillInfo{SearchPath: lib, Found: []string{"alpha"}}}, got[3])
	for _, ev := range rec.all {
		if ev.Skill != nil {
			assert.Equal(t, "R", ev.Agent)
			assert.Equal(t, rec.all[0].ID, ev.Parent, "%s points at its agent's event", ev.Kind)
		}
	}
	failed := rec.all[3]
	require.Equal(t, action.EventSkillLoadFailed, failed.Kind)
	assert.ErrorContains(t, failed.Err, "SKILL.md must start with '---' frontmatter delimiter")
}
