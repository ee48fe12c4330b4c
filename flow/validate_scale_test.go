package flow_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/troupe-dev/troupe/flow"
)

// unresolvedDefinition writes a chain of n methods in which every method
// reads the output of a method that does not exist and listens to an event
// no method emits: the worst case for the unknown-name warnings, which
// suggest a close name for each.
func unresolvedDefinition(n int) []byte {
	var b strings.Builder
	b.WriteString("name: Unresolved\nmethods:\n")
	for i := range n {
		trigger := "start: true"
		if i > 0 {
			trigger = fmt.Sprintf("listen: {or: [m%d, e%d]}", i-1, i)
		}
		fmt.Fprintf(&b, "  m%d: {%s, do: {call: expression, expr: outputs.x%d}}\n", i, trigger, i)
	}
	return []byte(b.String())
}

// BenchmarkValidate10000 loads a definition of 10,000 methods, each with
// an unresolved outputs reference and an unknown listen event.
func BenchmarkValidate10000(b *testing.B) {
	data := unresolvedDefinition(10000)
	b.ReportAllocs()
	for b.Loop() {
		def, ds := flow.Check(data, "big.yaml")
		if def == nil || ds.HasErrors() || len(ds) < 19999 {
			b.Fatalf("want 19,999 warnings and no error, got %d diagnostics: %v", len(ds), ds.Errors())
		}
	}
}

// TestValidateScalesLinearly checks that the work of loading grows in
// proportion to the definition, by counting allocations (not time): four
// times the methods, each with an unresolved name, may cost about four
// times as much, never sixteen.
func TestValidateScalesLinearly(t *testing.T) {
	allocs := func(n int) float64 {
		data := unresolvedDefinition(n)
		return testing.AllocsPerRun(1, func() {
			if _, ds := flow.Check(data, "big.yaml"); ds.HasErrors() {
				t.Fatal(ds)
			}
		})
	}
	small, large := allocs(500), allocs(2000)
	if ratio := large / small; ratio > 6 {
		t.Fatalf("4x the methods took %.1fx the allocations (%.0f, then %.0f): validation is not linear", ratio, small, large)
	}
}
