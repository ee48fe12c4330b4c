package flow

import (
	"slices"
	"strings"
)

// suggestCells is the edit-distance work (cells of the distance table)
// one validation may spend on "did you mean" hints for names of the flow
// itself (methods, events). A flow with thousands of names and thousands
// of misspellings would otherwise take time quadratic in its size; past
// the budget, warnings simply come without a hint.
const suggestCells = 1 << 22

// suggester proposes, for a name that is not known, the closest known
// name, as closest does, for one set of names. It sorts the names once,
// remembers its answers and draws its work from a shared budget.
// The names are listed on first use: most flows need no hint.
type suggester struct {
	list   func() []string
	names  []string // sorted
	lower  []string // names, lower-cased, in the same order
	memo   map[string]string
	budget *int
}

func newSuggester(list func() []string, budget *int) *suggester {
	return &suggester{list: list, budget: budget}
}

// suggest returns the known name nearest to name, or "" when none is near
// enough or the budget is spent.
func (s *suggester) suggest(name string) string {
	if c, ok := s.memo[name]; ok {
		return c
	}
	if *s.budget <= 0 {
		return ""
	}
	if s.memo == nil {
		s.memo = map[string]string{}
		s.names = slices.Clone(s.list())
		slices.Sort(s.names)
		s.lower = make([]string, len(s.names))
		for i, n := range s.names {
			s.lower[i] = strings.ToLower(n)
		}
	}
	low := strings.ToLower(name)
	best, bestD := "", len(name)/2+1
	for i, n := range s.lower {
		// The distance is at least the difference in length.
		if d := len(n) - len(low); d >= bestD || -d >= bestD {
			continue
		}
		*s.budget -= (len(low) + 1) * (len(n) + 1)
		if dd := editDistance(low, n); dd < bestD {
			best, bestD = s.names[i], dd
		}
	}
	s.memo[name] = best
	return best
}
