package flow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store"
)

// pausingReview publishes by quoting the draft.
const pausingReview = reviewHead + `  announce: {listen: publish, do: {call: expression, expr: "'Published: ' + outputs.draft"}}
`

// TestResumeChecksTheDefinitionFingerprint resumes a paused run with the
// definition it was saved with, written differently, and edited: only the
// edit is refused, unless forced.
func TestResumeChecksTheDefinitionFingerprint(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		changed bool
	}{
		{"same text", pausingReview, false},
		{"comments and layout", "# reviewed weekly\n" + strings.ReplaceAll(pausingReview, "{start: true, ", "{ start: true,  "), false},
		{"an expression edited", strings.Replace(pausingReview, "'Published: '", "'Out: '", 1), true},
		{"a method added", pausingReview + "  archive: {listen: shelve, do: {call: expression, expr: \"'kept'\"}}\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := flow.NewEngine(flow.WithStore(store.NewMemory()))
			paused, err := eng.Run(t.Context(), mustParse(t, pausingReview), nil)
			require.NoError(t, err)
			require.NotNil(t, paused.Pending)

			def := mustParse(t, c.doc)
			req := flow.ResumeRequest{FlowID: paused.RunID, Feedback: "publish"}
			res, err := eng.Resume(t.Context(), def, req)
			if !c.changed {
				require.NoError(t, err)
				assert.Equal(t, "Published: draft text", res.Output)
				return
			}
			require.ErrorIs(t, err, flow.ErrDefinitionChanged)
			assert.Contains(t, err.Error(), paused.RunID)
			assert.Contains(t, err.Error(), "--force")

			req.Force = true
			res, err = eng.Resume(t.Context(), def, req)
			require.NoError(t, err, "forced")
			assert.Equal(t, "draft text", res.Outputs["draft"], "methods that ran keep their recorded outputs")
		})
	}
}
