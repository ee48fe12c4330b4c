package schema

import (
	"math"
	"strconv"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// Coerce converts the values of v the way pydantic's lax mode does before
// validating, following the schema's types at every level (properties,
// additionalProperties, array items):
//
//   - integer: "5", " 5 ", "5.0" and 5.0 become int64 5; true/false become 1/0;
//     5.5 and "abc" are left for Validate to reject.
//   - number: "2.5" becomes 2.5; integers become float64.
//   - boolean: "true"/"false", "yes"/"no", "on"/"off", "y"/"n", "t"/"f",
//     "1"/"0" (any case) and the numbers 1/0 become bools.
//   - string: nothing is converted (pydantic rejects 5 for a str field).
//
// A value already of an accepted type is kept, so "5" stays a string for
// {"type": ["string", "integer"]}. Coerce returns a new map and never
// mutates v; nested values that need no change are shared with v.
func (s *Schema) Coerce(v map[string]any) map[string]any {
	norm, _ := normalize(v).(map[string]any)
	out := make(map[string]any, len(norm))
	for k, val := range norm {
		out[k], _ = s.coerce.child(k).value(val)
	}
	return out
}

// coercer is the lax-mode plan for one schema position.
type coercer struct {
	types  typeSet
	props  map[string]*coercer
	extra  *coercer // additionalProperties, when it is a schema
	items  *coercer // every item (or those past prefix)
	prefix []*coercer
}

// planner builds coercers once per compiled schema; the memo also ends
// reference cycles.
type planner struct {
	memo  map[*jsonschema.Schema]*coercer
	types *typeResolver
}

func newPlanner(types *typeResolver) *planner {
	return &planner{memo: map[*jsonschema.Schema]*coercer{}, types: types}
}

func (p *planner) plan(s *jsonschema.Schema) *coercer {
	if s == nil {
		return nil
	}
	if c, ok := p.memo[s]; ok {
		return c
	}
	c := &coercer{types: p.types.types(s)}
	p.memo[s] = c
	if props := collectProperties(s); len(props) > 0 {
		c.props = make(map[string]*coercer, len(props))
		for name, sub := range props {
			c.props[name] = p.plan(sub)
		}
	}
	seen := map[*jsonschema.Schema]bool{}
	for cur := s; cur != nil && !seen[cur]; cur = cur.Ref {
		seen[cur] = true
		if ap, ok := cur.AdditionalProperties.(*jsonschema.Schema); ok && c.extra == nil {
			c.extra = p.plan(ap)
		}
		if c.items == nil && c.prefix == nil {
			c.items, c.prefix = p.itemsOf(cur)
		}
	}
	return c
}

func (p *planner) itemsOf(s *jsonschema.Schema) (*coercer, []*coercer) {
	var items *coercer
	var prefix []*coercer
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		items = p.plan(it)
	case []*jsonschema.Schema:
		for _, sub := range it {
			prefix = append(prefix, p.plan(sub))
		}
		if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			items = p.plan(ai)
		}
	}
	if s.Items2020 != nil {
		items = p.plan(s.Items2020)
	}
	for _, sub := range s.PrefixItems {
		prefix = append(prefix, p.plan(sub))
	}
	return items, prefix
}

// child returns the plan for property k of an object.
func (c *coercer) child(k string) *coercer {
	if c == nil {
		return nil
	}
	if sub, ok := c.props[k]; ok {
		return sub
	}
	return c.extra
}

// value coerces one canonical value and reports whether it changed.
func (c *coercer) value(v any) (any, bool) {
	if c == nil {
		return v, false
	}
	switch v := v.(type) {
	case string:
		return c.fromString(v)
	case int64:
		switch {
		case c.types == 0 || c.types.has(tInteger):
		case c.types.has(tNumber):
			return float64(v), true
		case c.types.has(tBoolean) && (v == 0 || v == 1):
			return v == 1, true
		}
	case float64:
		switch {
		case c.types.accepts(tNumber):
		case c.types.has(tInteger):
			if n, ok := integral(v); ok {
				return n, true
			}
		case c.types.has(tBoolean) && (v == 0 || v == 1):
			return v == 1, true
		}
	case bool:
		switch {
		case c.types.accepts(tBoolean):
		case c.types.has(tInteger):
			if v {
				return int64(1), true
			}
			return int64(0), true
		case c.types.has(tNumber):
			if v {
				return 1.0, true
			}
			return 0.0, true
		}
	case map[string]any:
		return c.object(v)
	case []any:
		return c.array(v)
	}
	return v, false
}

func (c *coercer) fromString(v string) (any, bool) {
	ts := c.types
	if ts.accepts(tString) {
		return v, false
	}
	if ts.has(tInteger) {
		if n, ok := parseInt(v); ok {
			return n, true
		}
	}
	if ts.has(tNumber) {
		if f, ok := parseFloat(v); ok {
			return f, true
		}
	}
	if ts.has(tBoolean) {
		if b, ok := parseBool(v); ok {
			return b, true
		}
	}
	return v, false
}

// object coerces the values of an object, copying it only when something
// changes.
func (c *coercer) object(v map[string]any) (any, bool) {
	if c.props == nil && c.extra == nil {
		return v, false
	}
	var out map[string]any
	for k, val := range v {
		nv, changed := c.child(k).value(val)
		if !changed {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(v))
			for k2, v2 := range v {
				out[k2] = v2
			}
		}
		out[k] = nv
	}
	if out == nil {
		return v, false
	}
	return out, true
}

func (c *coercer) array(v []any) (any, bool) {
	if c.items == nil && c.prefix == nil {
		return v, false
	}
	var out []any
	for i, val := range v {
		plan := c.items
		if i < len(c.prefix) {
			plan = c.prefix[i]
		}
		nv, changed := plan.value(val)
		if !changed {
			continue
		}
		if out == nil {
			out = make([]any, len(v))
			copy(out, v)
		}
		out[i] = nv
	}
	if out == nil {
		return v, false
	}
	return out, true
}

// integral converts an integral float within int64 range.
func integral(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return 0, false
	}
	return int64(f), true
}

// parseInt reads pydantic's lax integer strings: surrounding white space,
// an optional sign, digits, and an optional all-zero fraction ("5.00").
func parseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if strings.Trim(s[i+1:], "0") != "" {
			return 0, false
		}
		s = s[:i]
	}
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseFloat reads decimal float text. Infinities, NaN and Go-only forms
// (hex, underscores) are refused: they are not JSON numbers.
func parseFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// parseBool reads the strings pydantic accepts for bool.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "on", "t", "true", "y", "yes":
		return true, true
	case "0", "off", "f", "false", "n", "no":
		return false, true
	}
	return false, false
}
