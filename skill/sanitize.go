package skill

import (
	"strconv"

	"github.com/troupe-dev/troupe/internal/toolname"
)

// SanitizeToolName spells a tool name as CrewAI shows it to models (see
// the rule at mcp.Sanitize, which is the same): load_skill's name clash rule
// and allowed-tools' matching compare such names.
func SanitizeToolName(name string) string { return toolname.Sanitize(name) }

// freeToolName returns base, or base_2, base_3, ... : the first that no
// taken tool name claims once sanitized, as CrewAI names its loader.
func freeToolName(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for i := 2; ; i++ {
		if n := base + "_" + itoa(i); !taken[n] {
			return n
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
