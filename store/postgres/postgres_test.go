package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
	"github.com/troupe-dev/troupe/store/postgres"
	"github.com/troupe-dev/troupe/store/storetest"
)

// dsnEnv names the server the tests use; CI starts one (see .ci/run).
const dsnEnv = "TROUPE_POSTGRES_DSN"

// server returns the DSN of a reachable server, or skips the test: unless
// CI=true, where a missing server is a failure.
func server(t testing.TB) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" (CI=true, so PostgreSQL is required)", args...)
		}
		t.Skipf(format+"; set %s to run the PostgreSQL store tests", append(args, dsnEnv)...)
	}
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		unavailable("%s is not set", dsnEnv)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		unavailable("PostgreSQL at %s is unreachable: %v", dsnEnv, err)
		return ""
	}
	conn.Close(ctx)
	return dsn
}

// isolated creates a schema of its own for the test, dropped at cleanup,
// and returns the DSN with that schema as its search_path.
func isolated(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "troupe_test_" + hex.EncodeToString(b)
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
	return withParam(dsn, "search_path", name)
}

// withParam adds a run-time parameter to a URL or key=value DSN.
func withParam(dsn, key, value string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + key + "=" + value
	}
	return dsn + " " + key + "=" + value
}

func open(t testing.TB, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	dsn := server(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, isolated(t, dsn))
	})
}

func TestWithParam(t *testing.T) {
	cases := []struct{ dsn, want string }{
		{"postgres://u@h/db", "postgres://u@h/db?search_path=s"},
		{"postgresql://u@h/db?sslmode=disable", "postgresql://u@h/db?sslmode=disable&search_path=s"},
		{"host=h dbname=db", "host=h dbname=db search_path=s"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, withParam(c.dsn, "search_path", "s"))
	}
}

// TestTwoStoresOneDatabase opens the same schema twice, as two processes
// would, and sees each store's runs from the other.
func TestTwoStoresOneDatabase(t *testing.T) {
	dsn := isolated(t, server(t))
	a, b := open(t, dsn), open(t, dsn)
	require.NoError(t, a.Save(t.Context(), storetest.Snapshot("from-a", 1)))
	require.NoError(t, b.Save(t.Context(), storetest.Snapshot("from-b", 2)))
	for _, s := range []*postgres.Store{a, b} {
		all, err := s.List(t.Context(), store.Filter{})
		require.NoError(t, err)
		assert.Len(t, all, 2)
	}
}

// TestJSONBKeepsFloats reads the stored jsonb back as text: PostgreSQL
// keeps "1.0" apart from "1".
func TestJSONBKeepsFloats(t *testing.T) {
	dsn := isolated(t, server(t))
	s := open(t, dsn)
	snap := storetest.Snapshot("floats", 0)
	snap.State = map[string]any{"f": 1.0, "i": int64(1), "big": 1e20}
	require.NoError(t, s.Save(t.Context(), snap))

	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	var f, i, big string
	err = conn.QueryRow(t.Context(),
		`SELECT data->'state'->>'f', data->'state'->>'i', data->'state'->>'big' FROM troupe_flow_snapshots WHERE flow_id = 'floats'`).
		Scan(&f, &i, &big)
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0", "1", "100000000000000000000.0"}, []string{f, i, big})
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	require.Error(t, err)
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), "postgres:")

	_, err = postgres.Open(ctx, "not a dsn ===")
	assert.ErrorContains(t, err, "postgres:")
}

func BenchmarkStore(b *testing.B) {
	s := open(b, isolated(b, server(b)))
	storetest.Benchmark(b, s)
}
