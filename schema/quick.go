package schema

import (
	"math"
	"math/big"
	"unicode/utf8"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// quick is a compiled subset of a schema that can confirm, without
// allocating, that a value is valid. It never explains failures: when it
// cannot confirm validity, Validate runs the full validator, which also
// words the errors. Schemas using keywords outside the subset get no quick
// checker at all.
type quick struct {
	boolean  int8    // +1 for the true schema, -1 for false, 0 otherwise
	types    typeSet // as declared; integer admits integral floats
	enum     []any   // scalar values
	hasConst bool
	constVal any

	props    map[string]*quick
	required []string
	noExtra  bool   // additionalProperties: false
	extra    *quick // additionalProperties as a schema
	items    *quick
	minItems int
	maxItems int
	minLen   int
	maxLen   int
	pattern  jsonschema.Regexp
	bounds   [4]float64 // minimum, maximum, exclusiveMinimum, exclusiveMaximum
	hasBound [4]bool
	ref      *quick
	allOf    []*quick
	anyOf    []*quick
	oneOf    []*quick
}

// quickDepth bounds recursion, which also ends $ref loops that consume no
// data; past it the full validator decides.
const quickDepth = 200

type quickBuilder struct {
	memo map[*jsonschema.Schema]*quick
	ok   bool
}

// buildQuick returns the quick checker for s, or nil when s uses keywords
// it does not cover.
func buildQuick(s *jsonschema.Schema) *quick {
	b := &quickBuilder{memo: map[*jsonschema.Schema]*quick{}, ok: true}
	q := b.build(s)
	if !b.ok {
		return nil
	}
	return q
}

func (b *quickBuilder) build(s *jsonschema.Schema) *quick {
	if s == nil || !b.ok {
		return nil
	}
	if q, ok := b.memo[s]; ok {
		return q
	}
	q := &quick{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	b.memo[s] = q
	if s.Bool != nil {
		q.boolean = -1
		if *s.Bool {
			q.boolean = 1
		}
		return q
	}
	if !quickSupports(s) {
		b.ok = false
		return nil
	}
	if s.Types != nil {
		for _, name := range s.Types.ToStrings() {
			q.types |= typeFromName(name)
		}
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			if !scalar(v) {
				b.ok = false
				return nil
			}
		}
		q.enum = s.Enum.Values
	}
	if s.Const != nil {
		if !scalar(*s.Const) {
			b.ok = false
			return nil
		}
		q.hasConst, q.constVal = true, *s.Const
	}
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quick, len(s.Properties))
		for name, sub := range s.Properties {
			q.props[name] = b.build(sub)
		}
	}
	q.required = s.Required
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		q.noExtra = !ap
	case *jsonschema.Schema:
		q.extra = b.build(ap)
	}
	switch it := s.Items.(type) {
	case nil:
	case *jsonschema.Schema:
		q.items = b.build(it)
	default:
		b.ok = false
		return nil
	}
	if s.Items2020 != nil {
		q.items = b.build(s.Items2020)
	}
	q.minItems, q.maxItems = intOr(s.MinItems), intOr(s.MaxItems)
	q.minLen, q.maxLen = intOr(s.MinLength), intOr(s.MaxLength)
	q.pattern = s.Pattern
	for i, r := range [4]*big.Rat{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if r == nil {
			continue
		}
		f, exact := r.Float64()
		if !exact {
			b.ok = false
			return nil
		}
		q.bounds[i], q.hasBound[i] = f, true
	}
	q.ref = b.build(s.Ref)
	q.allOf = b.buildAll(s.AllOf)
	q.anyOf = b.buildAll(s.AnyOf)
	q.oneOf = b.buildAll(s.OneOf)
	return q
}

func (b *quickBuilder) buildAll(list []*jsonschema.Schema) []*quick {
	if len(list) == 0 {
		return nil
	}
	out := make([]*quick, len(list))
	for i, s := range list {
		out[i] = b.build(s)
	}
	return out
}

// quickSupports reports whether every keyword of s is in the quick subset.
func quickSupports(s *jsonschema.Schema) bool {
	return s.DraftVersion >= 2019 &&
		s.Not == nil && s.If == nil && s.Format == nil &&
		s.DynamicRef == nil && s.RecursiveRef == nil &&
		s.MinProperties == nil && s.MaxProperties == nil && s.PropertyNames == nil &&
		len(s.PatternProperties) == 0 && len(s.Dependencies) == 0 &&
		len(s.DependentRequired) == 0 && len(s.DependentSchemas) == 0 &&
		s.UnevaluatedProperties == nil && s.UnevaluatedItems == nil &&
		!s.UniqueItems && s.Contains == nil && s.MinContains == nil && s.MaxContains == nil &&
		s.AdditionalItems == nil && len(s.PrefixItems) == 0 &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		s.MultipleOf == nil && len(s.Extensions) == 0
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func scalar(v any) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// valid reports whether v is certainly valid; false means "ask the full
// validator".
func (q *quick) valid(v any, depth int) bool {
	if q == nil {
		return true
	}
	if depth > quickDepth {
		return false
	}
	if q.boolean != 0 {
		return q.boolean > 0
	}
	t := valueType(v)
	if t == 0 {
		return false
	}
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return false
	}
	if q.types != 0 && !q.types.has(t) {
		switch {
		case t == tInteger && q.types.has(tNumber):
		case t == tNumber && q.types.has(tInteger) && isIntegral(v.(float64)):
		default:
			return false
		}
	}
	if q.hasConst && !scalarEqual(v, q.constVal) {
		return false
	}
	if q.enum != nil && !q.inEnum(v) {
		return false
	}
	switch v := v.(type) {
	case string:
		if !q.validString(v) {
			return false
		}
	case int64, float64:
		if !q.validNumber(v) {
			return false
		}
	case map[string]any:
		if !q.validObject(v, depth) {
			return false
		}
	case []any:
		if !q.validArray(v, depth) {
			return false
		}
	}
	if q.ref != nil && !q.ref.valid(v, depth+1) {
		return false
	}
	for _, sub := range q.allOf {
		if !sub.valid(v, depth+1) {
			return false
		}
	}
	if q.anyOf != nil {
		matched := false
		for _, sub := range q.anyOf {
			if sub.valid(v, depth+1) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if q.oneOf != nil {
		// "Not valid" from the quick check may be "unsure", so exactly
		// one confirmed branch is not proof; only a single branch is.
		if len(q.oneOf) != 1 || !q.oneOf[0].valid(v, depth+1) {
			return false
		}
	}
	return true
}

func (q *quick) inEnum(v any) bool {
	for _, e := range q.enum {
		if scalarEqual(v, e) {
			return true
		}
	}
	return false
}

func (q *quick) validString(s string) bool {
	if q.minLen >= 0 || q.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
			return false
		}
	}
	return q.pattern == nil || q.pattern.MatchString(s)
}

func (q *quick) validNumber(v any) bool {
	var f float64
	switch n := v.(type) {
	case int64:
		if n > 1<<53 || n < -(1<<53) {
			return !(q.hasBound[0] || q.hasBound[1] || q.hasBound[2] || q.hasBound[3])
		}
		f = float64(n)
	case float64:
		f = n
	}
	return (!q.hasBound[0] || f >= q.bounds[0]) &&
		(!q.hasBound[1] || f <= q.bounds[1]) &&
		(!q.hasBound[2] || f > q.bounds[2]) &&
		(!q.hasBound[3] || f < q.bounds[3])
}

func (q *quick) validObject(m map[string]any, depth int) bool {
	for _, name := range q.required {
		if _, ok := m[name]; !ok {
			return false
		}
	}
	for k, val := range m {
		if sub, ok := q.props[k]; ok {
			if !sub.valid(val, depth+1) {
				return false
			}
			continue
		}
		if q.noExtra {
			return false
		}
		if q.extra != nil && !q.extra.valid(val, depth+1) {
			return false
		}
	}
	return true
}

func (q *quick) validArray(a []any, depth int) bool {
	if q.minItems >= 0 && len(a) < q.minItems || q.maxItems >= 0 && len(a) > q.maxItems {
		return false
	}
	if q.items != nil {
		for _, e := range a {
			if !q.items.valid(e, depth+1) {
				return false
			}
		}
	}
	return true
}

func isIntegral(f float64) bool {
	return f == math.Trunc(f) && !math.IsInf(f, 0)
}

// scalarEqual compares JSON scalars as JSON Schema does: 1 equals 1.0.
func scalarEqual(a, b any) bool {
	switch a := a.(type) {
	case int64:
		switch b := b.(type) {
		case int64:
			return a == b
		case float64:
			return floatEqualsInt(b, a)
		}
		return false
	case float64:
		switch b := b.(type) {
		case float64:
			return a == b
		case int64:
			return floatEqualsInt(a, b)
		}
		return false
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case nil:
		return b == nil
	}
	return false
}

func floatEqualsInt(f float64, i int64) bool {
	if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return false
	}
	return int64(f) == i
}
