package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/store"
)

// replay hands a resumed run the outputs its methods had produced before,
// occurrence by occurrence, so they are not run twice.
type replay struct {
	queues map[string][]store.JournalEntry
}

func newReplay(journal []store.JournalEntry) *replay {
	rp := &replay{queues: map[string][]store.JournalEntry{}}
	for _, e := range journal {
		rp.queues[e.Method] = append(rp.queues[e.Method], e)
	}
	return rp
}

// next returns the recorded completion of method's next occurrence.
func (rp *replay) next(method string) (store.JournalEntry, bool) {
	q := rp.queues[method]
	if len(q) == 0 {
		return store.JournalEntry{}, false
	}
	rp.queues[method] = q[1:]
	return q[0], true
}

// definitionHash fingerprints what a paused run depends on: the methods,
// their triggers and their action kinds.
func definitionHash(def *Definition) string {
	var b strings.Builder
	b.WriteString(def.Name)
	for _, m := range def.Methods {
		fmt.Fprintf(&b, "\n%s|%v|%s|%s|%v|%v", m.Name, m.Start.Always, describeCondition(m.Start.When),
			describeCondition(m.Listen), m.IsRouter(), m.Events())
		if m.Do != nil {
			fmt.Fprintf(&b, "|%s|%s", m.Do.Call, m.Do.Ref)
		}
		if hf := m.HumanFeedback; hf != nil {
			fmt.Fprintf(&b, "|hf:%v:%s", hf.Emit, hf.DefaultOutcome)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}
