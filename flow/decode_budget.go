package flow

import (
	"time"
)

// budgetKeys are the limits a budgets block takes.
var budgetKeys = []string{"max_tokens", "max_cost", "max_wall_time", "max_tool_calls"}

// budgets decodes config.budgets: the run's limits and, under agents, each
// agent role's.
func (d *decoder) budgets(path string, n *node) *Budgets {
	if !d.isMap(path, n, "budgets") {
		return nil
	}
	f := d.fields(path, n, extraForbid, append(budgetKeys, "agents")...)
	b := &Budgets{Run: d.budgetLimits(path, f)}
	if v := f["agents"]; v != nil && !v.isNull() {
		p := join(path, "agents")
		if d.isMap(p, v, "budgets.agents") {
			b.Agents = map[string]Budget{}
			for i, role := range v.keys {
				rp := join(p, role)
				d.pos[rp] = v.keyPos[i]
				if ab := d.budget(rp, v.vals[i]); ab != nil {
					b.Agents[role] = *ab
				}
			}
		}
	}
	return b
}

// budget decodes a method's budgets block, or one agent's.
func (d *decoder) budget(path string, n *node) *Budget {
	if !d.isMap(path, n, "budgets") {
		return nil
	}
	b := d.budgetLimits(path, d.fields(path, n, extraForbid, budgetKeys...))
	return &b
}

func (d *decoder) budgetLimits(path string, f map[string]*node) Budget {
	var b Budget
	if v := f["max_tokens"]; v != nil {
		if i := d.optInt(join(path, "max_tokens"), v); i != nil {
			b.MaxTokens = int64(d.positive(join(path, "max_tokens"), float64(*i)))
		}
	}
	if v := f["max_tool_calls"]; v != nil {
		if i := d.optInt(join(path, "max_tool_calls"), v); i != nil {
			b.MaxToolCalls = int(d.positive(join(path, "max_tool_calls"), float64(*i)))
		}
	}
	if v := f["max_cost"]; v != nil && !v.isNull() {
		b.MaxCost = d.positive(join(path, "max_cost"), d.number(join(path, "max_cost"), v, "a cost in US dollars such as 0.50"))
	}
	if v := f["max_wall_time"]; v != nil && !v.isNull() {
		p := join(path, "max_wall_time")
		if s, ok := v.value.(string); ok && v.kind == scalarNode {
			dur, err := time.ParseDuration(s)
			if err != nil {
				d.errorf(p, "duration_type", "max_wall_time must be seconds or a duration such as 90s or 5m, got %q", s)
			}
			b.MaxWallTime = time.Duration(d.positive(p, float64(dur)))
		} else {
			secs := d.positive(p, d.number(p, v, "seconds, or a duration such as 90s or 5m"))
			b.MaxWallTime = time.Duration(secs * float64(time.Second))
		}
	}
	return b
}

// number decodes an int or float; want says what is expected.
func (d *decoder) number(path string, n *node, want string) float64 {
	switch v := n.value.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	d.errorf(path, "float_type", "Input should be a valid number [type=float_type]: want %s, got %s", want, n.describe())
	return 0
}

// positive reports a limit that is not above zero, and returns v.
func (d *decoder) positive(path string, v float64) float64 {
	if v <= 0 {
		d.errorf(path, "greater_than", "Input should be greater than 0 [type=greater_than]: a budget limit must be positive (leave it out for no limit)")
		return 0
	}
	return v
}
