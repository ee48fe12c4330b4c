package skill_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/troupe-dev/troupe/skill"
)

// A CorpusCase is one folder of testdata/corpus and the reference
// validator's verdict on it (see testdata/corpus.yaml).
type corpusCase struct {
	Path   string   `yaml:"path"`
	Valid  bool     `yaml:"valid"`
	Errors []string `yaml:"errors"`
	Troupe *struct {
		Errors []string `yaml:"errors"`
		Why    string   `yaml:"why"`
	} `yaml:"troupe"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	data, err := os.ReadFile("testdata/corpus.yaml")
	require.NoError(t, err)
	var doc struct {
		Cases []corpusCase `yaml:"cases"`
	}
	require.NoError(t, yaml.Unmarshal(data, &doc))
	require.GreaterOrEqual(t, len(doc.Cases), 30)
	return doc.Cases
}

// agrees checks problems against the reference validator's messages: one
// error per message, in order, each containing it.
func agrees(t *testing.T, path string, want []string, probs skill.Problems) {
	t.Helper()
	errs := probs.Errors()
	require.Len(t, errs, len(want), "%s: %v", path, errs)
	for i, w := range want {
		assert.Contains(t, errs[i].Message, strings.ReplaceAll(w, "{path}", path))
	}
}

// Spec mode gives the reference validator's verdict and messages on every
// case of the corpus, and Troupe's own where it is stricter on purpose.
func TestSpecModeAgreesWithReferenceCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.Path, func(t *testing.T) {
			path := filepath.Join("testdata", "corpus", c.Path)
			_, probs := skill.Load(path, skill.Spec)
			if c.Troupe != nil {
				require.NotEmpty(t, c.Troupe.Why)
				agrees(t, path, c.Troupe.Errors, probs)
				return
			}
			if c.Valid {
				assert.False(t, probs.HasErrors(), "%v", probs)
				return
			}
			agrees(t, path, c.Errors, probs)
		})
	}
}

// With UnicodeNames, the reference validator's acceptance of non-ASCII
// names is matched too.
func TestSpecModeUnicodeNamesMatchesReference(t *testing.T) {
	_, probs := skill.Load(filepath.Join("testdata", "corpus", "навык"), skill.Spec, skill.UnicodeNames())
	assert.False(t, probs.HasErrors(), "%v", probs)
	_, probs = skill.Load(filepath.Join("testdata", "corpus", "under_score"), skill.Spec, skill.UnicodeNames())
	assert.True(t, probs.HasErrors())
}
