package schema

import (
	"math/big"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// pyRepr writes v the way Python's repr() would, for messages that must
// read like pydantic's ('a', 5, 2.5, True, None, [1, 'x'], {'k': 1}).
func pyRepr(v any) string { return pyjson.Repr(v) }

// pyFloat formats f like Python's float repr.
func pyFloat(f float64) string { return string(pyjson.AppendFloatRepr(nil, f)) }

// ratText writes a schema bound the way the author most likely wrote it:
// integers without a fraction, others as Python floats.
func ratText(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return pyFloat(f)
}
