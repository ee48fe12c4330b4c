package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// filing is what a Model chose for a record the caller did not fully
// describe.
type filing struct {
	Scope      *string  `json:"scope"`
	Categories []string `json:"categories"`
	Importance *float64 `json:"importance"`
}

// filePrompt asks the model to file one note; neighbours are nearby
// records whose scopes and categories the model should prefer to reuse.
func filePrompt(content, root string, neighbours []Match) string {
	var b strings.Builder
	b.WriteString("You keep a long-term memory for AI agents. File the note below.\n\n")
	b.WriteString("Note:\n<<<\n")
	b.WriteString(content)
	b.WriteString("\n>>>\n\n")
	fmt.Fprintf(&b, "Memory root: %s\n", root)
	scopes, cats := vocabulary(root, neighbours)
	if len(scopes) > 0 {
		fmt.Fprintf(&b, "Scopes of similar notes: %s\n", strings.Join(scopes, ", "))
	}
	if len(cats) > 0 {
		fmt.Fprintf(&b, "Categories of similar notes: %s\n", strings.Join(cats, ", "))
	}
	b.WriteString(`
Reply with one JSON object and nothing else:
{"scope": "/path/under/root", "categories": ["one", "two"], "importance": 0.5}
- scope: a short path relative to the memory root, such as "/customers/acme"; reuse an existing scope when one fits.
- categories: one to three lower-case labels; reuse existing ones when they fit.
- importance: from 0 (trivia) to 1 (must never be forgotten).
`)
	return b.String()
}

// vocabulary lists the scopes (relative to root) and categories of the
// neighbours, sorted and without repeats.
func vocabulary(root string, neighbours []Match) (scopes, cats []string) {
	for _, n := range neighbours {
		s := strings.TrimPrefix(n.Record.Scope, root)
		if root == "/" {
			s = n.Record.Scope
		}
		if s == "" {
			s = "/"
		}
		scopes = append(scopes, s)
		cats = append(cats, n.Record.Categories...)
	}
	slices.Sort(scopes)
	slices.Sort(cats)
	return slices.Compact(scopes), slices.Compact(cats)
}

func readFiling(reply string) (filing, error) {
	var f filing
	if err := decodeObject(reply, &f); err != nil {
		return filing{}, err
	}
	if f.Importance != nil {
		v := min(max(*f.Importance, 0), 1)
		f.Importance = &v
	}
	f.Categories = cleanCategories(f.Categories)
	return f, nil
}

// cleanCategories trims, drops empty and repeated labels, keeping order.
func cleanCategories(in []string) []string {
	out := make([]string, 0, len(in))
	for _, c := range in {
		c = strings.TrimSpace(c)
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// plan is a Model's consolidation decision.
type plan struct {
	Actions []struct {
		Action  string `json:"action"`
		Note    int    `json:"note"`
		Content string `json:"content"`
	} `json:"actions"`
	Insert *bool `json:"insert"`
}

// consolidatePrompt asks the model how to merge content with similar
// stored notes, numbered from 1.
func consolidatePrompt(content string, similar []Match) string {
	var b strings.Builder
	b.WriteString("You keep a long-term memory for AI agents. A new note is about to be stored, and similar notes are already stored.\n")
	b.WriteString("Decide what to do with each stored note and whether the new note is still worth storing.\n\n")
	b.WriteString("New note:\n<<<\n")
	b.WriteString(content)
	b.WriteString("\n>>>\n\nStored notes:\n")
	for i, s := range similar {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, s.Record.Content)
	}
	b.WriteString(`
Reply with one JSON object and nothing else:
{"actions": [{"note": 1, "action": "keep"}], "insert": true}
- action "keep" leaves a stored note as it is; "update" replaces its text with "content" (merge the new facts into it); "delete" removes it (outdated or contradicted by the new note).
- insert: false when the new note adds nothing after your updates.
When unsure, keep the stored notes and insert the new one.
`)
	return b.String()
}

// consolidation is a plan checked against the notes it may touch.
type consolidation struct {
	updates map[int]string // note index (0-based) -> new content
	deletes []int
	insert  bool
}

func readPlan(reply string, notes int) (consolidation, error) {
	var p plan
	if err := decodeObject(reply, &p); err != nil {
		return consolidation{insert: true}, err
	}
	c := consolidation{updates: map[int]string{}, insert: p.Insert == nil || *p.Insert}
	var errs []error
	for _, a := range p.Actions {
		i := a.Note - 1
		if i < 0 || i >= notes {
			errs = append(errs, fmt.Errorf("action on note %d, notes are 1 to %d: ignored", a.Note, notes))
			continue
		}
		if slices.Contains(c.deletes, i) {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(a.Action)) {
		case "keep":
		case "delete":
			delete(c.updates, i)
			c.deletes = append(c.deletes, i)
		case "update":
			content := strings.TrimSpace(a.Content)
			if content == "" {
				errs = append(errs, fmt.Errorf("update of note %d without content: ignored", a.Note))
				continue
			}
			if _, done := c.updates[i]; !done {
				c.updates[i] = content
			}
		default:
			errs = append(errs, fmt.Errorf("unknown action %s on note %d: ignored", strconv.Quote(a.Action), a.Note))
		}
	}
	return c, errors.Join(errs...)
}

// decodeObject reads the first JSON object in a model reply, which may be
// wrapped in prose or a code fence.
func decodeObject(reply string, v any) error {
	start := strings.IndexByte(reply, '{')
	end := strings.LastIndexByte(reply, '}')
	if start < 0 || end < start {
		return fmt.Errorf("no JSON object in reply %q", clip(reply, 120))
	}
	if err := json.Unmarshal([]byte(reply[start:end+1]), v); err != nil {
		return fmt.Errorf("reading JSON in reply %q: %w", clip(reply, 120), err)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
