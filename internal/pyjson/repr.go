package pyjson

// Repr returns Python's repr() of the JSON data v: None, True and False,
// ints, floats as repr() writes them (inf and nan included), strings quoted
// by QuoteRepr, lists as [a, b] and dicts as {'k': v} with keys sorted.
// It accepts the same types as Dumps.
func Repr(v any) string {
	var buf [64]byte
	return string(AppendRepr(buf[:0], v))
}

// AppendRepr appends Repr(v) to dst.
func AppendRepr(dst []byte, v any) []byte { return reprSpelling.append(dst, v) }
