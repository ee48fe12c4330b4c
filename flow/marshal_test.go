package flow

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const validCorpus = "../../shared/conformance/crewai/valid"

// bare returns the parts of a definition that its document carries,
// leaving out where it came from and what the loader said about it.
func bare(d *Definition) *Definition {
	return &Definition{
		Schema: d.Schema, Name: d.Name, Description: d.Description, State: d.State,
		Config: d.Config, Persist: d.Persist, Conversational: d.Conversational, Methods: d.Methods,
	}
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(validCorpus); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", validCorpus, err)
	}
	var files []string
	for _, pattern := range []string{"*.yaml", "*.json", "*/flow.yaml"} {
		m, err := filepath.Glob(filepath.Join(validCorpus, pattern))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	return files
}

func TestRoundTripConformance(t *testing.T) {
	for _, file := range corpusFiles(t) {
		name := strings.TrimPrefix(file, validCorpus+"/")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			want, err := Parse(data, name)
			require.NoError(t, err)
			for _, format := range []string{"yaml", "json"} {
				var out []byte
				if format == "yaml" {
					out, err = want.YAML()
				} else {
					out, err = want.JSON()
				}
				require.NoError(t, err)
				got, err := Parse(out, name+"."+format)
				require.NoError(t, err, "%s output:\n%s", format, out)
				assert.Equal(t, bare(want), bare(got), "%s output:\n%s", format, out)
			}
		})
	}
}

func TestJSONOutputIsJSON(t *testing.T) {
	for _, file := range corpusFiles(t) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		def, err := Parse(data, file)
		require.NoError(t, err)
		out, err := def.JSON()
		require.NoError(t, err)
		assert.True(t, json.Valid(out), "%s:\n%s", file, out)
	}
}

// awkward are strings a YAML or JSON writer can easily get wrong.
var awkward = []string{
	"yes", "No", "ON", "off", "true", "False", "y", "n", "1", "-1", "0x1F", "0o17", "017", "1_000", "1:30",
	"+1", "1.5", ".5", "1e3", "1.0e+3", ".inf", "-.Inf", ".NaN", "~", "null", "Null", "", "2024-01-01",
	"2024-01-01 10:00:00", "<<", "=", " lead", "trail ", "a\nb", "a\n", "\n", "a\n\n", "  indented\nnext",
	"tab\there", "#hash", "a #b", "- dash", "key: value", "ends:", "{x}", "[x]", "!tag", "&anchor", "*alias",
	"%pct", "@at", "`tick", "'", "\"", "a'b\"c", "'quoted'", "é", "\x7f", "\u0085", "\ufeff", "😀",
	"? q", "| bar", "> gt", "\r\n", "a\rb", "\x00nul", "${state.topic}", "${'a' + \"b\"}",
	strings.Repeat("a long sentence that goes past eighty columns ", 4),
}

func TestRoundTripAwkwardStrings(t *testing.T) {
	for _, s := range awkward {
		data := map[string]any{"s": s, s: []any{s, int64(1)}}
		def := &Definition{
			Schema: SchemaV1, Name: s, Description: s,
			State:  &StateSpec{Type: "dict", Default: data},
			Config: Config{MaxMethodCalls: DefaultMaxMethodCalls},
			Methods: []*Method{
				{Name: "begin", Description: s, Start: Start{Always: true}, Do: &Action{Call: CallScript, Code: s, Language: "python"}},
				{Name: "next", Listen: Or(On(s), On("begin")), Router: true, Emit: []string{s},
					Do: &Action{Call: CallTool, Ref: s, With: data}},
			},
		}
		for _, format := range []string{"yaml", "json"} {
			out, err := marshalAs(def, format)
			require.NoError(t, err, "%q", s)
			got, diags := Check(out, "")
			require.False(t, diags.HasErrors(), "%q in %s: %v\n%s", s, format, diags, out)
			assert.Equal(t, bare(def), bare(got), "%q in %s:\n%s", s, format, out)
		}
	}
}

func TestRoundTripNumbers(t *testing.T) {
	values := []any{
		int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64 + 1),
		0.0, math.Copysign(0, -1), 1.0, -2.5, 1e20, 1e21, 1.5e-7, 123456789.125, math.MaxFloat64,
		math.SmallestNonzeroFloat64, true, false, nil, []any{}, map[string]any{},
	}
	for _, v := range values {
		def := &Definition{Schema: SchemaV1, Name: "Numbers", Config: Config{MaxMethodCalls: DefaultMaxMethodCalls},
			Methods: []*Method{{Name: "m", Start: Start{Always: true}, Do: Code("app:m", map[string]any{"v": v})}}}
		for _, format := range []string{"yaml", "json"} {
			out, err := marshalAs(def, format)
			require.NoError(t, err)
			got, err := Parse(out, "")
			require.NoError(t, err, "%s", out)
			assert.Equal(t, v, got.Methods[0].Do.With["v"], "%#v in %s:\n%s", v, format, out)
		}
	}
}

func marshalAs(def *Definition, format string) ([]byte, error) {
	if format == "json" {
		return def.JSON()
	}
	return def.YAML()
}

func TestMarshalGolden(t *testing.T) {
	def := &Definition{
		Schema: SchemaV1, Name: "Review", Description: "Drafts and routes.",
		State:  &StateSpec{Type: "dict", Default: map[string]any{"topic": "AI", "tries": int64(0)}},
		Config: Config{MaxMethodCalls: 5, Stream: true},
		Methods: []*Method{
			{Name: "draft", Start: Start{Always: true}, Do: Expr(`"draft about " + state.topic`)},
			{Name: "review", Listen: On("draft"), Router: true, Emit: []string{"ok", "yes"},
				Do: Expr(`size(outputs.draft) > 10 ? "ok" : "yes"`)},
			{Name: "publish", Description: "Ships it.", Listen: Or(On("ok"), And(On("yes"), On("draft"))),
				Persist: &Persist{Enabled: true}, Do: Code("app:publish", map[string]any{"text": "${outputs.draft}", "n": 1.0})},
		},
	}
	wantYAML := `schema: crewai.flow/v1
name: Review
description: Drafts and routes.
state:
  type: dict
  default:
    topic: AI
    tries: 0
config:
  stream: true
  max_method_calls: 5
methods:
  draft:
    start: true
    do:
      call: expression
      expr: '"draft about " + state.topic'
  review:
    listen: draft
    router: true
    emit: [ok, "yes"]
    do:
      call: expression
      expr: 'size(outputs.draft) > 10 ? "ok" : "yes"'
  publish:
    description: Ships it.
    listen: {or: [ok, {and: ["yes", draft]}]}
    persist:
      enabled: true
    do:
      call: code
      ref: app:publish
      with:
        n: 1.0
        text: ${outputs.draft}
`
	wantJSON := `{
  "schema": "crewai.flow/v1",
  "name": "Review",
  "description": "Drafts and routes.",
  "state": {
    "type": "dict",
    "default": {
      "topic": "AI",
      "tries": 0
    }
  },
  "config": {
    "stream": true,
    "max_method_calls": 5
  },
  "methods": {
    "draft": {
      "start": true,
      "do": {
        "call": "expression",
        "expr": "\"draft about \" + state.topic"
      }
    },
    "review": {
      "listen": "draft",
      "router": true,
      "emit": [
        "ok",
        "yes"
      ],
      "do": {
        "call": "expression",
        "expr": "size(outputs.draft) > 10 ? \"ok\" : \"yes\""
      }
    },
    "publish": {
      "description": "Ships it.",
      "listen": {
        "or": [
          "ok",
          {
            "and": [
              "yes",
              "draft"
            ]
          }
        ]
      },
      "persist": {
        "enabled": true
      },
      "do": {
        "call": "code",
        "ref": "app:publish",
        "with": {
          "n": 1.0,
          "text": "${outputs.draft}"
        }
      }
    }
  }
}
`
	y, err := def.YAML()
	require.NoError(t, err)
	assert.Equal(t, wantYAML, string(y))
	j, err := def.JSON()
	require.NoError(t, err)
	assert.Equal(t, wantJSON, string(j))

	viaJSON, err := json.Marshal(def)
	require.NoError(t, err)
	assert.JSONEq(t, wantJSON, string(viaJSON))
	viaYAML, err := yaml.Marshal(def)
	require.NoError(t, err)
	assert.YAMLEq(t, wantYAML, string(viaYAML))
}

func TestMarshalRejectsGoFunctionBodies(t *testing.T) {
	fn := func(context.Context, Input) (any, error) { return nil, nil }
	tests := []struct {
		name    string
		method  *Method
		wantErr string
	}{
		{"method body", &Method{Name: "work", Start: Start{Always: true}, Do: Go(fn)},
			"methods.work.do: the body is a Go function"},
		{"each step", &Method{Name: "loop", Start: Start{Always: true}, Do: Each("state.rows", NewStep("row", Go(fn)))},
			"methods.loop.do.do[0].action: the body is a Go function"},
		{"unsupported data", &Method{Name: "work", Start: Start{Always: true}, Do: Code("app:work", map[string]any{"ch": []any{make(chan int)}})},
			"methods.work.do.with.ch[0]: a chan int is not JSON data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := &Definition{Name: "F", Methods: []*Method{tt.method}}
			for _, format := range []string{"yaml", "json"} {
				_, err := marshalAs(def, format)
				require.ErrorIs(t, err, ErrNotSerializable)
				assert.ErrorContains(t, err, tt.wantErr)
			}
		})
	}
}

func TestMarshalKeepsGoFunctionWithRef(t *testing.T) {
	a := Go(func(context.Context, Input) (any, error) { return "ok", nil })
	a.Ref = "app:work"
	def := &Definition{Name: "F", Config: Config{MaxMethodCalls: DefaultMaxMethodCalls},
		Methods: []*Method{{Name: "work", Start: Start{Always: true}, Do: a}}}
	out, err := def.YAML()
	require.NoError(t, err)
	got, err := Parse(out, "")
	require.NoError(t, err)
	assert.Equal(t, "app:work", got.Methods[0].Do.Ref)
	assert.Nil(t, got.Methods[0].Do.Func)
}

func TestMarshalPreservesEmptyVersusAbsent(t *testing.T) {
	src := `name: F
methods:
  run:
    start: true
    emit: []
    do:
      call: crew
      with:
        agents: {a: {role: R, goal: G, backstory: B, llm: {model: m, max_tokens: 5, temperature: 0.5}, custom: x}}
        tasks:
          - {description: one, expected_output: out, name: t1, context: []}
          - {description: two, expected_output: out, extra_key: [1, 2]}
        verbose: true
      inputs: {}
`
	want, diags := Check([]byte(src), "")
	require.False(t, diags.HasErrors(), "%v", diags)
	for _, format := range []string{"yaml", "json"} {
		out, err := marshalAs(want, format)
		require.NoError(t, err)
		got, err := Parse(out, "")
		require.NoError(t, err, "%s", out)
		assert.Equal(t, bare(want), bare(got), "%s", out)
		m := got.Methods[0]
		assert.NotNil(t, m.Emit)
		assert.NotNil(t, m.Do.Inputs)
		assert.Equal(t, []string{}, m.Do.Crew.Tasks[0].Context)
		assert.Nil(t, m.Do.Crew.Tasks[1].Context)
		assert.Equal(t, map[string]any{"temperature": 0.5}, m.Do.Crew.Agents[0].LLM.Settings)
		assert.Equal(t, map[string]any{"custom": "x"}, m.Do.Crew.Agents[0].Extra)
	}
}

func benchDefinition(b *testing.B) *Definition {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(validCorpus, "template_research_review.yaml"))
	if err != nil {
		b.Skipf("conformance corpus not found: %v", err)
	}
	def, err := Parse(data, "")
	require.NoError(b, err)
	return def
}

func BenchmarkYAML(b *testing.B) {
	def := benchDefinition(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := def.YAML(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	def := benchDefinition(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := def.JSON(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPlainIsNotStringAgreesWithLoader(t *testing.T) {
	words := []string{"null", "Null", "NULL", "nULL", "yes", "Yes", "YES", "yEs", "no", "No", "NO", "nO", "true",
		"True", "TRUE", "tRUE", "false", "False", "FALSE", "on", "On", "ON", "oN", "off", "Off", "OFF", "y", "n",
		"t", "f", "nan", "inf", "None", "e3", "x1", "1", "-1", ".5", "~", "2024-01-01", "0b1", "a", "Z"}
	for _, w := range words {
		_, isStr := resolveScalar(&yaml.Node{Kind: yaml.ScalarNode, Value: w}).(string)
		assert.Equal(t, !isStr, plainIsNotString(w), "%q", w)
	}
}
