package flow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
)

// filesTree lays out a flow folder next to a folder it must not read:
//
//	flow/handbook.md, flow/kb/faq.txt, flow/link.txt -> ../outside/secret.txt
//	outside/secret.txt, outside/crew/crew.jsonc (+ agents/a.jsonc)
func filesTree(t *testing.T) (flowDir, outside string) {
	t.Helper()
	top := t.TempDir()
	flowDir, outside = filepath.Join(top, "flow"), filepath.Join(top, "outside")
	files := map[string]string{
		"flow/handbook.md":            "Refunds take five business days.",
		"flow/kb/faq.txt":             "Refunds are paid to the original card.",
		"outside/secret.txt":          "Refunds: the admin password is hunter2.",
		"outside/crew/crew.jsonc":     `{"agents": ["a"], "tasks": [{"description": "Answer {q}", "expected_output": "An answer", "agent": "a"}]}`,
		"outside/crew/agents/a.jsonc": `{"role": "Clerk", "goal": "Answer", "backstory": "Knows refunds."}`,
	}
	for rel, body := range files {
		p := filepath.Join(top, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	if err := os.Symlink("../outside/secret.txt", filepath.Join(flowDir, "link.txt")); err != nil {
		t.Skipf("symbolic links are not available: %v", err)
	}
	return flowDir, outside
}

// knowledgeFlow is an agent whose knowledge_sources is the given entry.
func knowledgeFlow(source string) string {
	return `schema: crewai.flow/v1
name: Kb
methods:
  answer:
    start: true
    do:
      call: agent
      with:
        role: Support
        goal: Answer from the handbook
        backstory: Reads the handbook.
        knowledge_sources: [` + source + `]
        input: "How are refunds paid?"
`
}

// knowledge_sources paths resolve against the flow's folder and stay in
// it: "..", absolute paths and symbolic links that lead out are refused
// before any model call, with an error naming the entry, the path, where
// it leads and the fix. WithFileRoots allows more folders.
func TestKnowledgeSourcesAreConfinedToTheFlowFolder(t *testing.T) {
	flowDir, outside := filesTree(t)
	secret := filepath.Join(outside, "secret.txt")
	cases := []struct {
		name   string
		source string
		roots  []string
		want   string // a text the prompt holds; "" means refused
	}{
		{name: "a file inside", source: "handbook.md", want: "five business days"},
		{name: "a folder inside", source: "kb/", want: "original card"},
		{name: "a path mapping inside", source: "{path: handbook.md}", want: "five business days"},
		{name: "dot-dot out", source: "../outside/secret.txt"},
		{name: "an absolute path out", source: `"` + secret + `"`},
		{name: "a symbolic link out", source: "link.txt"},
		{name: "a folder out", source: "../outside/"},
		{name: "a path mapping out", source: "{path: ../outside/secret.txt}"},
		{name: "dot-dot into an allowed folder", source: "../outside/secret.txt", roots: []string{outside}, want: "hunter2"},
		{name: "a link into an allowed folder", source: "link.txt", roots: []string{outside}, want: "hunter2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(flowDir, "flow.yaml")
			require.NoError(t, os.WriteFile(path, []byte(knowledgeFlow(c.source)), 0o600))
			def, err := flow.Load(path)
			require.NoError(t, err)
			model := fake.New(fake.Reply{Text: "Answered."})
			_, err = flow.NewEngine(flow.WithLLM(model), flow.WithFileRoots(c.roots...)).Run(context.Background(), def, nil)
			if c.want != "" {
				require.NoError(t, err)
				require.Len(t, model.Requests(), 1)
				system, user := prompts(t, model.Requests()[0])
				assert.Contains(t, system+user, c.want)
				return
			}
			require.ErrorIs(t, err, flow.ErrOutsideFileRoots)
			var me *flow.MethodError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "answer", me.Method)
			msg := err.Error()
			assert.Contains(t, msg, "knowledge_sources[0]")
			assert.Contains(t, msg, outside, "says where the path leads")
			assert.Contains(t, msg, flowDir, "names the allowed folder")
			assert.Contains(t, msg, "flow.WithFileRoots")
			assert.Contains(t, msg, "--allow-path")
			assert.Empty(t, model.Requests(), "nothing reached the model")
		})
	}
}

// A definition parsed from memory has no folder: its paths resolve against
// the working directory and stay inside it.
func TestKnowledgeSourcesOfAParsedDefinitionStayInTheWorkingDirectory(t *testing.T) {
	flowDir, _ := filesTree(t)
	t.Chdir(flowDir)
	for source, ok := range map[string]bool{"handbook.md": true, "../outside/secret.txt": false, "link.txt": false} {
		t.Run(source, func(t *testing.T) {
			def := mustParse(t, knowledgeFlow(source))
			model := fake.New(fake.Reply{Text: "Answered."})
			_, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, nil)
			if ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, flow.ErrOutsideFileRoots)
		})
	}
}

// A crew's knowledge_sources are confined the same way.
func TestCrewKnowledgeSourcesAreConfined(t *testing.T) {
	flowDir, _ := filesTree(t)
	path := filepath.Join(flowDir, "flow.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`schema: crewai.flow/v1
name: CrewKb
methods:
  answer:
    start: true
    do:
      call: crew
      with:
        knowledge_sources: [link.txt]
        agents:
          clerk: {role: Clerk, goal: Answer, backstory: Knows refunds.}
        tasks:
          - {description: "How are refunds paid?", expected_output: An answer, agent: clerk}
`), 0o600))
	def, err := flow.Load(path)
	require.NoError(t, err)
	model := fake.New(fake.Reply{Text: "Answered."})
	_, err = flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, nil)
	require.ErrorIs(t, err, flow.ErrOutsideFileRoots)
	assert.Contains(t, err.Error(), "knowledge_sources")
	assert.Empty(t, model.Requests())
}

// A crew from_declaration outside the flow's folder is refused with
// CrewAI's message; WithFileRoots allows its folder.
func TestCrewFromDeclarationOutsideNeedsAFileRoot(t *testing.T) {
	flowDir, outside := filesTree(t)
	path := filepath.Join(flowDir, "flow.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`schema: crewai.flow/v1
name: CrewOut
methods:
  answer:
    start: true
    do: {call: crew, from_declaration: ../outside/crew, inputs: {q: refunds}}
`), 0o600))
	def, err := flow.Load(path)
	require.NoError(t, err)

	model := fake.New(fake.Reply{Text: "Answered."})
	_, err = flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, nil)
	require.ErrorIs(t, err, action.ErrOutsideRoot)
	require.ErrorIs(t, err, flow.ErrOutsideFileRoots)
	assert.Contains(t, err.Error(), "crew declaration path must be within the flow definition directory")
	assert.Contains(t, err.Error(), "flow.WithFileRoots")
	assert.Equal(t, 1, strings.Count(err.Error(), "flow.WithFileRoots"), "the hint is given once")

	res, err := flow.NewEngine(flow.WithLLM(model), flow.WithFileRoots(outside)).Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, "Answered.", res.Outputs["answer"].(map[string]any)["raw"])
}
