package flow

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/store"
)

// deadOwner returns the owner string a process of this machine that has
// exited would have claimed with.
func deadOwner(t *testing.T, c *claims) string {
	t.Helper()
	parts := strings.Split(c.owner(), "/")
	require.Len(t, parts, 4)
	child := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, child.Run())
	return fmt.Sprintf("%s/%d/abc/%s", parts[0], child.ProcessState.Pid(), parts[3])
}

// TestClaimsKnowDeadOwners tells a claim of a process of this machine that
// exited from claims of live, foreign or unnamed processes.
func TestClaimsKnowDeadOwners(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux tells whether another process exists")
	}
	var c claims
	mine := c.owner()
	parts := strings.Split(mine, "/")
	require.Len(t, parts, 4, mine)
	scope := parts[3]
	var dead int
	_, err := fmt.Sscanf(strings.Split(deadOwner(t, &c), "/")[1], "%d", &dead)
	require.NoError(t, err)

	cases := []struct {
		name, owner string
		gone        bool
	}{
		{"exited process of this machine", fmt.Sprintf("host/%d/abc/%s", dead, scope), true},
		{"this process", mine, false},
		{"the parent process", fmt.Sprintf("host/%d/abc/%s", os.Getppid(), scope), false},
		{"another machine or pid namespace", fmt.Sprintf("host/%d/abc/0123456789ab", dead), false},
		{"no scope", fmt.Sprintf("host/%d/abc", dead), false},
		{"not a pid", "host/x/abc/" + scope, false},
		{"someone else's name", "worker-7", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.gone, c.gone(tc.owner))
		})
	}
}

// TestClaimRunTakesOverFromADeadProcess claims a run whose lease a process
// of this machine held when it died: the claim succeeds at once, while a
// live holder's lease still keeps it out.
func TestClaimRunTakesOverFromADeadProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux tells whether another process exists")
	}
	e := NewEngine()
	st := store.NewMemory()
	require.NoError(t, st.Claim(t.Context(), "run-1", deadOwner(t, &e.claims), time.Hour))
	c, _, err := e.claimRun(t.Context(), st, "run-1")
	require.NoError(t, err)
	c.release(e)

	alive := fmt.Sprintf("host/%d/abc/%s", os.Getppid(), strings.Split(e.claims.owner(), "/")[3])
	require.NoError(t, st.Claim(t.Context(), "run-2", alive, time.Hour))
	_, _, err = e.claimRun(t.Context(), st, "run-2")
	assert.ErrorIs(t, err, store.ErrClaimed)
}
