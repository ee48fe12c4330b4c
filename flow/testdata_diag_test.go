package flow_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// A wantDiag is one line of a .want file under testdata/diagnostics:
//
//	LINE:COL: SEVERITY: CODE PATH[: MESSAGE SUBSTRING]
//
// such as "4:7: warning: unknown_event methods.h.listen: did you mean
// "begin"?". PATH is "-" for a diagnostic without one. The substring runs
// to the end of the line, spaces included. Lines starting with # are
// comments, but for the line "# only": the document has no diagnostic
// besides those listed.
type wantDiag struct {
	line, col            int
	severity, code, path string
	message              string
}

func (w wantDiag) matches(d flow.Diagnostic) bool {
	return d.Line == w.line && d.Column == w.col && d.Severity.String() == w.severity &&
		d.Code == w.code && d.Path == w.path && strings.Contains(d.Message, w.message)
}

// readWant reads a .want file, reporting whether it says "# only"; a
// malformed line fails the test.
func readWant(t *testing.T, path string) (out []wantDiag, only bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if text == "# only" {
			only = true
			continue
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		w, ok := parseWant(text)
		require.True(t, ok, "%s:%d: want LINE:COL: SEVERITY: CODE PATH[: MESSAGE], got %q", path, n, text)
		out = append(out, w)
	}
	return out, only
}

func parseWant(text string) (wantDiag, bool) {
	var w wantDiag
	pos, rest, ok1 := strings.Cut(text, ": ")
	sev, rest, ok2 := strings.Cut(rest, ": ")
	lineText, colText, ok3 := strings.Cut(pos, ":")
	line, err1 := strconv.Atoi(lineText)
	col, err2 := strconv.Atoi(colText)
	if !ok1 || !ok2 || !ok3 || err1 != nil || err2 != nil {
		return w, false
	}
	code, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return w, false
	}
	path, msg, _ := strings.Cut(rest, ": ")
	if path == "-" {
		path = ""
	}
	return wantDiag{line: line, col: col, severity: sev, code: code, path: path, message: msg}, true
}

// TestDiagnosticsInTestdata checks each testdata/diagnostics/NAME.yaml
// against NAME.want: every line of the want file must match a diagnostic
// of the document (place, severity, code, path and a substring of the
// message). A want file with an error wants the document refused; one
// with only warnings, or empty, wants it accepted; "# only" wants no
// other diagnostic.
//
// The files came from the validator tables that held these documents as
// one-line strings; to add a case, write the document and the diagnostics
// you expect by hand, then run the test.
func TestDiagnosticsInTestdata(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("testdata", "diagnostics", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, doc := range docs {
		name := strings.TrimSuffix(filepath.Base(doc), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(doc)
			require.NoError(t, err)
			wants, only := readWant(t, strings.TrimSuffix(doc, ".yaml")+".want")
			source := filepath.Base(doc)
			_, ds := flow.Check(src, source)
			refused := false
			for _, w := range wants {
				refused = refused || w.severity == flow.SeverityError.String()
			}
			assert.Equal(t, refused, ds.HasErrors(), "%v", ds)
			if only {
				assert.Len(t, ds, len(wants), "%v", ds)
			}
			for _, d := range ds {
				if d.Code == "syntax" {
					// The parser's line numbers are unreliable: the
					// message drops them, the place replaces them.
					assert.NotContains(t, d.Message, "line ", d.String())
				}
			}
			for _, w := range wants {
				found := false
				for _, d := range ds {
					if w.matches(d) {
						found = true
						assert.Equal(t, source, d.File)
						break
					}
				}
				assert.True(t, found, "no diagnostic %+v in:\n%v", w, ds)
			}
		})
	}
}

func TestParseWant(t *testing.T) {
	tests := []struct {
		text string
		want wantDiag
		ok   bool
	}{
		{"8:7: error: extra_forbidden methods.m.do.then", wantDiag{8, 7, "error", "extra_forbidden", "methods.m.do.then", ""}, true},
		{`4:7: warning: unknown_event methods.h.listen: did you mean "begin"?`, wantDiag{4, 7, "warning", "unknown_event", "methods.h.listen", `did you mean "begin"?`}, true},
		{"1:83: error: cel_unknown_root methods.m.do.with.q:  at methods.m.do.with.q", wantDiag{1, 83, "error", "cel_unknown_root", "methods.m.do.with.q", " at methods.m.do.with.q"}, true},
		{"1:1: error: not_mapping -: Flow declaration", wantDiag{1, 1, "error", "not_mapping", "", "Flow declaration"}, true},
		{"error: missing name", wantDiag{}, false},
		{"x:1: error: missing name", wantDiag{}, false},
		{"1:1: error: missing", wantDiag{}, false},
	}
	for _, tt := range tests {
		got, ok := parseWant(tt.text)
		assert.Equal(t, tt.ok, ok, tt.text)
		if tt.ok {
			assert.Equal(t, tt.want, got, tt.text)
		}
	}
}
