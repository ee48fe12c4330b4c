package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// An Item is something to remember. Scope, Categories and Importance are
// optional; when all three are given no Model is asked to file the item.
type Item struct {
	// ID is the new record's ID; empty lets Options.NewID make one.
	ID string
	// Content is the text to remember; it must not be blank.
	Content string
	// Scope is relative to the Memory's root; empty means not given.
	Scope string
	// Categories label the record; nil means not given, an empty non-nil
	// slice means "no categories".
	Categories []string
	// Importance in [0, 1]; nil means not given. See the Importance helper.
	Importance *float64
	// Metadata is JSON data kept with the record.
	Metadata map[string]any
}

// Importance returns a pointer to v, for Item.Importance.
func Importance(v float64) *float64 { return &v }

// described reports whether the caller filed the item completely.
func (it *Item) described() bool {
	return it.Scope != "" && it.Categories != nil && it.Importance != nil
}

// Saved tells what a write did.
type Saved struct {
	// Record is the stored record: the new one when Inserted, the existing
	// one when Duplicate, and zero when consolidation merged the content
	// into stored records instead (see Updated).
	Record Record
	// Inserted is true when a new record was written.
	Inserted bool
	// Duplicate is true when a stored record had the same content or a
	// similarity of at least Options.DuplicateThreshold, so nothing was
	// written.
	Duplicate bool
	// Updated and Deleted list the IDs of stored records consolidation
	// rewrote or removed.
	Updated, Deleted []string
}

// Remember stores one item; see RememberMany.
func (m *Memory) Remember(ctx context.Context, item Item) (Saved, error) {
	saved, err := m.RememberMany(ctx, []Item{item})
	if len(saved) == 0 {
		return Saved{}, err
	}
	return saved[0], err
}

// RememberMany stores items in order, embedding them in one Embedder call.
// For each item it
//
//   - skips the write when a stored record within the item's scope (the
//     root when none is given) has the same content or is at least
//     DuplicateThreshold similar;
//   - with Consolidate on, asks the Model once how to merge the item with
//     stored records at least ConsolidationThreshold similar;
//   - when the caller left scope, categories or importance out and a Model
//     is set, asks it once to fill them in; otherwise uses the root, no
//     categories and DefaultImportance.
//
// A failed or unreadable Model call falls back to those defaults (the
// failure is in the Spend reported for it). On a store error RememberMany
// returns what it saved so far with the error.
func (m *Memory) RememberMany(ctx context.Context, items []Item) ([]Saved, error) {
	if len(items) == 0 {
		return nil, nil
	}
	prepared := make([]Item, len(items))
	contents := make([]string, len(items))
	for i, it := range items {
		p, err := m.prepare(it)
		if err != nil {
			return nil, fmt.Errorf("memory: item %d: %w", i, err)
		}
		prepared[i], contents[i] = p, p.Content
	}
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	vecs, err := m.embed(ctx, contents)
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	out := make([]Saved, 0, len(items))
	for i := range prepared {
		s, err := m.write(ctx, &prepared[i], vecs[i])
		if err != nil {
			return out, fmt.Errorf("memory: item %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// prepare checks an item and resolves its scope against the root.
func (m *Memory) prepare(it Item) (Item, error) {
	it.Content = strings.TrimSpace(it.Content)
	if it.Content == "" {
		return Item{}, errors.New("content is blank")
	}
	if it.Importance != nil && !(*it.Importance >= 0 && *it.Importance <= 1) {
		return Item{}, fmt.Errorf("importance %v outside [0, 1]", *it.Importance)
	}
	md, err := jsondata.CloneMap(it.Metadata)
	if err != nil {
		return Item{}, fmt.Errorf("metadata: %w", err)
	}
	it.Metadata = md
	if it.Scope != "" {
		it.Scope = m.scope(it.Scope)
	}
	if it.Categories != nil {
		it.Categories = cleanCategories(it.Categories)
	}
	return it, nil
}

func (m *Memory) write(ctx context.Context, it *Item, vec []float32) (Saved, error) {
	where := m.root
	if it.Scope != "" {
		where = it.Scope
	}
	near, err := m.store.Search(ctx, SearchRequest{
		Vector: vec,
		Filter: Filter{Scope: where, Limit: m.opts.ConsolidationLimit},
		Now:    m.now(),
	})
	if err != nil {
		return Saved{}, fmt.Errorf("searching for similar records: %w", err)
	}
	for _, n := range near {
		if n.Parts.Similarity >= m.opts.DuplicateThreshold || n.Record.Content == it.Content {
			return Saved{Record: n.Record, Duplicate: true}, nil
		}
	}
	var saved Saved
	insert := true
	if similar := m.similar(near); len(similar) > 0 {
		if saved, insert, err = m.consolidate(ctx, it.Content, similar); err != nil {
			return saved, err
		}
	}
	if !insert {
		return saved, nil
	}
	rec := m.file(ctx, it, near)
	rec.Embedding = vec
	if err := m.store.Put(ctx, rec); err != nil {
		return saved, fmt.Errorf("storing record: %w", err)
	}
	saved.Record, saved.Inserted = rec, true
	return saved, nil
}

// similar returns the neighbours close enough to consolidate with, or nil
// when consolidation is off.
func (m *Memory) similar(near []Match) []Match {
	if !m.opts.Consolidate {
		return nil
	}
	i := 0
	for i < len(near) && near[i].Parts.Similarity >= m.opts.ConsolidationThreshold {
		i++
	}
	return near[:i]
}

// file builds the new record, asking the Model for what the caller left
// out when there is a Model.
func (m *Memory) file(ctx context.Context, it *Item, near []Match) Record {
	now := m.now()
	id := it.ID
	if id == "" {
		id = m.opts.NewID()
	}
	rec := Record{
		ID:         id,
		Content:    it.Content,
		Scope:      it.Scope,
		Categories: it.Categories,
		CreatedAt:  now,
		UpdatedAt:  now,
		Metadata:   it.Metadata,
	}
	importance := it.Importance
	if !it.described() && m.opts.Model != nil {
		var f filing
		err := m.ask(ctx, SpendFile, filePrompt(it.Content, m.root, near), func(reply string) (err error) {
			f, err = readFiling(reply)
			return err
		})
		if err == nil {
			if rec.Scope == "" && f.Scope != nil {
				rec.Scope = m.scope(*f.Scope)
			}
			if rec.Categories == nil {
				rec.Categories = f.Categories
			}
			if importance == nil {
				importance = f.Importance
			}
		}
	}
	if rec.Scope == "" {
		rec.Scope = m.root
	}
	if len(rec.Categories) == 0 {
		rec.Categories = nil
	}
	rec.Importance = m.opts.DefaultImportance
	if importance != nil {
		rec.Importance = *importance
	}
	return rec
}

// consolidate asks the Model how to merge content with similar records
// and carries out its plan: deletes, then updates (re-embedded in one
// call). It reports whether the new record should still be inserted.
func (m *Memory) consolidate(ctx context.Context, content string, similar []Match) (Saved, bool, error) {
	var c consolidation
	err := m.ask(ctx, SpendConsolidate, consolidatePrompt(content, similar), func(reply string) (err error) {
		c, err = readPlan(reply, len(similar))
		return err
	})
	if err != nil && c.updates == nil {
		return Saved{}, true, nil // unreadable: keep everything, insert
	}
	var saved Saved
	if len(c.deletes) > 0 {
		ids := make([]string, len(c.deletes))
		for i, n := range c.deletes {
			ids[i] = similar[n].Record.ID
		}
		if _, err := m.store.Delete(ctx, ids...); err != nil {
			return saved, false, fmt.Errorf("consolidation delete: %w", err)
		}
		saved.Deleted = ids
	}
	if len(c.updates) > 0 {
		notes := make([]int, 0, len(c.updates))
		for n := range c.updates {
			notes = append(notes, n)
		}
		slices.Sort(notes)
		texts := make([]string, len(notes))
		for i, n := range notes {
			texts[i] = c.updates[n]
		}
		vecs, err := m.embed(ctx, texts)
		if err != nil {
			return saved, false, err
		}
		now := m.now()
		recs := make([]Record, len(notes))
		for i, n := range notes {
			r := similar[n].Record
			r.Content, r.Embedding, r.UpdatedAt = texts[i], vecs[i], now
			recs[i] = r
			saved.Updated = append(saved.Updated, r.ID)
		}
		if err := m.store.Put(ctx, recs...); err != nil {
			return saved, false, fmt.Errorf("consolidation update: %w", err)
		}
	}
	return saved, c.insert, nil
}
