package flow

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/cel"
)

// checkSimple fails when the fast path accepts a text the CEL checker
// rejects, or reads other outputs than the CEL parser finds.
func checkSimple(t *testing.T, text string, full bool, roots []string) bool {
	t.Helper()
	j := celJob{path: "p", text: text, roots: roots, full: full}
	outputs, ok := j.simple()
	if !ok {
		return false
	}
	var problems []cel.Problem
	var want []string
	if full {
		problems, want = cel.CheckExpr("p", text, roots), cel.ExprOutputs(text)
	} else {
		problems, want = cel.CheckTemplate("p", text, roots), cel.TemplateOutputs(text)
	}
	if len(problems) > 0 {
		t.Fatalf("fast path accepts %q (full=%v) but CEL reports %v", text, full, problems)
	}
	slices.Sort(outputs)
	if len(want) > 0 || len(outputs) > 0 {
		assert.Equal(t, want, outputs, "outputs read by %q", text)
	}
	return true
}

func TestSimpleCELAgreesWithTheParser(t *testing.T) {
	tests := []struct {
		text   string
		full   bool
		simple bool
	}{
		{"state.topic", true, true},
		{" ${ outputs.research.raw } ", true, true},
		{"item", true, false},
		{"state.in", true, false},
		{"state.topic + 'x'", true, false},
		{"nope.x", true, false},
		{"", true, false},
		{"Hi ${state.name}, see ${outputs.a} and ${outputs.b.c}", false, true},
		{"no templates at all", false, true},
		{"${}", false, false},
		{"${state.a", false, false},
		{"${state.a[0]}", false, false},
		{"${item.x}", false, false},
		{"$5 and ${state.price}", false, true},
	}
	for _, tt := range tests {
		got := checkSimple(t, tt.text, tt.full, baseRoots)
		assert.Equal(t, tt.simple, got, tt.text)
	}
	assert.True(t, checkSimple(t, "${item.x}", false, stepRoots))
}

func FuzzSimpleCEL(f *testing.F) {
	for _, s := range []string{"state.topic", "${outputs.a.b}", "a ${state.x} b ${outputs.y}", "${ state . x }", "state.true"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkSimple(t, text, true, baseRoots)
		checkSimple(t, text, false, stepRoots)
	})
}
