package flow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// writeFile writes dir/rel, making its folders.
func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

// skillLibrary writes dir/skills with two skills, pdf-tools (with a
// reference) and csv-insights.
func skillLibrary(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, "skills/pdf-tools/SKILL.md", "---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\n\nRead references/forms.md first.\n")
	writeFile(t, dir, "skills/pdf-tools/references/forms.md", "Field A is the name.\n")
	writeFile(t, dir, "skills/csv-insights/SKILL.md", "---\nname: csv-insights\ndescription: Summarise CSV files.\n---\n\nCount rows.\n")
}

// writeFlow writes dir/flow.yaml and loads it.
func writeFlow(t *testing.T, dir, src string) *flow.Definition {
	t.Helper()
	writeFile(t, dir, "flow.yaml", src)
	def, err := flow.Load(filepath.Join(dir, "flow.yaml"))
	require.NoError(t, err)
	return def
}

// Every item form of skills decodes into Skills, on agents and crews,
// and writes back.
func TestSkillsItemFormsDecodeAndRoundTrip(t *testing.T) {
	src := `name: S
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: R
        goal: G
        backstory: B
        input: hi
        skills:
          - ./skills
          - "@acme/pdf@1.0"
          - |
            ---
            name: tone
            description: Be kind.
            ---
            Thank the user.
  team:
    start: true
    do:
      call: crew
      with:
        skills: []
        agents:
          w: {role: W, goal: G, backstory: B, skills: [./skills]}
        tasks:
          - {description: D, expected_output: O, agent: w}
`
	def, err := flow.Parse([]byte(src), "f.yaml")
	require.NoError(t, err)
	ag := def.Method("ask").Do.Agent
	assert.Equal(t, []string{"./skills", "@acme/pdf@1.0", "---\nname: tone\ndescription: Be kind.\n---\nThank the user.\n"}, ag.Skills)
	assert.NotContains(t, ag.Extra, "skills")
	crew := def.Method("team").Do.Crew
	assert.Equal(t, []string{}, crew.Skills)
	assert.Equal(t, []string{"./skills"}, crew.Agents[0].Skills)

	out, err := def.YAML()
	require.NoError(t, err)
	again, err := flow.Parse(out, "again.yaml")
	require.NoError(t, err, "%s", out)
	assert.Equal(t, ag.Skills, again.Method("ask").Do.Agent.Skills)
	assert.Equal(t, crew.Skills, again.Method("team").Do.Crew.Skills)
	assert.Equal(t, crew.Agents[0].Skills, again.Method("team").Do.Crew.Agents[0].Skills)
}

// The builder takes skills as typed fields; they write to YAML as the
// loader reads them.
func TestSkillsFromGoBuilder(t *testing.T) {
	def, err := flow.New("B").Method("ask", flow.AgentAction(&flow.Agent{Role: "R", Goal: "G", Backstory: "B", Input: "hi",
		Skills: []string{"./skills", "@acme/pdf"}})).Start().Build()
	require.NoError(t, err)
	out, err := def.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(out), "skills:\n")
	again, err := flow.Parse(out, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"./skills", "@acme/pdf"}, again.Method("ask").Do.Agent.Skills)

	_, err = flow.New("B").Method("ask", flow.AgentAction(&flow.Agent{Role: "R", Goal: "G", Backstory: "B", Input: "hi",
		Skills: []string{}})).Start().Build()
	assert.ErrorContains(t, err, "List should have at least 1 item after validation, not 0 [type=too_short]")
}

// CheckSkills reads the skills agents and crews name, and reports at the
// entries, in the mapping and list forms of crew agents.
func TestCheckSkills(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "flow")
	skillLibrary(t, dir)
	writeFile(t, dir, "single/pdf-tools/SKILL.md", "---\nname: pdf-tools\ndescription: Another.\n---\n")
	writeFile(t, dir, "bad/broken/SKILL.md", "---\nname: other\ndescription: d\n---\n")
	writeFile(t, dir, "bad/patterned/SKILL.md", "---\nname: patterned\ndescription: d\nallowed-tools: Bash(git:*)\n---\n")
	writeFile(t, dir, "empty/README.md", "nothing")
	writeFile(t, root, "elsewhere/x/SKILL.md", "---\nname: x\ndescription: d\n---\n")
	def := writeFlow(t, dir, `name: S
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: R
        goal: G
        backstory: B
        input: hi
        skills: [./skills, ./single/pdf-tools, ./missing]
  team:
    start: true
    do:
      call: crew
      with:
        skills: [./empty, ../elsewhere]
        agents:
          - name: w
            role: W
            goal: G
            backstory: B
            skills: [./bad]
          - v: {role: V, goal: G, backstory: B}
        tasks:
          - {description: D, expected_output: O, agent: w}
`)
	type want struct {
		line int
		path string
		sev  flow.Severity
		code string
		msg  string
	}
	var got []want
	for _, d := range flow.CheckSkills(def) {
		got = append(got, want{d.Line, d.Path, d.Severity, d.Code, d.Message})
	}
	expect := []want{
		{12, "methods.ask.do.with.skills[1]", flow.SeverityWarning, "skill_path_is_skill", "Troupe loads it as one skill, while CrewAI looks only at the folders inside it"},
		{12, "methods.ask.do.with.skills[1]", flow.SeverityWarning, "skill_shadowed", `skill "pdf-tools" is also given by skills[0], which comes first`},
		{12, "methods.ask.do.with.skills[2]", flow.SeverityError, "skill_path_missing", "Skill search path does not exist or is not a directory: " + filepath.Join(dir, "missing")},
		{18, "methods.team.do.with.skills[0]", flow.SeverityWarning, "skill_path_empty", "no skill found in " + filepath.Join(dir, "empty")},
		{18, "methods.team.do.with.skills[1]", flow.SeverityError, "skill_path_outside", "outside the allowed folders"},
		{24, "methods.team.do.with.agents[0].skills[0]", flow.SeverityWarning, "skill_skipped", "Directory name 'broken' does not match skill name 'other'"},
		{24, "methods.team.do.with.agents[0].skills[0]", flow.SeverityWarning, "skill_warning", "allowed-tools entry 'Bash(git:*)' is a pattern"},
	}
	require.Len(t, got, len(expect), "%v", got)
	for i, w := range expect {
		assert.Equal(t, w.line, got[i].line, "%v", got[i])
		assert.Equal(t, w.path, got[i].path)
		assert.Equal(t, w.sev, got[i].sev, "%v", got[i])
		assert.Equal(t, w.code, got[i].code)
		assert.Contains(t, got[i].msg, w.msg)
	}
	// A folder allowed as a root is fine.
	for _, d := range flow.CheckSkills(def, filepath.Join(root, "elsewhere")) {
		assert.NotEqual(t, "skill_path_outside", d.Code)
	}
}

// recordEvents collects a run's events.
type recordEvents struct {
	mu  sync.Mutex
	all []flow.Event
}

func (r *recordEvents) add(e flow.Event) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
}

func (r *recordEvents) bySeq(seq int64) flow.Event {
	for _, e := range r.all {
		if e.Seq == seq {
			return e
		}
	}
	return flow.Event{}
}

const skillAgentFlow = `name: S
methods:
  ask:
    start: true
    do:
      call: agent
      with:
        role: Analyst
        goal: Answer
        backstory: Careful.
        input: What is field A?
        skills: [./skills]
`

// An agent with skills sees CrewAI's catalog, loads a skill with
// load_skill, reads its reference, and every skill event points at its
// agent's events.
func TestAgentLoadsSkillAndReadsReference(t *testing.T) {
	dir := t.TempDir()
	skillLibrary(t, dir)
	def := writeFlow(t, dir, skillAgentFlow)
	model := fake.New(
		fake.Times(1, fake.ToolCalls(fake.Call("load_skill", map[string]any{"skill_name": "pdf-tools"}))),
		fake.Times(1, fake.ToolCalls(fake.Call("read_skill_file", map[string]any{"skill_name": "pdf-tools", "path": "references/forms.md"}))),
		fake.Match(`Field A is the name`, fake.Text("Field A is the name.")),
	)
	rec := &recordEvents{}
	res, err := flow.NewEngine(flow.WithLLM(model), flow.WithEvents(rec.add)).Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "Field A is the name.", res.Output.(*action.AgentOutput).Raw)

	system := model.Requests()[0].Messages[0].Text()
	assert.Contains(t, system, "<available_skills>\nThese skills are not loaded.")
	assert.True(t, strings.HasSuffix(system, "<skill name=\"pdf-tools\">\nExtract text from PDF files.\n</skill>\n</available_skills>"), system)
	var toolNames []string
	for _, s := range model.Requests()[0].Tools {
		toolNames = append(toolNames, s.Name)
	}
	assert.Equal(t, []string{"load_skill", "read_skill_file"}, toolNames)

	var kinds []flow.EventKind
	for _, e := range rec.all {
		if e.Skill == nil {
			continue
		}
		kinds = append(kinds, e.Kind)
		parent := rec.bySeq(e.Parent)
		switch e.Kind {
		case flow.SkillActivated, flow.SkillUsed:
			assert.Equal(t, flow.ToolStarted, parent.Kind, "%s under its load_skill call", e.Kind)
			assert.Equal(t, flow.AgentStarted, rec.bySeq(parent.Parent).Kind)
		default:
			assert.Equal(t, flow.AgentStarted, parent.Kind, "%s under its agent", e.Kind)
		}
		assert.Equal(t, "Analyst", e.Agent)
		assert.Equal(t, "ask", e.Method)
	}
	assert.Equal(t, []flow.EventKind{flow.SkillDiscoveryStarted, flow.SkillLoaded, flow.SkillLoaded, flow.SkillDiscoveryCompleted,
		flow.SkillActivated, flow.SkillUsed}, kinds)
}

// Crew skills reach every crew agent after its own; engine skills reach
// every agent; inline skills are always on.
func TestCrewAndEngineSkills(t *testing.T) {
	dir := t.TempDir()
	skillLibrary(t, dir)
	writeFile(t, dir, "host/house-style/SKILL.md", "---\nname: house-style\ndescription: Our style.\n---\nShort sentences.\n")
	def := writeFlow(t, dir, `name: S
methods:
  team:
    start: true
    do:
      call: crew
      with:
        skills:
          - |
            ---
            name: tone
            description: Be kind.
            ---
            Thank the user.
        agents:
          w: {role: Writer, goal: G, backstory: B, skills: [./skills]}
        tasks:
          - {description: D, expected_output: O, agent: w}
`)
	model := fake.New(fake.Text("done"))
	_, err := flow.NewEngine(flow.WithLLM(model), flow.WithSkills(filepath.Join(dir, "host"))).Run(context.Background(), def, nil)
	require.NoError(t, err)
	system := model.Requests()[0].Messages[0].Text()
	i, j := strings.Index(system, "<skills>\n<skill name=\"tone\">\nBe kind.\n\nThank the user.\n</skill>\n</skills>"), strings.Index(system, "<available_skills>")
	require.GreaterOrEqual(t, i, 0, system)
	assert.Less(t, i, j)
	for _, name := range []string{"pdf-tools", "csv-insights", "house-style"} {
		assert.Contains(t, system[j:], `<skill name="`+name+`">`)
	}
}

// A skills path that is missing fails the definition when it compiles,
// naming the agent and the entry.
func TestMissingSkillsPathFailsCompile(t *testing.T) {
	dir := t.TempDir()
	def := writeFlow(t, dir, strings.Replace(skillAgentFlow, "./skills", "./nowhere", 1))
	_, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Text("x")))).Compile(def)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `agent "Analyst": skill: skills[0]: Skill search path does not exist or is not a directory: `+filepath.Join(dir, "nowhere"))
}

// A skills path outside the flow's folder is refused unless allowed.
func TestSkillsPathConfined(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "flow")
	skillLibrary(t, root)
	def := writeFlow(t, dir, strings.Replace(skillAgentFlow, "./skills", "../skills", 1))
	_, err := flow.NewEngine(flow.WithLLM(fake.New(fake.Text("x")))).Compile(def)
	var ce *flow.CompileError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, ce.Problems[0].Err, flow.ErrOutsideFileRoots)
	assert.Contains(t, err.Error(), "--allow-path")
	_, err = flow.NewEngine(flow.WithLLM(fake.New(fake.Text("x"))), flow.WithFileRoots(filepath.Join(root, "skills"))).Compile(def)
	require.NoError(t, err)
}

// Scripts need WithSkillScripts; allowed-tools is enforced unless
// WithSkillToolLimits(false).
func TestSkillEngineOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "skills/strict/SKILL.md", "---\nname: strict\ndescription: Strict.\nallowed-tools: lookup\n---\nOnly look things up.\n")
	writeFile(t, dir, "skills/strict/scripts/hello.sh", "#!/bin/sh\necho hello\n")
	require.NoError(t, os.Chmod(filepath.Join(dir, "skills/strict/scripts/hello.sh"), 0o755))
	def := writeFlow(t, dir, strings.Replace(skillAgentFlow, "input: What is field A?", "input: go\n        tools: [write]", 1))
	tests := []struct {
		name    string
		opts    []flow.Option
		tools   []string
		refused bool
	}{
		{"defaults", nil, []string{"write", "load_skill", "read_skill_file"}, true},
		{"scripts", []flow.Option{flow.WithSkillScripts(true)}, []string{"write", "load_skill", "read_skill_file", "run_skill_script"}, true},
		{"no limits", []flow.Option{flow.WithSkillToolLimits(false)}, []string{"write", "load_skill", "read_skill_file"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := fake.New(
				fake.Times(1, fake.ToolCalls(fake.Call("load_skill", map[string]any{"skill_name": "strict"}))),
				fake.Times(1, fake.ToolCalls(fake.Call("write", map[string]any{}))),
				fake.Text("done"),
			)
			rec := &recordEvents{}
			opts := append([]flow.Option{flow.WithLLM(model), flow.WithEvents(rec.add), flow.WithTools(writeTool())}, tt.opts...)
			_, err := flow.NewEngine(opts...).Run(context.Background(), def, nil)
			require.NoError(t, err)
			var names []string
			for _, s := range model.Requests()[0].Tools {
				names = append(names, s.Name)
			}
			assert.Equal(t, tt.tools, names)
			last := model.Requests()[2].Messages
			result := last[len(last)-1].Text()
			if tt.refused {
				assert.Equal(t, "Error: tool write is not allowed while skill strict is active; allowed: lookup", result)
				var failed []flow.Event
				for _, e := range rec.all {
					if e.Kind == flow.ToolFailed {
						failed = append(failed, e)
					}
				}
				require.Len(t, failed, 1)
				var re *action.ToolRefusedError
				assert.ErrorAs(t, failed[0].Err, &re)
			} else {
				assert.Equal(t, "written", result)
			}
		})
	}
}

func writeTool() action.Tool {
	return action.MustNewTool("write", "Writes.", func(context.Context, struct{}) (string, error) { return "written", nil })
}
