package fake

import (
	"strings"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/llm"
)

// transcript is the text replies are matched against: the non-empty text of
// every message joined by newlines, built only when needed.
type transcript struct {
	msgs  []llm.Message
	built bool
	s     string
}

func (t *transcript) text() string {
	if t.built {
		return t.s
	}
	t.built = true
	var b strings.Builder
	b.Grow(t.len())
	for _, m := range t.msgs {
		first := true
		for _, p := range m.Parts {
			if !isText(p) || p.Text == "" {
				continue
			}
			// Parts of one message are concatenated; messages are separated.
			if first && b.Len() > 0 {
				b.WriteByte('\n')
			}
			first = false
			b.WriteString(p.Text)
		}
	}
	t.s = b.String()
	return t.s
}

// len returns len(t.text()) without building it.
func (t *transcript) len() int {
	if t.built {
		return len(t.s)
	}
	n, msgs := 0, 0
	for _, m := range t.msgs {
		k := 0
		for _, p := range m.Parts {
			if isText(p) {
				k += len(p.Text)
			}
		}
		if k > 0 {
			n += k
			msgs++
		}
	}
	if msgs > 1 {
		n += msgs - 1
	}
	return n
}

func isText(p llm.Part) bool { return p.Kind == llm.PartText || p.Kind == "" }

// tail returns the last n bytes of s (cut at a rune boundary), with "..."
// in front when something was cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "..." + s[i:]
}

// split cuts s into at most n pieces of about equal length, at rune
// boundaries; an empty s gives no pieces.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	size := (len(s) + n - 1) / n
	pieces := make([]string, 0, n)
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		pieces = append(pieces, s[:cut])
		s = s[cut:]
	}
	return pieces
}
