package mcp_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoreDoesNotLinkTheSDK keeps the MCP SDK in mcp/client: flow, action
// and this package must build without it.
func TestCoreDoesNotLinkTheSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/troupe-dev/troupe/flow", "github.com/troupe-dev/troupe/action",
		"github.com/troupe-dev/troupe/mcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		require.False(t, strings.HasPrefix(dep, "github.com/modelcontextprotocol/"), "the core links %s", dep)
	}
}
