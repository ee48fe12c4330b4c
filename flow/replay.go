package flow

import "github.com/troupe-dev/troupe/store"

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
