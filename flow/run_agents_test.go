package flow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
)

// The MANIFEST's agent and crew rows come from CrewAI tests that patch
// Agent.kickoff_async and Crew.kickoff_async to echo what they were given
// (the role, the rendered input, the crew's tasks and kickoff inputs). Troupe
// has no such seam: an agent really talks to a model. The honest Go
// equivalent is to script the model with llm/fake and assert on what it
// RECEIVED (the system prompt carries role, goal and backstory; the user
// message carries the rendered input or the crew's interpolated task) and on
// the shape of the outputs the flow stores.

// prompts returns the system and user texts of a recorded request.
func prompts(t *testing.T, req *llm.Request) (system, user string) {
	t.Helper()
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			system = m.Text()
		case llm.RoleUser:
			if user == "" {
				user = m.Text()
			}
		}
	}
	require.NotEmpty(t, system, "request has no system prompt")
	require.NotEmpty(t, user, "request has no user message")
	return system, user
}

// loadValid loads a valid fixture by path.
func loadValid(t *testing.T, name string) *flow.Definition {
	t.Helper()
	def, err := flow.Load(filepath.Join(fixtureDir(t), "valid", name))
	require.NoError(t, err)
	return def
}

func TestAgentActionRows(t *testing.T) {
	cases := []struct {
		file   string
		inputs map[string]any
		task   string // the rendered input, as the model receives it
	}{
		// CrewAI: {agent: 'Analyst', input: 'What is CrewAI?'}.
		{file: "agent_inline.yaml", inputs: map[string]any{"question": "What is CrewAI?"}, task: "What is CrewAI?"},
		// CrewAI: {agent: 'Analyst', input: 'Ticket ID: 123; Subject: '}: null renders as "".
		{file: "agent_text_template_input.yaml", inputs: map[string]any{"ticket": map[string]any{"id": int64(123), "subject": nil}},
			task: "Ticket ID: 123; Subject: "},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			def := loadValid(t, c.file)
			model := fake.New(fake.Reply{Text: "CrewAI is a framework for agents."})
			res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, c.inputs)
			require.NoError(t, err)

			reqs := model.Requests()
			require.Len(t, reqs, 1)
			system, user := prompts(t, reqs[0])
			assert.Contains(t, system, "You are Analyst.")
			assert.Contains(t, system, "Knows things.")
			assert.Contains(t, system, "Your goal: Answer questions")
			assert.Contains(t, user, "Task: "+c.task+"\n")

			out, ok := res.Output.(*action.AgentOutput)
			require.True(t, ok, "output is %T", res.Output)
			assert.Equal(t, "CrewAI is a framework for agents.", out.Raw)
			assert.Equal(t, "Analyst", out.AgentRole)

			m, ok := res.Outputs["answer"].(map[string]any)
			require.True(t, ok, "outputs.answer is %T", res.Outputs["answer"])
			assert.Equal(t, "CrewAI is a framework for agents.", m["raw"])
			assert.Nil(t, m["pydantic"])
			assert.Equal(t, "Analyst", m["agent_role"])
			assert.Equal(t, action.UsageMap(res.Usage), m["usage_metrics"])
			assert.Equal(t, int64(1), res.Usage.Requests)
			assert.Positive(t, res.Usage.Total())
		})
	}
}

// CrewAI: ['Analyst:one', 'Analyst:two'] from an echo of role and input.
func TestAgentInsideEachRow(t *testing.T) {
	def := loadValid(t, "agent_inside_each.yaml")
	model := fake.New(
		fake.Reply{Match: `Task: one\b`, Text: "Analyst:one"},
		fake.Reply{Match: `Task: two\b`, Text: "Analyst:two"},
	)
	res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def,
		map[string]any{"questions": []any{"one", "two"}})
	require.NoError(t, err)

	reqs := model.Requests()
	require.Len(t, reqs, 2)
	for i, q := range []string{"one", "two"} {
		system, user := prompts(t, reqs[i])
		assert.Contains(t, system, "You are Analyst.")
		assert.Contains(t, user, "Task: "+q+"\n")
	}

	items, ok := res.Output.([]any)
	require.True(t, ok, "output is %T", res.Output)
	raws := make([]any, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		require.True(t, ok, "item %d is %T", i, it)
		assert.Equal(t, "Analyst", m["agent_role"])
		raws[i] = m["raw"]
	}
	assert.Equal(t, []any{"Analyst:one", "Analyst:two"}, raws)
	assert.Equal(t, int64(2), res.Usage.Requests)
}

func TestCrewActionRows(t *testing.T) {
	cases := []struct {
		file   string
		inputs map[string]any
		goal   string // the researcher's goal, interpolated
		task   string // the task description, interpolated
		expect string // the expected output, interpolated
	}{
		// CrewAI: {crew: 'inline_research', agents: ['Researcher'],
		// tasks: ['Research {topic}'], inputs: {topic: 'AI'}}; the crew
		// fills the placeholders from those inputs before the model sees
		// them.
		{file: "crew_inline.yaml", inputs: map[string]any{"topic": "AI"},
			goal: "Research AI", task: "Research AI", expect: "Findings about AI"},
		// CrewAI: inputs {topic: 'News about AI', sources: ['crewai.com',
		// 'archive-AI']}; a list fills a placeholder as Python's str().
		{file: "crew_inputs_strings_and_lists.yaml", inputs: map[string]any{"topic": "AI", "primary_source": "crewai.com"},
			goal: "Research News about AI", task: "Research News about AI using ['crewai.com', 'archive-AI']",
			expect: "Findings about News about AI"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			def := loadValid(t, c.file)
			model := fake.New(fake.Reply{Text: "AI agents plan, call tools and remember."})
			res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, c.inputs)
			require.NoError(t, err)

			reqs := model.Requests()
			require.Len(t, reqs, 1)
			system, user := prompts(t, reqs[0])
			assert.Contains(t, system, "You are Researcher.")
			assert.Contains(t, system, "Your goal: "+c.goal)
			assert.Contains(t, user, "Task: "+c.task+"\n")
			assert.Contains(t, user, "Expected output: "+c.expect)

			out, ok := res.Output.(*action.CrewOutput)
			require.True(t, ok, "output is %T", res.Output)
			assert.Equal(t, "AI agents plan, call tools and remember.", out.Raw)

			m, ok := res.Outputs["research"].(map[string]any)
			require.True(t, ok, "outputs.research is %T", res.Outputs["research"])
			assert.Equal(t, "AI agents plan, call tools and remember.", m["raw"])
			assert.Equal(t, action.UsageMap(res.Usage), m["token_usage"])
			tasks, ok := m["tasks_output"].([]any)
			require.True(t, ok)
			require.Len(t, tasks, 1)
			task := tasks[0].(map[string]any)
			assert.Equal(t, "research_task", task["name"])
			assert.Equal(t, c.task, task["description"])
			assert.Equal(t, "Researcher", task["agent"])
			assert.Equal(t, "raw", task["output_format"])
			assert.Equal(t, "AI agents plan, call tools and remember.", task["raw"])
		})
	}
}

// CrewAI loads this flow from CONTENTS with the working directory set to
// the fixture folder, so crews/research_crew resolves against it: a folder
// means its crew.jsonc. The crew file's inputs (topic: Default topic,
// audience: developers) sit under the action's inputs (topic: AI).
func TestCrewFromDeclarationRow(t *testing.T) {
	dir := filepath.Join(fixtureDir(t), "valid", "crew_from_declaration")
	data, err := os.ReadFile(filepath.Join(dir, "flow.yaml"))
	require.NoError(t, err)
	t.Chdir(dir)
	def, err := flow.Parse(data, "")
	require.NoError(t, err)
	require.Empty(t, def.Dir)

	model := fake.New(fake.Reply{Text: "findings"})
	res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, map[string]any{"topic": "AI"})
	require.NoError(t, err)

	reqs := model.Requests()
	require.Len(t, reqs, 1)
	system, user := prompts(t, reqs[0])
	assert.Contains(t, system, "You are Researcher.")
	assert.Contains(t, system, "Your goal: Research AI")
	assert.Contains(t, user, "Task: Research AI\n")
	assert.NotContains(t, user, "Default topic")

	m := res.Outputs["research"].(map[string]any)
	tasks := m["tasks_output"].([]any)
	require.Len(t, tasks, 1)
	assert.Equal(t, "research_task", tasks[0].(map[string]any)["name"])
	assert.Equal(t, "findings", m["raw"])
}

// The fixture's tasks do not use {audience}, so the model cannot show that
// the crew file's defaults are merged; this copy of the declaration does.
func TestCrewFromDeclarationMergesFileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		path := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	write("crews/research_crew/crew.jsonc", `{
  // comments are allowed: JSONC
  "name": "referenced_research",
  "agents": ["researcher"],
  "tasks": [{"name": "research_task", "description": "Research {topic} for {audience}",
             "expected_output": "Findings", "agent": "researcher"}],
  "inputs": {"topic": "Default topic", "audience": "developers"},
}`)
	write("crews/research_crew/agents/researcher.jsonc", `{"role": "Researcher", "goal": "Research {topic}", "backstory": "Knows things."}`)
	write("flow.yaml", `schema: crewai.flow/v1
name: CrewFlow
methods:
  research:
    start: true
    do:
      call: crew
      from_declaration: crews/research_crew
      inputs:
        topic: "${state.topic}"
`)
	def, err := flow.Load(filepath.Join(dir, "flow.yaml"))
	require.NoError(t, err)
	model := fake.New(fake.Reply{Text: "findings"})
	_, err = flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, map[string]any{"topic": "AI"})
	require.NoError(t, err)
	reqs := model.Requests()
	require.Len(t, reqs, 1)
	_, user := prompts(t, reqs[0])
	assert.Contains(t, user, "Task: Research AI for developers\n")
}

// CrewAI: loaded by path while the working directory is elsewhere,
// from_declaration resolves against the flow file's folder:
// {crew: 'relative_research', inputs: {topic: 'AI'}}.
func TestCrewFromDeclarationRelativeRow(t *testing.T) {
	path, err := filepath.Abs(filepath.Join(fixtureDir(t), "valid", "crew_from_declaration_relative", "flow.yaml"))
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	def, err := flow.Load(path)
	require.NoError(t, err)

	model := fake.New(fake.Reply{Text: "relative findings"})
	res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, map[string]any{"topic": "AI"})
	require.NoError(t, err)

	reqs := model.Requests()
	require.Len(t, reqs, 1)
	system, user := prompts(t, reqs[0])
	assert.Contains(t, system, "Your goal: Research AI")
	assert.Contains(t, user, "Task: Research AI\n")
	assert.Equal(t, "relative findings", res.Outputs["research"].(map[string]any)["raw"])
}

// Crew and agent definitions that cannot run fail when the method runs
// (the definitions themselves are valid), before any model call, with a
// *flow.MethodError naming the method.
func TestCrewAndAgentRowsThatFailAtRunTime(t *testing.T) {
	cases := []struct {
		file    string
		inputs  map[string]any
		wantErr []string
		is      error
	}{
		// CrewAI: ValueError 'crew declaration path must be within the
		// flow definition directory' when loaded by path.
		{file: "crew_from_declaration_outside_dir.yaml",
			wantErr: []string{"crew declaration path must be within the flow definition directory"}, is: action.ErrOutsideRoot},
		// CrewAI: 'crew action: agents.researcher: missing required field 'goal''.
		{file: "crew_incomplete_inline_agent.json",
			wantErr: []string{"crew action: agents.researcher: missing required field 'goal'"}},
		// Difference from CrewAI: from_repository fetches an agent from
		// CrewAI's agent repository (a CrewAI AMP service, patched in
		// CrewAI's tests). Troupe has no client for it and cannot reach
		// it, so these rows fail with an error that says so and how to
		// fix the definition (declare the agent inline), instead of
		// running {agent: 'Repository specialist', ...}.
		{file: "agent_from_repository.yaml", inputs: map[string]any{"question": "What is CrewAI?"},
			wantErr: []string{"from_repository", "Troupe cannot reach", "declare role, goal and backstory inline"}},
		{file: "crew_repository_agent.yaml", inputs: map[string]any{"topic": "AI"},
			wantErr: []string{"agents.researcher", "from_repository", "Troupe cannot reach"}},
		{file: "crew_repository_agent_unnamed.yaml", inputs: map[string]any{"topic": "AI"},
			wantErr: []string{"agents.researcher", "from_repository", "Troupe cannot reach"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			def := loadValid(t, c.file)
			model := fake.New(fake.Reply{Text: "never used"})
			_, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, c.inputs)
			require.Error(t, err)
			for _, s := range c.wantErr {
				assert.Contains(t, err.Error(), s)
			}
			method := "research"
			if c.file == "agent_from_repository.yaml" {
				method = "answer"
			}
			// Problems Troupe can see before running are build errors;
			// the crew folder is only read when the method runs.
			var me *flow.MethodError
			var be *flow.CompileError
			switch {
			case errors.As(err, &be):
				require.Len(t, be.Problems, 1)
				assert.Equal(t, method, be.Problems[0].Method)
			case errors.As(err, &me):
				assert.Equal(t, method, me.Method)
			default:
				t.Fatalf("want a *flow.CompileError or *flow.MethodError, got %T", err)
			}
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
			}
			assert.Zero(t, model.Calls(), "no model call may happen")
		})
	}
}

// The research-review template of CrewAI's scaffold (no CrewAI test runs
// it: it needs real models): a two-agent crew, a router agent whose answer
// is an emit value, and a follow-up agent.
func TestTemplateResearchReview(t *testing.T) {
	usage := &llm.Usage{InputTokens: 100, OutputTokens: 20}
	script := func(route string) *fake.Model {
		return fake.New(
			fake.Reply{Match: `You are Research analyst\.`, Text: "Findings: orchestration needs routing and memory.", Usage: usage},
			fake.Reply{Match: `You are Strategy reviewer\.`, Text: "Solid brief. needs_followup: true", Usage: usage},
			fake.Reply{Match: `You are Follow-up router\.`, Text: route, Usage: usage},
			fake.Reply{Match: `You are Executive communications specialist\.`, Text: "Dear leaders: act on routing.", Usage: usage},
		)
	}
	cases := []struct {
		name   string
		route  string
		inputs map[string]any
		trace  []string
		output string
	}{
		// The router's answer is trimmed and matched to emit without case.
		{name: "followup", route: "  Followup\n", trace: []string{"research_brief", "route_followup", "write_followup"},
			output: "Dear leaders: act on routing."},
		{name: "done", route: "done", inputs: map[string]any{"topic": "Agent memory", "audience": "CTOs"},
			trace: []string{"research_brief", "route_followup"}, output: "done"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := loadValid(t, "template_research_review.yaml")
			model := script(c.route)
			res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, c.inputs)
			require.NoError(t, err)
			assert.Equal(t, c.trace, res.Trace)
			assert.Equal(t, c.output, res.Output.(*action.AgentOutput).Raw)

			topic, audience := "AI agent orchestration", "platform engineering leaders"
			if c.inputs != nil {
				topic, audience = c.inputs["topic"].(string), c.inputs["audience"].(string)
			}
			reqs := model.Requests()
			require.Len(t, reqs, len(c.trace)+1) // the crew makes two calls
			system, user := prompts(t, reqs[0])
			assert.Contains(t, system, "Your goal: Research "+topic+" for "+audience)
			assert.Contains(t, user, "Task: Research "+topic+" for "+audience+".\n")
			_, user = prompts(t, reqs[1])
			assert.Contains(t, user, "Findings: orchestration needs routing and memory.", "the reviewer gets the research as context")
			_, user = prompts(t, reqs[2])
			assert.Contains(t, user, "Task: Reviewed research: Solid brief. needs_followup: true")

			brief := res.Outputs["research_brief"].(map[string]any)
			assert.Equal(t, "Solid brief. needs_followup: true", brief["raw"])
			assert.Len(t, brief["tasks_output"], 2)
			assert.Equal(t, action.UsageMap(llm.Usage{InputTokens: 200, OutputTokens: 40, Requests: 2}), brief["token_usage"])
			calls := int64(len(reqs))
			assert.Equal(t, llm.Usage{InputTokens: 100 * calls, OutputTokens: 20 * calls, Requests: calls}, res.Usage)
		})
	}
}

// A router agent whose answer is not an emit value fails the run, naming
// the router, the answer and the declared values (CrewAI drops it).
func TestTemplateResearchReviewRejectsUnknownRoute(t *testing.T) {
	def := loadValid(t, "template_research_review.yaml")
	model := fake.New(
		fake.Reply{Match: `You are Follow-up router\.`, Text: "maybe later"},
		fake.Reply{Text: "text"},
	)
	_, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, nil)
	require.Error(t, err)
	var me *flow.MethodError
	require.True(t, errors.As(err, &me))
	assert.Equal(t, "route_followup", me.Method)
	assert.Contains(t, err.Error(), `"maybe later"`)
	assert.Contains(t, err.Error(), "followup")
}

// An agent with a response_schema (a Troupe extension) answers with JSON
// that later methods read as outputs.m.pydantic.
func TestAgentResponseSchemaFillsPydantic(t *testing.T) {
	def, err := flow.Parse([]byte(`schema: crewai.flow/v1
name: Classify
methods:
  classify:
    start: true
    do:
      call: agent
      with:
        role: Classifier
        goal: Classify tickets
        backstory: Careful.
        input: "${state.ticket}"
        response_schema:
          type: object
          properties:
            category: {type: string, enum: [billing, shipping]}
            urgent: {type: boolean}
          required: [category, urgent]
  route:
    listen: classify
    router: true
    emit: [escalate, queue]
    do: {call: expression, expr: "outputs.classify.pydantic.urgent ? 'escalate' : 'queue'"}
  page:
    listen: escalate
    do: {call: expression, expr: "'page ' + outputs.classify.pydantic.category"}
`), "")
	require.NoError(t, err)
	model := fake.New(fake.Reply{JSON: map[string]any{"category": "billing", "urgent": true}})
	res, err := flow.NewEngine(flow.WithLLM(model)).Run(context.Background(), def, map[string]any{"ticket": "Charged twice"})
	require.NoError(t, err)
	assert.Equal(t, "page billing", res.Output)
	m := res.Outputs["classify"].(map[string]any)
	assert.Equal(t, map[string]any{"category": "billing", "urgent": true}, m["pydantic"])
	assert.JSONEq(t, `{"category":"billing","urgent":true}`, m["raw"].(string))
	reqs := model.Requests()
	require.Len(t, reqs, 1)
	_, user := prompts(t, reqs[0])
	assert.Contains(t, user, `"enum":["billing","shipping"]`, "the schema is in the prompt")
}
