package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/postgres"
	"github.com/troupe-dev/troupe/store/sqlite"
)

// stores opens each store kind sessions are tested on.
func stores(t *testing.T) map[string]store.Store {
	t.Helper()
	out := map[string]store.Store{"memory": store.NewMemory()}
	sq, err := sqlite.Open(filepath.Join(t.TempDir(), "runs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = sq.Close() })
	out["sqlite"] = sq
	dsn := os.Getenv("TROUPE_POSTGRES_DSN")
	switch {
	case dsn != "":
		pg, err := postgres.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = pg.Close() })
		out["postgres"] = pg
	case os.Getenv("CI") == "true":
		t.Fatal("TROUPE_POSTGRES_DSN is not set; CI must test PostgreSQL")
	default:
		t.Log("TROUPE_POSTGRES_DSN is not set: PostgreSQL is not tested")
	}
	return out
}

func TestSessionsAcrossProcesses(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			// First "process": a turn that verifies the order, then a turn
			// that pauses for the refund's approval.
			model := fake.New(
				fake.Match(`ticket R-A1`, fake.Text("Refund ticket R-A1 is open.")),
				fake.Match(`(?s)verified.*refund it`, fake.ToolCalls(fake.Call("create_refund_ticket", map[string]any{"order_id": "A1"}))),
				fake.Match(`verified`, fake.Text("Order A1 is verified.")),
				fake.ToolCalls(fake.Call("query_order", map[string]any{"order_id": "A1"})),
			)
			r := newRunner(t, "run_refund.yaml", model, nil, nil)
			s := r.NewSession("sess-"+name, nil)
			res, err := r.Turn(ctx, s, "is A1 ok?")
			require.NoError(t, err)
			assert.Equal(t, "Order A1 is verified.", res.Answer)
			require.NoError(t, SaveSession(ctx, st, s))

			s2, err := LoadSession(ctx, st, s.ID, "refunds")
			require.NoError(t, err)
			assert.Equal(t, "verified", s2.State)
			assert.Len(t, s2.Messages, len(s.Messages))
			res, err = r.Turn(ctx, s2, "then refund it")
			require.NoError(t, err)
			require.Equal(t, StatusPaused, res.Status)
			require.NoError(t, SaveSession(ctx, st, s2))
			snap, err := st.Load(ctx, s.ID)
			require.NoError(t, err)
			assert.Equal(t, store.StatusPaused, snap.Status)
			require.NotNil(t, snap.Pending)
			assert.Equal(t, "create_refund_ticket", snap.Pending.Method)

			// Second "process": a new runner approves.
			s3, err := LoadSession(ctx, st, s.ID, "")
			require.NoError(t, err)
			r2 := newRunner(t, "run_refund.yaml", model, nil, nil)
			res, err = r2.Resume(ctx, s3, Decision{Approve: true})
			require.NoError(t, err)
			assert.Equal(t, "Refund ticket R-A1 is open.", res.Answer)
			assert.Equal(t, "done", s3.State)
			require.NoError(t, SaveSession(ctx, st, s3))
			s4, err := LoadSession(ctx, st, s.ID, "refunds")
			require.NoError(t, err)
			assert.Nil(t, s4.Pending)

			_, err = LoadSession(ctx, st, "nope", "")
			assert.ErrorIs(t, err, ErrNoSession)
			_, err = LoadSession(ctx, st, s.ID, "other")
			assert.ErrorContains(t, err, `belongs to agent "refunds", not "other"`)
		})
	}
}
