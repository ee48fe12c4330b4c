package flow_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

// conformanceDir returns CrewAI's conformance corpus, from TROUPE_CONFORMANCE
// or ../../shared/conformance/crewai, skipping the test when it is absent.
func conformanceDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TROUPE_CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "conformance", "crewai")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		tb.Skipf("conformance corpus not found at %s (set TROUPE_CONFORMANCE to its crewai folder): %v", dir, err)
	}
	return dir
}

// conformanceFlows lists the flow definitions under dir: YAML and JSON
// files, not the JSONC crew files that some flows read.
func conformanceFlows(tb testing.TB, dir string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	require.NoError(tb, err)
	sort.Strings(files)
	return files
}

// strictWarnings lists the valid fixtures on which Troupe warns while
// CrewAI is silent, with the warning codes and the reason (DESIGN.md,
// "Where Troupe deliberately differs", point 3, unless said otherwise).
var strictWarnings = map[string]struct {
	codes  []string
	reason string
}{
	"listen_unknown_name_allowed.json": {[]string{"unknown_event", "unreachable"},
		"listen names no method and no declared event (the typo begni), so handle never runs"},
	"router_without_trigger.json": {[]string{"router_without_trigger"},
		"a router with neither start nor listen never runs"},
	"router_start_false_no_listen.json": {[]string{"router_without_trigger"},
		"start: false and no listen: the router never runs"},
	"route_labels.yaml": {[]string{"unknown_event", "unknown_event"},
		"the router decide returns left/right without declaring them in emit"},
	"round_trip_router.json": {[]string{"unknown_event"},
		"the router decide returns left without declaring it in emit"},
	"round_trip_router_yaml.yaml": {[]string{"unknown_event"},
		"the router decide returns left without declaring it in emit"},
	"loop_conditional_start.yaml": {[]string{"unknown_event", "unknown_event"},
		"the router decide returns retry/done without declaring them in emit"},
	"config_max_method_calls_loop.yaml": {[]string{"unknown_event", "unknown_event"},
		"the router decide returns retry/done without declaring them in emit"},
	"legacy_diagnostics_ignored.json": {[]string{"unknown_key"},
		"an unknown top-level key is ignored by both; Troupe says so, since it is usually a typo"},
}

func TestConformanceValid(t *testing.T) {
	dir := conformanceDir(t)
	files := conformanceFlows(t, filepath.Join(dir, "valid"))
	assert.Len(t, files, 118, "the manifest counts 118 valid fixtures")
	for _, path := range files {
		name := filepath.Base(path)
		if rel, _ := filepath.Rel(filepath.Join(dir, "valid"), path); strings.Contains(rel, string(filepath.Separator)) {
			name = rel
		}
		t.Run(name, func(t *testing.T) {
			def, err := flow.Load(path)
			require.NoError(t, err)
			require.NotNil(t, def)
			var codes []string
			for _, w := range def.Warnings {
				codes = append(codes, w.Code)
				assert.Positive(t, w.Line, w.String())
			}
			want := strictWarnings[name]
			assert.ElementsMatch(t, want.codes, codes, "warnings: %v", def.Warnings)
		})
	}
}

// invalidSubstrings overrides the manifest where its column is prose rather
// than one substring; every listed substring must appear in the error.
var invalidSubstrings = map[string][]string{
	"each_nested_each.json":              {"union_tag_invalid", "'code', 'tool', 'crew', 'agent', 'expression', 'script'"},
	"each_step_without_name_action.json": {"Field required", "extra_forbidden"},
	"method_without_do.json":             {"methods.begin.do", "Field required"},
	"unknown_schema_version.json":        {"schema", "Input should be 'crewai.flow/v1'"},
	"state_default_not_mapping.yaml":     {"default", "Input should be a valid dictionary"},
	"self_listen_string_router_false.json": {"listen condition 'publish' references the handler name 'publish'. " +
		"A listener triggered by its own completion creates an infinite loop. Listen to a different method or event, or rename the handler."},
	"self_listen_string_router_true.json": {"listen condition 'publish' references the handler name 'publish'. " +
		"A listener triggered by its own completion creates an infinite loop. Listen to a different method or event, or rename the handler."},
	"self_listen_or_router_false.json": {"listen condition {'or': ['publish', 'revise']} references the handler name 'publish'"},
	"self_listen_or_router_true.json":  {"listen condition {'or': ['publish', 'revise']} references the handler name 'publish'"},
	"cli_missing_name.yaml":            {"Field required"},
	"cli_list_document.yaml":           {"Flow declaration must contain a mapping"},
}

// manifestInvalid reads the invalid table of MANIFEST.md: file name to the
// expected substring (the text before " (" where the column adds notes).
func manifestInvalid(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.md"))
	require.NoError(t, err)
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `invalid/") {
			continue
		}
		cols := strings.Split(line, " | ")
		require.GreaterOrEqual(t, len(cols), 3, line)
		file := strings.Trim(strings.TrimPrefix(cols[0], "| "), "`")
		want, _, _ := strings.Cut(cols[1], " (")
		out[strings.TrimPrefix(file, "invalid/")] = strings.TrimSpace(want)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestConformanceInvalid(t *testing.T) {
	dir := conformanceDir(t)
	manifest := manifestInvalid(t, dir)
	files := conformanceFlows(t, filepath.Join(dir, "invalid"))
	require.Len(t, files, 37, "the manifest counts 37 invalid fixtures")
	require.Len(t, manifest, 37)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			want, ok := manifest[name]
			require.True(t, ok, "%s is not in MANIFEST.md", name)
			subs := invalidSubstrings[name]
			if subs == nil {
				subs = []string{want}
			}
			def, err := flow.Load(path)
			require.Error(t, err)
			assert.Nil(t, def)
			var ds flow.Diagnostics
			require.ErrorAs(t, err, &ds)
			for _, s := range subs {
				assert.Contains(t, ds.Error(), s)
			}
			for _, d := range ds.Errors() {
				assert.Positive(t, d.Line, "every problem has a place: %s", d)
				assert.Positive(t, d.Column, d.String())
				assert.NotEmpty(t, d.Code, d.String())
			}
		})
	}
}

func TestConformanceEmptyContents(t *testing.T) {
	dir := conformanceDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "invalid", "empty_file.yaml"))
	require.NoError(t, err)
	_, err = flow.Parse(data, "empty_file.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Flow declaration contents are empty")
}

// TestConformanceStrictWarningsExist keeps strictWarnings honest: every
// fixture it names exists.
func TestConformanceStrictWarningsExist(t *testing.T) {
	dir := conformanceDir(t)
	var names []string
	for _, p := range conformanceFlows(t, filepath.Join(dir, "valid")) {
		names = append(names, filepath.Base(p))
	}
	for name := range strictWarnings {
		assert.True(t, slices.Contains(names, name), name)
	}
}
