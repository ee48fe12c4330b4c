package cel

import (
	"context"
	"testing"
)

func FuzzCompileTemplate(f *testing.F) {
	for _, s := range []string{
		"", "plain", "${state.x}", "a ${'}'} b", "${ {'k': 'v'}.k }", "${'${'}x", "cost ${state.a",
		"${}", "${r'\\'}", "${'''a}'''}", "${a.`b`}", "${x // }\n}", "$$${{{}}}", "${é}",
	} {
		f.Add(s)
	}
	env, err := NewEnv()
	if err != nil {
		f.Fatal(err)
	}
	vars := &Vars{State: map[string]any{"x": int64(1), "a": "s"}, Outputs: map[string]any{}}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := env.CompileTemplate(s)
		problems := CheckTemplate("p", s, []string{RootOutputs, RootState})
		if err != nil {
			if _, ok := err.(*CompileError); !ok {
				t.Fatalf("error of type %T", err)
			}
			if len(problems) == 0 {
				t.Fatalf("CompileTemplate failed (%v) but CheckTemplate found nothing", err)
			}
			return
		}
		for _, p := range problems {
			if p.Offset < 0 || p.Offset > len(s) {
				t.Fatalf("offset %d out of range for %q", p.Offset, s)
			}
		}
		_, _ = tmpl.Render(context.Background(), vars)
	})
}

func FuzzCheckExpr(f *testing.F) {
	for _, s := range []string{
		"", "state.x", "${ outputs.a }", "state.", "a.all(x, x > b)", "{'a': 1}.a", "m.all(k, v, k == v)",
		"Foo{a: 1}", ".state", "'é' + x", "1 +\n y",
		"state.x.upper()", "int('abc') + state.y", "state.s.matches('(')", "1 ? state.a : 'b'", "state.x * 'a'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range CheckExpr("p", s, []string{RootOutputs, RootState}) {
			if p.Offset < 0 || p.Offset > len(s) {
				t.Fatalf("offset %d out of range for %q", p.Offset, s)
			}
			if p.Code == "" || p.Message == "" {
				t.Fatalf("incomplete problem %+v", p)
			}
		}
	})
}
