package skill_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/skill"
)

// writeSkill writes dir/folder/file with text.
func writeSkill(t *testing.T, dir, folder, file, text string) string {
	t.Helper()
	p := filepath.Join(dir, folder, file)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return filepath.Join(dir, folder)
}

// skillMD is a minimal SKILL.md.
func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n\n" + body + "\n"
}

// events records an agent run's events.
type events struct {
	mu  sync.Mutex
	all []action.Event
}

func (e *events) observe(ev action.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// skillEvent is a skill event's kind and what it reports.
type skillEvent struct {
	kind action.EventKind
	info action.SkillInfo
}

// skillEvents lists the skill events in order.
func (e *events) skillEvents() []skillEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []skillEvent
	for _, ev := range e.all {
		if ev.Skill != nil {
			out = append(out, skillEvent{ev.Kind, *ev.Skill})
		}
	}
	return out
}

// of lists the events of a kind.
func (e *events) of(k action.EventKind) []action.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []action.Event
	for _, ev := range e.all {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// startRun runs spec once on a model that answers at once.
func startRun(t *testing.T, spec *action.AgentSpec, rec *events) {
	t.Helper()
	spec.Model = fake.New(fake.Text("done"))
	_, err := action.RunAgent(t.Context(), spec, action.AgentTask{Input: "go"}, &action.RunOptions{Observer: rec.observe})
	require.NoError(t, err)
}

// pdfBody is the body of the pdf-tools skill of library.
const pdfBody = "# PDF tools\n\nRead references/forms.md before filling a form."

// library writes a folder of two skills: pdf-tools, with references,
// assets and a script, and csv-insights, with nothing but its SKILL.md. It
// returns the folder.
func library(t *testing.T, dir string) string {
	t.Helper()
	lib := filepath.Join(dir, "lib")
	pdf := writeSkill(t, lib, "pdf-tools", "SKILL.md", skillMD("pdf-tools", "Extract text from PDF files.", pdfBody))
	writeSkill(t, pdf, "references", "forms.md", "# Forms\n\nField A is the name.\n")
	writeSkill(t, pdf, "references/more", "deep.md", "deep\n")
	writeSkill(t, pdf, "assets", "logo.txt", "LOGO\n")
	writeSkill(t, pdf, "scripts", "extract.sh", "#!/bin/sh\necho extracted \"$@\"\n")
	require.NoError(t, os.Chmod(filepath.Join(pdf, "scripts", "extract.sh"), 0o755))
	writeSkill(t, lib, "csv-insights", "SKILL.md", skillMD("csv-insights", "Summarise CSV files. Use when the user shares a spreadsheet.", "Count the rows first."))
	return lib
}

// resolve resolves items against dir.
func resolve(t *testing.T, dir string, items ...string) *skill.Set {
	t.Helper()
	its := make([]skill.Item, len(items))
	for i, v := range items {
		its[i] = skill.Item{Value: v, Label: "skills[" + strconv.Itoa(i) + "]"}
	}
	set := (&skill.Resolver{Base: dir}).Resolve(its)
	require.NoError(t, set.Err())
	return set
}

// golden reads testdata/golden/name, less its final line break.
func golden(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	require.NoError(t, err)
	return strings.TrimSuffix(string(data), "\n")
}
