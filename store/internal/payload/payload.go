// Package payload encodes the part of a store.Snapshot that database stores
// keep in one JSON column: the state, the outputs, the completed methods,
// the journal, the last feedback and the pending feedback. The scalar fields (flow id, flow, status, method,
// definition hash, update time) get columns of their own.
//
// The text is written with internal/jsondata, so integers and floats keep
// their types through a save and a load.
//
// It imports store and internal/jsondata only; it must not import flow.
package payload

import (
	"errors"
	"fmt"
	"time"

	"github.com/troupe-dev/troupe/internal/jsondata"
	"github.com/troupe-dev/troupe/store"
)

// Check reports a snapshot no store can save: nil, or without a flow id.
func Check(s *store.Snapshot) error {
	if s == nil {
		return errors.New("nil snapshot")
	}
	if s.FlowID == "" {
		return errors.New("snapshot has an empty flow id")
	}
	return nil
}

// UpdatedAt is the time a store records for s: its UpdatedAt, or now when
// that is zero, in UTC.
func UpdatedAt(s *store.Snapshot) time.Time {
	if s.UpdatedAt.IsZero() {
		return time.Now().UTC()
	}
	return s.UpdatedAt.UTC()
}

// Encode appends the JSON object holding the state, outputs, completed
// methods, journal, last feedback and pending feedback of s to dst.
func Encode(dst []byte, s *store.Snapshot) ([]byte, error) {
	dst = append(dst, `{"state":`...)
	dst, err := jsondata.Append(dst, s.State)
	if err != nil {
		return dst, fmt.Errorf("payload: state: %w", err)
	}
	dst = append(dst, `,"outputs":`...)
	if dst, err = jsondata.Append(dst, s.Outputs); err != nil {
		return dst, fmt.Errorf("payload: outputs: %w", err)
	}
	dst = append(dst, `,"completed":`...)
	dst, _ = jsondata.Append(dst, s.Completed)
	dst = append(dst, `,"journal":`...)
	if dst, err = encodeJournal(dst, s.Journal); err != nil {
		return dst, fmt.Errorf("payload: journal: %w", err)
	}
	dst = append(dst, `,"last_feedback":`...)
	if dst, err = jsondata.Append(dst, s.LastFeedback); err != nil {
		return dst, fmt.Errorf("payload: last feedback: %w", err)
	}
	dst = append(dst, `,"pending":`...)
	if dst, err = encodePending(dst, s.Pending); err != nil {
		return dst, fmt.Errorf("payload: pending: %w", err)
	}
	return append(dst, '}'), nil
}

func encodeJournal(dst []byte, journal []store.JournalEntry) ([]byte, error) {
	if journal == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, e := range journal {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"method":`...)
		dst = jsondata.AppendString(dst, e.Method)
		dst = append(dst, `,"output":`...)
		var err error
		if dst, err = jsondata.Append(dst, e.Output); err != nil {
			return dst, fmt.Errorf("[%d] %s: %w", i, e.Method, err)
		}
		dst = append(dst, `,"outcome":`...)
		dst = jsondata.AppendString(dst, e.Outcome)
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

func encodePending(dst []byte, p *store.PendingFeedback) ([]byte, error) {
	if p == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, `{"method":`...)
	dst = jsondata.AppendString(dst, p.Method)
	dst = append(dst, `,"message":`...)
	dst = jsondata.AppendString(dst, p.Message)
	dst = append(dst, `,"emit":`...)
	dst, _ = jsondata.Append(dst, p.Emit)
	dst = append(dst, `,"default_outcome":`...)
	dst = jsondata.AppendString(dst, p.DefaultOutcome)
	dst = append(dst, `,"output":`...)
	dst, err := jsondata.Append(dst, p.Output)
	if err != nil {
		return dst, fmt.Errorf("output: %w", err)
	}
	dst = append(dst, `,"metadata":`...)
	if dst, err = jsondata.Append(dst, p.Metadata); err != nil {
		return dst, fmt.Errorf("metadata: %w", err)
	}
	dst = append(dst, `,"requested_at":`...)
	dst = jsondata.AppendString(dst, p.RequestedAt.UTC().Format(time.RFC3339Nano))
	return append(dst, '}'), nil
}

// Decode sets the State, Outputs, Completed, Journal, LastFeedback and
// Pending of s from text written by Encode.
func Decode(data []byte, s *store.Snapshot) error {
	m, err := jsondata.DecodeMap(data)
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if s.State, err = object(m, "state"); err != nil {
		return err
	}
	if s.Outputs, err = object(m, "outputs"); err != nil {
		return err
	}
	if s.Completed, err = strings(m, "completed"); err != nil {
		return err
	}
	if s.Journal, err = decodeJournal(m["journal"]); err != nil {
		return err
	}
	if s.LastFeedback, err = object(m, "last_feedback"); err != nil {
		return err
	}
	s.Pending, err = decodePending(m["pending"])
	return err
}

func decodeJournal(v any) ([]store.JournalEntry, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("payload: journal is %T, want a list", v)
	}
	out := make([]store.JournalEntry, len(list))
	for i, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("payload: journal[%d] is %T, want an object", i, it)
		}
		e := store.JournalEntry{Output: m["output"]}
		var err error
		if e.Method, err = text(m, "method"); err != nil {
			return nil, fmt.Errorf("payload: journal[%d]: %w", i, err)
		}
		if e.Outcome, err = text(m, "outcome"); err != nil {
			return nil, fmt.Errorf("payload: journal[%d]: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}

func decodePending(v any) (*store.PendingFeedback, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("payload: pending is %T, want an object", v)
	}
	p := &store.PendingFeedback{Output: m["output"]}
	var err error
	if p.Method, err = text(m, "method"); err != nil {
		return nil, err
	}
	if p.Message, err = text(m, "message"); err != nil {
		return nil, err
	}
	if p.DefaultOutcome, err = text(m, "default_outcome"); err != nil {
		return nil, err
	}
	if p.Emit, err = strings(m, "emit"); err != nil {
		return nil, err
	}
	if p.Metadata, err = object(m, "metadata"); err != nil {
		return nil, err
	}
	at, err := text(m, "requested_at")
	if err != nil {
		return nil, err
	}
	if p.RequestedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
		return nil, fmt.Errorf("payload: pending requested_at: %w", err)
	}
	return p, nil
}

func object(m map[string]any, key string) (map[string]any, error) {
	switch v := m[key].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("payload: %s is %T, want an object", key, v)
	}
}

func text(m map[string]any, key string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("payload: %s is %T, want a string", key, v)
	}
}

func strings(m map[string]any, key string) ([]string, error) {
	switch v := m[key].(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(v))
		for i, it := range v {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("payload: %s[%d] is %T, want a string", key, i, it)
			}
			out[i] = s
		}
		return out, nil
	default:
		return nil, fmt.Errorf("payload: %s is %T, want a list", key, v)
	}
}
