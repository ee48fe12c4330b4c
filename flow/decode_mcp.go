package flow

import (
	"fmt"
	"slices"

	"github.com/troupe-dev/troupe/mcp"
)

// mcps decodes an agent's mcps list: every entry in one of CrewAI's forms,
// each problem reported at its place.
func (d *decoder) mcps(path string, n *node) []mcp.Server {
	if n == nil || n.isNull() {
		return nil
	}
	if n.kind != seqNode {
		d.errorf(path, "list_type", "Input should be a valid list [type=list_type]: mcps must be a list of MCP servers (https URLs, AMP slugs or mappings with command or url), got %s", n.describe())
		return nil
	}
	d.markTree(path, n)
	out := make([]mcp.Server, 0, len(n.items))
	for i, it := range n.items {
		p := index(path, i)
		s, problems := mcp.Parse(it.data(), fmt.Sprintf("mcps[%d]", i))
		d.mcpProblems(p, problems)
		if problems.Err() == nil {
			out = append(out, s)
		}
	}
	return out
}

// mcpProblems reports the problems of the mcps entry at path.
func (r *reporter) mcpProblems(path string, problems mcp.Problems) {
	for _, pr := range problems {
		at := path
		if pr.Path != "" {
			at = join(path, pr.Path)
		}
		if pr.Warning {
			r.warnf(at, pr.Code, "%s", pr.Message)
		} else {
			r.errorf(at, pr.Code, "%s", pr.Message)
		}
	}
}

// agentMCPs decodes the mcps of an agent: its settings' list when settings
// has one (settings are merged over the agent's fields), else its own.
func (d *decoder) agentMCPs(path string, own, settings *node) []mcp.Server {
	servers := d.mcps(join(path, "mcps"), own)
	if settings != nil && settings.kind == mapNode {
		if v, ok := settings.get("mcps"); ok {
			return d.mcps(join(path, "settings.mcps"), v)
		}
	}
	return servers
}

// mcps copies the MCP servers of an agent built in Go, reporting those
// that cannot be used.
func (c *canon) mcps(path string, in []mcp.Server) []mcp.Server {
	if in == nil {
		return nil
	}
	for i, s := range in {
		c.mcpProblems(index(path, i), s.Validate(fmt.Sprintf("mcps[%d]", i)))
	}
	return slices.Clone(in)
}
