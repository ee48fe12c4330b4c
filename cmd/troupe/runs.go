package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/sqlite"
)

// persistenceType is CrewAI's class name for its SQLite backend; persist
// blocks that name it are served by the command's SQLite files.
const persistenceType = "SQLiteFlowPersistence"

// stores opens the SQLite files a command uses on first use, so commands
// that never save leave no file behind, and closes them when it ends.
type stores struct {
	main string // the --store file

	mu   sync.Mutex
	open map[string]*sqlite.Store
}

func newStores(main string) *stores {
	return &stores{main: main, open: map[string]*sqlite.Store{}}
}

// store returns the store of the file at path, opened lazily.
func (s *stores) store(path string) store.Store { return &lazyStore{set: s, path: path} }

// backend serves persist blocks naming SQLiteFlowPersistence: their db_path
// when they set one, else the command's store.
func (s *stores) backend(settings map[string]any) (store.Store, error) {
	path := s.main
	if p, ok := settings["db_path"].(string); ok && p != "" {
		path = p
	}
	return s.store(path), nil
}

// get opens the file at path. When create is false and the file does not
// exist, it returns nil: reading a store never creates it.
func (s *stores) get(ctx context.Context, path string, create bool) (*sqlite.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.open[path]; ok {
		return st, nil
	}
	if !create && path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	st, err := sqlite.OpenContext(ctx, path)
	if err != nil {
		return nil, err
	}
	s.open[path] = st
	return st, nil
}

// Close closes every file opened.
func (s *stores) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for path, st := range s.open {
		errs = append(errs, st.Close())
		delete(s.open, path)
	}
	return errors.Join(errs...)
}

// lazyStore is a store.Store on a file opened at its first use.
type lazyStore struct {
	set  *stores
	path string
}

func (l *lazyStore) Save(ctx context.Context, snap *store.Snapshot) error {
	st, err := l.set.get(ctx, l.path, true)
	if err != nil {
		return err
	}
	return st.Save(ctx, snap)
}

func (l *lazyStore) Load(ctx context.Context, flowID string) (*store.Snapshot, error) {
	st, err := l.set.get(ctx, l.path, false)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("sqlite: load %q: %w", flowID, store.ErrNotFound)
	}
	return st.Load(ctx, flowID)
}

func (l *lazyStore) List(ctx context.Context, f store.Filter) ([]*store.Snapshot, error) {
	st, err := l.set.get(ctx, l.path, false)
	if st == nil || err != nil {
		return nil, err
	}
	return st.List(ctx, f)
}

func (l *lazyStore) Delete(ctx context.Context, flowID string) error {
	st, err := l.set.get(ctx, l.path, false)
	if st == nil || err != nil {
		return err
	}
	return st.Delete(ctx, flowID)
}

// Claim opens the file, creating it, before the run relies on it: a file
// that cannot hold the run fails the run before its first method.
func (l *lazyStore) Claim(ctx context.Context, flowID, owner string, ttl time.Duration) error {
	st, err := l.set.get(ctx, l.path, true)
	if err != nil {
		return err
	}
	return st.Claim(ctx, flowID, owner, ttl)
}

func (l *lazyStore) Release(ctx context.Context, flowID, owner string) error {
	st, err := l.set.get(ctx, l.path, false)
	if st == nil || err != nil {
		return err
	}
	return st.Release(ctx, flowID, owner)
}

type runsFlags struct {
	status string
	flow   string
	limit  int
	asJSON bool
	store  string
}

func newRunsCmd() *cobra.Command {
	var f runsFlags
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List stored runs: flow id, flow, status, method, updated time",
		Args:  cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			switch store.Status(f.status) {
			case "", store.StatusRunning, store.StatusPaused, store.StatusCompleted, store.StatusFailed:
				return nil
			}
			return usageError{fmt.Errorf("invalid --status %q: want running, paused, completed or failed", f.status)}
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return listRuns(cmd, f) },
	}
	cmd.Flags().StringVar(&f.status, "status", "", "only runs with this status: running, paused, completed or failed")
	cmd.Flags().StringVar(&f.flow, "flow", "", "only runs of the flow with this name")
	cmd.Flags().IntVar(&f.limit, "limit", 0, "at most this many runs, most recent first (0: all)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the runs as a JSON array")
	cmd.Flags().StringVar(&f.store, "store", sqlite.DefaultPath, "the SQLite file runs are saved in")
	return cmd
}

// storedRun is one line of `troupe runs --json`.
type storedRun struct {
	FlowID    string                 `json:"flow_id"`
	Flow      string                 `json:"flow"`
	Status    string                 `json:"status"`
	Method    string                 `json:"method"`
	UpdatedAt time.Time              `json:"updated_at"`
	Completed []string               `json:"completed"`
	Pending   *store.PendingFeedback `json:"pending,omitempty"`
}

func listRuns(cmd *cobra.Command, f runsFlags) error {
	set := newStores(f.store)
	defer set.Close()
	snaps, err := set.store(f.store).List(cmd.Context(), store.Filter{Status: store.Status(f.status), Flow: f.flow, Limit: f.limit})
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.asJSON {
		runs := make([]storedRun, len(snaps))
		for i, s := range snaps {
			runs[i] = storedRun{FlowID: s.FlowID, Flow: s.Flow, Status: string(s.Status), Method: s.Method,
				UpdatedAt: s.UpdatedAt.UTC(), Completed: s.Completed, Pending: s.Pending}
			if runs[i].Completed == nil {
				runs[i].Completed = []string{}
			}
		}
		return json.NewEncoder(out).Encode(runs)
	}
	if len(snaps) == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "No stored runs in %s.\n", f.store)
		return nil
	}
	return writeRunsTable(out, snaps)
}

// writeRunsTable prints one aligned line per run.
func writeRunsTable(w io.Writer, snaps []*store.Snapshot) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLOW ID\tFLOW\tSTATUS\tMETHOD\tUPDATED")
	for _, s := range snaps {
		method := s.Method
		if method == "" {
			method = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.FlowID, s.Flow, s.Status, method,
			s.UpdatedAt.Local().Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}
