package schema

// closestCutoff is the similarity CrewAI's CLI asks of difflib for its
// "Did you mean" hint.
const closestCutoff = 0.7

// Closest returns the property name most similar to name, for "Did you mean"
// hints. It follows Python's difflib.get_close_matches(name, names, n=1,
// cutoff=0.7): the Ratcliff-Obershelp ratio 2*M/T of SequenceMatcher, ties
// going to the greater name. It reports false when no name reaches the
// cutoff.
func (s *Schema) Closest(name string) (string, bool) {
	return ClosestMatch(name, s.names, closestCutoff)
}

// ClosestMatch returns the candidate most similar to word whose
// SequenceMatcher ratio is at least cutoff, as Python's
// difflib.get_close_matches(word, candidates, n=1, cutoff) would.
func ClosestMatch(word string, candidates []string, cutoff float64) (string, bool) {
	if len(candidates) == 0 {
		return "", false
	}
	m := newMatcher([]rune(word))
	best, bestScore, found := "", 0.0, false
	for _, c := range candidates {
		a := []rune(c)
		if realQuickRatio(a, m.b) < cutoff || m.quickRatio(a) < cutoff {
			continue
		}
		r := m.ratio(a)
		if r < cutoff {
			continue
		}
		// heapq.nlargest over (ratio, name) tuples: ties go to the
		// greater name.
		if !found || r > bestScore || (r == bestScore && c > best) {
			best, bestScore, found = c, r, true
		}
	}
	return best, found
}

// Similarity returns difflib.SequenceMatcher(None, a, b).ratio().
func Similarity(a, b string) float64 {
	return newMatcher([]rune(b)).ratio([]rune(a))
}

// matcher is a SequenceMatcher with a fixed second sequence b (difflib's
// set_seq2), compared against many first sequences.
type matcher struct {
	b       []rune
	b2j     map[rune][]int // positions in b of each non-popular rune
	popular map[rune]bool
	counts  map[rune]int
}

func newMatcher(b []rune) *matcher {
	m := &matcher{b: b, b2j: make(map[rune][]int, len(b))}
	for j, r := range b {
		m.b2j[r] = append(m.b2j[r], j)
	}
	// difflib's autojunk: in sequences of 200 or more, runes making up
	// more than 1% (+1) of b are "popular" and do not seed matches.
	if n := len(b); n >= 200 {
		limit := n/100 + 1
		for r, js := range m.b2j {
			if len(js) > limit {
				if m.popular == nil {
					m.popular = map[rune]bool{}
				}
				m.popular[r] = true
				delete(m.b2j, r)
			}
		}
	}
	return m
}

func realQuickRatio(a, b []rune) float64 {
	la, lb := len(a), len(b)
	return ratioOf(min(la, lb), la+lb)
}

func (m *matcher) quickRatio(a []rune) float64 {
	if m.counts == nil {
		m.counts = make(map[rune]int, len(m.b))
		for _, r := range m.b {
			m.counts[r]++
		}
	}
	avail := make(map[rune]int, len(a))
	matches := 0
	for _, r := range a {
		n, ok := avail[r]
		if !ok {
			n = m.counts[r]
		}
		avail[r] = n - 1
		if n > 0 {
			matches++
		}
	}
	return ratioOf(matches, len(a)+len(m.b))
}

func (m *matcher) ratio(a []rune) float64 {
	return ratioOf(m.matches(a), len(a)+len(m.b))
}

func ratioOf(matches, length int) float64 {
	if length == 0 {
		return 1.0
	}
	return 2.0 * float64(matches) / float64(length)
}

// matches sums the sizes of the matching blocks of a against b, found as
// difflib does: the longest match, then recursively left and right of it.
func (m *matcher) matches(a []rune) int {
	type span struct{ alo, ahi, blo, bhi int }
	total := 0
	queue := []span{{0, len(a), 0, len(m.b)}}
	var j2len, next map[int]int
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := m.longest(a, s.alo, s.ahi, s.blo, s.bhi, &j2len, &next)
		if k == 0 {
			continue
		}
		total += k
		if s.alo < i && s.blo < j {
			queue = append(queue, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			queue = append(queue, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	return total
}

// longest is difflib's find_longest_match without a junk function: the
// earliest longest block of a[alo:ahi] equal to b[blo:bhi], extended over
// popular runes.
func (m *matcher) longest(a []rune, alo, ahi, blo, bhi int, j2len, next *map[int]int) (int, int, int) {
	besti, bestj, bestsize := alo, blo, 0
	if *j2len == nil {
		*j2len, *next = map[int]int{}, map[int]int{}
	}
	cur, nxt := *j2len, *next
	clear(cur)
	for i := alo; i < ahi; i++ {
		clear(nxt)
		for _, j := range m.b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := cur[j-1] + 1
			nxt[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		cur, nxt = nxt, cur
	}
	*j2len, *next = cur, nxt
	b := m.b
	for besti > alo && bestj > blo && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return besti, bestj, bestsize
}
