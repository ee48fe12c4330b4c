package flow_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// check parses src and returns its diagnostics; it fails the test when the
// loader returns an error that is not a Diagnostics.
func check(t *testing.T, src string) (*flow.Definition, flow.Diagnostics) {
	t.Helper()
	return flow.Check([]byte(src), "flow.yaml")
}

// find returns the first diagnostic with the given path and code.
func find(ds flow.Diagnostics, path, code string) (flow.Diagnostic, bool) {
	for _, d := range ds {
		if d.Path == path && d.Code == code {
			return d, true
		}
	}
	return flow.Diagnostic{}, false
}

func TestDiagnosticPathsUseCrewAIForm(t *testing.T) {
	src := `
name: Paths
methods:
  agent_m:
    start: true
    do:
      call: agent
      with: {role: r, input: "${bad1}"}
  tool_m:
    listen: agent_m
    do:
      call: tool
      ref: pkg:Tool
      with: {k: [x, {deep: "${bad2}"}]}
  crew_m:
    listen: tool_m
    do:
      call: crew
      with:
        agents: {a: {role: r, goal: g, backstory: b}}
        tasks: [{description: d, expected_output: o}]
        inputs: {topic: "${bad3}"}
      inputs: {extra: "${bad4}"}
  each_m:
    listen: crew_m
    do:
      call: each
      in: ${bad5}
      do:
        - name: s
          if: bad6
          action: {call: code, ref: pkg:fn, with: {v: "${bad7}"}}
  expr_m:
    listen: each_m
    do: {call: expression, expr: bad8}
`
	_, ds := check(t, src)
	want := []string{
		"methods.agent_m.do.with.input",
		"methods.tool_m.do.with.k[1].deep",
		"methods.crew_m.do.with.inputs.topic",
		"methods.crew_m.do.inputs.extra",
		"methods.each_m.do.in",
		"methods.each_m.do.do[0].if",
		"methods.each_m.do.do[0].action.with.v",
		"methods.expr_m.do.expr",
	}
	var got []string
	for _, d := range ds.Errors() {
		assert.Equal(t, "cel_unknown_root", d.Code, d.String())
		assert.Contains(t, d.Message, "unknown CEL root at "+d.Path+": ")
		got = append(got, d.Path)
	}
	assert.Equal(t, want, got)
}

func TestYAML11Scalars(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  any
	}{
		{"octal", "012", int64(10)},
		{"hex", "0x1F", int64(31)},
		{"binary", "0b101", int64(5)},
		{"underscores", "1_000", int64(1000)},
		{"sexagesimal", "190:20:30", int64(685230)},
		{"not octal", "08", "08"},
		{"exponent without dot is text", "1e5", "1e5"},
		{"float with signed exponent", "1.0e+5", 1e5},
		{"float keeps its kind", "1.0", 1.0},
		{"int keeps its kind", "1", int64(1)},
		{"yes", "yes", true},
		{"Off", "Off", false},
		{"y is text", "y", "y"},
		{"tilde", "~", nil},
		{"quoted yes", `"yes"`, "yes"},
		{"quoted number", `'012'`, "012"},
		{"explicit str tag", "!!str 12", "12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: F\nmethods:\n  m:\n    start: true\n    do: {ref: 'a:b', with: {v: " + tt.value + "}}\n"
			def, err := flow.Parse([]byte(src), "")
			require.NoError(t, err)
			assert.Equal(t, tt.want, def.Methods[0].Do.With["v"])
		})
	}
	t.Run("infinity", func(t *testing.T) {
		def, err := flow.Parse([]byte("name: F\nmethods:\n  m: {start: true, do: {ref: 'a:b', with: {v: -.inf}}}\n"), "")
		require.NoError(t, err)
		assert.True(t, math.IsInf(def.Methods[0].Do.With["v"].(float64), -1))
	})
}

func TestStartFollowsYAML11Booleans(t *testing.T) {
	tests := []struct {
		start  string
		always bool
		when   string
	}{
		{"yes", true, ""},
		{"On", true, ""},
		{"true", true, ""},
		{"1", true, ""},
		{`"yes"`, false, "yes"},
		{`"true"`, false, "true"},
		{"begin", false, "begin"},
		{"no", false, ""},
		{`""`, false, ""},
		{"null", false, ""},
		{"{}", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.start, func(t *testing.T) {
			src := "name: F\nmethods:\n  begin: {start: true, do: {call: expression, expr: '1'}}\n  m: {start: " + tt.start + ", do: {call: expression, expr: '1'}}\n"
			def, ds := check(t, src)
			require.False(t, ds.HasErrors(), "%v", ds)
			m := def.Method("m")
			assert.Equal(t, tt.always, m.Start.Always)
			if tt.when == "" {
				assert.Nil(t, m.Start.When)
			} else {
				require.NotNil(t, m.Start.When)
				assert.Equal(t, tt.when, m.Start.When.Event)
			}
		})
	}
}

func TestLaxFieldCoercion(t *testing.T) {
	src := "name: F\nconfig: {max_method_calls: '7', stream: 'yes', suppress_flow_events: 1}\nmethods:\n  m: {start: true, router: 'on', emit: [a], do: {call: expression, expr: \"'a'\"}}\n  n: {listen: a, do: {call: expression, expr: '1'}}\n"
	def, err := flow.Parse([]byte(src), "")
	require.NoError(t, err)
	assert.Equal(t, 7, def.Config.MaxMethodCalls)
	assert.True(t, def.Config.Stream)
	assert.True(t, def.Config.SuppressFlowEvents)
	assert.True(t, def.Method("m").Router)
}

func TestEmptyDocuments(t *testing.T) {
	for _, src := range []string{"", "  \n\t\n"} {
		_, err := flow.Parse([]byte(src), "x.yaml")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Flow declaration contents are empty")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "empty.yaml")
	require.NoError(t, os.WriteFile(path, []byte(" \n"), 0o600))
	_, err := flow.Load(path)
	require.Error(t, err)
	abs, _ := filepath.Abs(path)
	assert.Contains(t, err.Error(), "Flow declaration file is empty: "+abs)
}

func TestLoadMissingFile(t *testing.T) {
	_, err := flow.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	var ds flow.Diagnostics
	require.ErrorAs(t, err, &ds)
	assert.Equal(t, "read_error", ds[0].Code)
	assert.Contains(t, err.Error(), "no such file")
}

func TestLoadSetsSourceAndDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")
	require.NoError(t, os.WriteFile(path, []byte("name: F\n"), 0o600))
	def, err := flow.Load(path)
	require.NoError(t, err)
	assert.Equal(t, path, def.Source)
	abs, _ := filepath.Abs(dir)
	assert.Equal(t, abs, def.Dir)
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	src := `
schema: crewai.flow/v9
methods:
  bad-name:
    start: true
    do: {call: expression, expr: state.x}
  a:
    start: true
    do: {call: expression, expr: "nope"}
  b:
    listen: b
    do: {call: tool}
  c:
    listen: a
    do:
      call: each
      in: state.rows
      do: []
  d:
    listen: {any: [a]}
    do: {call: script}
`
	_, ds := check(t, src)
	codes := map[string]bool{}
	for _, d := range ds.Errors() {
		codes[d.Code] = true
		assert.Positive(t, d.Line, d.String())
	}
	for _, c := range []string{"literal_error", "missing", "method_name", "cel_unknown_root", "self_listen", "each_empty", "condition_shape"} {
		assert.True(t, codes[c], "missing %s in\n%v", c, ds)
	}
	// missing: name, b.do.ref, d.do.code
	n := 0
	for _, d := range ds.Errors() {
		if d.Code == "missing" {
			n++
		}
	}
	assert.Equal(t, 3, n, "%v", ds)
	for i := 1; i < len(ds); i++ {
		assert.LessOrEqual(t, ds[i-1].Line, ds[i].Line, "diagnostics are sorted by line")
	}
}

func TestNoProblemIsReportedTwice(t *testing.T) {
	tests := []string{
		"name: F\nmethods:\n  a: {start: true, do: {call: tool}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: crew, with: 5}}\n",
		"name: F\nmethods:\n  a: {start: true, do: {call: expression, expr: '1'}}\n  b: {listen: 5, do: {call: expression, expr: '1'}}\n",
	}
	for _, src := range tests {
		_, ds := check(t, src)
		assert.Len(t, ds, 1, "%s\n%v", src, ds)
	}
}

func TestDiagnosticFormat(t *testing.T) {
	d := flow.Diagnostic{File: "f.yaml", Line: 3, Column: 7, Path: "methods.m.do", Severity: flow.SeverityError, Code: "x", Message: "boom"}
	assert.Equal(t, "f.yaml:3:7: error: methods.m.do: boom", d.String())
	w := flow.Diagnostic{Severity: flow.SeverityWarning, Message: "hm"}
	assert.Equal(t, "warning: hm", w.String())
	assert.Equal(t, "2:5: warning: hm", flow.Diagnostic{Line: 2, Column: 5, Severity: flow.SeverityWarning, Message: "hm"}.String())
	assert.Equal(t, "f.yaml: error: gone", flow.Diagnostic{File: "f.yaml", Message: "gone"}.String())
	assert.Equal(t, "flow: f.yaml:3:7: error: methods.m.do: boom", flow.Diagnostics{d}.Error())
	multi := flow.Diagnostics{d, w}.Error()
	assert.True(t, strings.HasPrefix(multi, "flow: 2 problems:\n"), multi)
	assert.True(t, flow.Diagnostics{w, d}.HasErrors())
	assert.False(t, flow.Diagnostics{w}.HasErrors())
}

func TestHostileDocumentsAreBounded(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		laughs += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	_, ds := check(t, laughs)
	require.True(t, ds.HasErrors())
	assert.Contains(t, ds.Error(), "too many nodes")

	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	_, ds = check(t, "name: F\nx: "+deep+"\n")
	require.True(t, ds.HasErrors())
}

func TestMergeKeys(t *testing.T) {
	src := `
name: Merged
base: &base
  start: true
  do: {call: expression, expr: state.x}
methods:
  a:
    <<: *base
  b:
    listen: a
    <<: *base
    start: false
  c:
    <<: [{listen: b}, {listen: a, router: true, emit: [x]}]
    do: {call: expression, expr: "'x'"}
`
	def, ds := check(t, src)
	require.False(t, ds.HasErrors(), "%v", ds)
	for _, w := range def.Warnings {
		assert.NotEqual(t, "duplicate_key", w.Code, "a key written over a merged one is no duplicate: %v", w)
	}
	a, b, c := def.Method("a"), def.Method("b"), def.Method("c")
	assert.True(t, a.Start.Always)
	assert.Equal(t, "state.x", a.Do.Expr)
	assert.False(t, b.IsStart(), "keys written in the mapping win over merged ones")
	assert.Equal(t, "b", c.Listen.Event, "earlier merge sources win")
	assert.True(t, c.Router)
}

func ExampleParse() {
	def, err := flow.Parse([]byte(`
schema: crewai.flow/v1
name: Greeter
state: {type: dict, default: {name: Ada}}
methods:
  greet:
    start: true
    do: {call: expression, expr: "'Hello, ' + state.name"}
`), "greeter.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(def.Name, def.Methods[0].Name, def.Methods[0].Do.Expr)
	// Output: Greeter greet 'Hello, ' + state.name
}

func ExampleCheck() {
	_, diags := flow.Check([]byte(`
name: Broken
methods:
  greet:
    start: true
    do: {call: expression, expr: nme}
  typo:
    listen: gret
    do: {call: expression, expr: "1"}
`), "broken.yaml")
	for _, d := range diags {
		fmt.Printf("%s:%d:%d %s %s [%s]\n", d.File, d.Line, d.Column, d.Severity, d.Path, d.Code)
	}
	// Output:
	// broken.yaml:6:34 error methods.greet.do.expr [cel_unknown_root]
	// broken.yaml:7:3 warning methods.typo [unreachable]
	// broken.yaml:8:5 warning methods.typo.listen [unknown_event]
}

func TestDiagnosticsRoundTripThroughJSON(t *testing.T) {
	_, ds := check(t, "name: F\nmethods:\n  a: {start: true, emit: [x], do: {call: expression, expr: nope}}\n")
	require.Len(t, ds, 2)
	raw, err := json.Marshal(ds)
	require.NoError(t, err)
	var back flow.Diagnostics
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, ds, back)
	assert.Error(t, json.Unmarshal([]byte(`[{"severity": "fatal"}]`), &back))
}

func TestInt64BoundsLoadAsIntegers(t *testing.T) {
	def, ds := check(t, "name: F\nstate: {type: dict, default: {max: 9223372036854775807, min: -9223372036854775808, hex: 0x7fffffffffffffff, quoted: '9223372036854775808'}}\n")
	require.False(t, ds.HasErrors(), "%v", ds)
	assert.Equal(t, map[string]any{"max": int64(math.MaxInt64), "min": int64(math.MinInt64), "hex": int64(math.MaxInt64), "quoted": "9223372036854775808"}, def.State.Default)
}

// A string that reads as a too-large integer is quoted when written back,
// so that the written definition loads again.
func TestOutOfRangeIntegerTextRoundTrips(t *testing.T) {
	def, ds := check(t, "name: F\nstate: {type: dict, default: {n: '99999999999999999999'}}\nmethods:\n  a: {start: true, do: {call: expression, expr: state.n}}\n")
	require.False(t, ds.HasErrors(), "%v", ds)
	out, err := def.YAML()
	require.NoError(t, err)
	again, ds := check(t, string(out))
	require.False(t, ds.HasErrors(), "%s\n%v", out, ds)
	assert.Equal(t, "99999999999999999999", again.State.Default["n"])
}

// One large anchored string aliased many times expands to far more than
// the document; loading stops at the alias that crosses the limit.
func TestAliasExpansionIsBoundedInBytes(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	var b strings.Builder
	b.WriteString("name: F\nstate:\n  type: dict\n  default:\n    s: &s " + big + "\n    copies:\n")
	const aliasLine = 7 // the line of the first "- *s"
	for range 1000 {
		b.WriteString("      - *s\n")
	}
	data := []byte(b.String())
	// Each alias copies the string plus one byte for its node.
	limit := max(flow.DefaultMaxAliasBytes, 10*len(data))
	crossing := limit/(len(big)+1) + 1

	_, ds := flow.Check(data, "f.yaml")
	require.Len(t, ds, 1, "%v", ds)
	d := ds[0]
	assert.Equal(t, "too_large", d.Code)
	assert.Equal(t, flow.SeverityError, d.Severity)
	assert.Equal(t, [2]int{aliasLine + crossing - 1, 9}, [2]int{d.Line, d.Column})
	assert.Contains(t, d.Message, fmt.Sprint(limit))
	assert.Contains(t, d.Message, "flow.WithMaxAliasBytes")

	_, err := flow.Parse(data, "f.yaml", flow.WithMaxAliasBytes(-1))
	assert.NoError(t, err, "no byte limit")
}

func TestWithMaxAliasBytes(t *testing.T) {
	src := "name: F\nstate: {type: dict, default: {a: &a [one, two], b: *a}}\n"
	tests := []struct {
		name string
		opts []flow.LoadOption
		ok   bool
	}{
		{"default", nil, true},
		{"enough", []flow.LoadOption{flow.WithMaxAliasBytes(9)}, true},
		{"too little", []flow.LoadOption{flow.WithMaxAliasBytes(8)}, false},
		{"no limit", []flow.LoadOption{flow.WithMaxAliasBytes(-1)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The alias copies a list and two strings: 1 + 4 + 4 bytes.
			_, ds := flow.Check([]byte(src), "f.yaml", tt.opts...)
			if tt.ok {
				assert.Empty(t, ds)
				return
			}
			require.Len(t, ds, 1)
			assert.Equal(t, "too_large", ds[0].Code)
			assert.Equal(t, [2]int{2, 52}, [2]int{ds[0].Line, ds[0].Column})
		})
	}
}
