package httpcall

import "strings"

// A StopFilter cuts streamed text at the first stop sequence for servers
// that cannot stop on their own. It holds back a tail that might be the
// start of a stop sequence until the next piece shows it is not.
type StopFilter struct {
	stops   []string
	text    strings.Builder
	emitted int
	done    bool
}

// NewStopFilter returns a filter for the given stop sequences (empty ones
// are ignored); with none it passes text through.
func NewStopFilter(stops []string) *StopFilter {
	f := &StopFilter{}
	for _, s := range stops {
		if s != "" {
			f.stops = append(f.stops, s)
		}
	}
	return f
}

// Add takes the next piece and returns the text that can be emitted now.
func (f *StopFilter) Add(piece string) string {
	if len(f.stops) == 0 {
		return piece
	}
	if f.done {
		return ""
	}
	f.text.WriteString(piece)
	full := f.text.String()
	safe := full
	cut := -1
	for _, s := range f.stops {
		if i := strings.Index(full, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		safe, f.done = full[:cut], true
	} else {
		safe = full[:len(full)-f.holdback(full)]
	}
	if len(safe) < f.emitted {
		return ""
	}
	out := safe[f.emitted:]
	f.emitted = len(safe)
	return out
}

// Flush returns the held-back tail at the end of the stream.
func (f *StopFilter) Flush() string {
	if len(f.stops) == 0 || f.done {
		return ""
	}
	full := f.text.String()
	out := full[f.emitted:]
	f.emitted = len(full)
	return out
}

// holdback returns the length of the longest suffix of s that is a proper
// prefix of a stop sequence.
func (f *StopFilter) holdback(s string) int {
	best := 0
	for _, stop := range f.stops {
		for n := min(len(stop)-1, len(s)); n > best; n-- {
			if strings.HasSuffix(s, stop[:n]) {
				best = n
				break
			}
		}
	}
	return best
}
