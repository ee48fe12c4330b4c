package dbos

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/troupe-dev/troupe/flow"
)

// AppVersion derives a DBOS ApplicationVersion from the definitions a
// worker serves: prefix, a dash and 12 hex digits of a hash over their
// names and [flow.Definition.Hash]es, in any order. Workers given the same
// flows agree on it without configuration, and DBOS hands a run only to
// workers of the version that started it, so an edited flow never
// continues a run recorded by its former self.
func AppVersion(prefix string, defs ...*flow.Definition) string {
	lines := make([]string, 0, len(defs))
	for _, d := range defs {
		lines = append(lines, d.Name+"="+d.Hash())
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	if prefix == "" {
		return sum
	}
	return prefix + "-" + sum
}

// A DefinitionChangedError reports a run recorded with another definition
// of its flow than the worker's: the worker refuses to run it. It matches
// [flow.ErrDefinitionChanged] with errors.Is.
type DefinitionChangedError struct {
	RunID, Flow string
	// Recorded is the hash the run was started with, Worker the hash of
	// the worker's definition.
	Recorded, Worker string
}

func (e *DefinitionChangedError) Error() string {
	return fmt.Sprintf("dbos: run %s of flow %q was started with definition %s, this worker has %s",
		e.RunID, e.Flow, e.Recorded, e.Worker)
}

// Is reports whether target is flow.ErrDefinitionChanged.
func (e *DefinitionChangedError) Is(target error) bool { return target == flow.ErrDefinitionChanged }

// checkDefinition returns a *DefinitionChangedError when the run was
// recorded with a definition hash other than def's ("" is any).
func checkDefinition(runID string, in RunInput, def *flow.Definition) error {
	if in.Hash == "" {
		return nil
	}
	if h := def.Hash(); h != in.Hash {
		return &DefinitionChangedError{RunID: runID, Flow: in.Flow, Recorded: in.Hash, Worker: h}
	}
	return nil
}
