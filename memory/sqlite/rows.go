package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/memory"
)

// row is a record in its column encodings.
type row struct {
	id, content, scope string
	categories         sql.NullString
	importance         float64
	created, updated   sql.NullInt64
	metadata           sql.NullString
	embedding          []byte
}

func (r *row) args() []any {
	return []any{r.id, r.content, r.scope, r.categories, r.importance, r.created, r.updated, r.metadata, r.embedding}
}

const columns = "id, content, scope, categories, importance, created_at, updated_at, metadata, embedding"

func encode(r memory.Record) (row, error) {
	out := row{
		id: r.ID, content: r.Content, scope: r.Scope, importance: r.Importance,
		created: encodeTime(r.CreatedAt), updated: encodeTime(r.UpdatedAt),
		embedding: encodeVector(r.Embedding),
	}
	if len(r.Categories) > 0 {
		b, err := json.Marshal(r.Categories)
		if err != nil {
			return row{}, fmt.Errorf("sqlite: record %q: categories: %w", r.ID, err)
		}
		out.categories = sql.NullString{String: string(b), Valid: true}
	}
	if r.Metadata != nil {
		b, err := jsondata.Marshal(r.Metadata)
		if err != nil {
			return row{}, fmt.Errorf("sqlite: record %q: metadata: %w", r.ID, err)
		}
		out.metadata = sql.NullString{String: string(b), Valid: true}
	}
	return out, nil
}

func (r *row) record() (memory.Record, error) {
	rec := memory.Record{
		ID: r.id, Content: r.content, Scope: r.scope, Importance: r.importance,
		CreatedAt: decodeTime(r.created), UpdatedAt: decodeTime(r.updated),
	}
	var err error
	if rec.Categories, err = decodeCategories(r.categories); err != nil {
		return memory.Record{}, fmt.Errorf("sqlite: record %q: %w", r.id, err)
	}
	if r.metadata.Valid {
		if rec.Metadata, err = jsondata.DecodeMap([]byte(r.metadata.String)); err != nil {
			return memory.Record{}, fmt.Errorf("sqlite: record %q: metadata: %w", r.id, err)
		}
	}
	if rec.Embedding, err = decodeVector(r.embedding); err != nil {
		return memory.Record{}, fmt.Errorf("sqlite: record %q: %w", r.id, err)
	}
	return rec, nil
}

func decodeCategories(s sql.NullString) ([]string, error) {
	if !s.Valid {
		return nil, nil
	}
	var cats []string
	if err := json.Unmarshal([]byte(s.String), &cats); err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	if len(cats) == 0 {
		return nil, nil
	}
	return cats, nil
}

func encodeTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

func decodeTime(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVector reads a blob; an empty blob is nil.
func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return appendVector(make([]float32, 0, len(b)/4), b)
}

// fetch reads the records with the given IDs, in no particular order;
// missing IDs are skipped.
func (s *Store) fetch(ctx context.Context, ids []string) ([]memory.Record, error) {
	out := make([]memory.Record, 0, len(ids))
	for chunk := range chunks(ids) {
		rows, err := s.db.QueryContext(ctx, "SELECT "+columns+" FROM memory_records WHERE id IN ("+placeholders(len(chunk))+")", anys(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: read records: %w", err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.content, &r.scope, &r.categories, &r.importance, &r.created, &r.updated, &r.metadata, &r.embedding); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: read records: %w", err)
			}
			rec, err := r.record()
			if err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, rec)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: read records: %w", err)
		}
		rows.Close()
	}
	return out, nil
}

// inOrder arranges recs in the order of ids, dropping missing ones.
func inOrder(ids []string, recs []memory.Record) []memory.Record {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	out := make([]memory.Record, len(ids))
	found := make([]bool, len(ids))
	for _, r := range recs {
		i := pos[r.ID]
		out[i], found[i] = r, true
	}
	kept := out[:0]
	for i, r := range out {
		if found[i] {
			kept = append(kept, r)
		}
	}
	return kept
}

// load fills the index from the table, a thousand rows per index update.
func (s *Store) load(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, scope, categories, importance, created_at, embedding FROM memory_records")
	if err != nil {
		return err
	}
	defer rows.Close()
	const batch = 1000
	entries := make([]memory.IndexEntry, 0, batch)
	var flat []float32 // one buffer for the batch's vectors; Upsert copies them
	flush := func() error {
		err := s.index.Upsert(entries...)
		entries, flat = entries[:0], flat[:0]
		return err
	}
	for rows.Next() {
		var (
			e       memory.IndexEntry
			cats    sql.NullString
			created sql.NullInt64
			blob    sql.RawBytes // valid until Next: decoded at once, never kept
		)
		if err := rows.Scan(&e.ID, &e.Scope, &cats, &e.Importance, &created, &blob); err != nil {
			return err
		}
		if e.Categories, err = decodeCategories(cats); err != nil {
			return fmt.Errorf("record %q: %w", e.ID, err)
		}
		e.CreatedAt = decodeTime(created)
		start := len(flat)
		if flat, err = appendVector(flat, blob); err != nil {
			return fmt.Errorf("record %q: %w", e.ID, err)
		}
		if len(flat) > start {
			e.Vector = flat[start:len(flat):len(flat)]
		}
		entries = append(entries, e)
		if flat != nil && cap(flat) < batch*len(e.Vector) {
			flat = slices.Grow(flat, batch*len(e.Vector)) // one allocation per batch
		}
		if len(entries) == batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// appendVector decodes a blob onto the end of flat. When flat must grow,
// vectors sliced from it earlier keep the old array, which stays valid.
func appendVector(flat []float32, blob []byte) ([]float32, error) {
	if len(blob)%4 != 0 {
		return flat, fmt.Errorf("embedding blob of %d bytes is not float32s", len(blob))
	}
	for i := 0; i < len(blob); i += 4 {
		flat = append(flat, math.Float32frombits(binary.LittleEndian.Uint32(blob[i:])))
	}
	return flat, nil
}

// maxParams keeps IN lists well under SQLite's bound-parameter limit.
const maxParams = 500

func chunks(ids []string) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for lo := 0; lo < len(ids); lo += maxParams {
			if !yield(ids[lo:min(lo+maxParams, len(ids))]) {
				return
			}
		}
	}
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
