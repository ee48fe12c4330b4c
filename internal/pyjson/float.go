package pyjson

import (
	"math"
	"strconv"
)

// appendFloatRepr appends repr(f) for a finite f: the shortest digits that read
// back to f, in fixed notation with at least one decimal ("3.0", "0.0001")
// when the decimal exponent is in [-4, 16), otherwise in exponent notation with
// a signed exponent of at least two digits ("1e+16", "1.5e-07").
func appendFloatRepr(dst []byte, f float64) []byte {
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	exp := 0
	for i := len(sci) - 1; i >= 0; i-- {
		if sci[i] == 'e' {
			exp, _ = strconv.Atoi(string(sci[i+1:]))
			break
		}
	}
	if exp < -4 || exp >= 16 {
		return append(dst, sci...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// AppendFloatRepr appends Python's repr() of f: like json.dumps for finite
// values, and "inf", "-inf" or "nan" otherwise.
func AppendFloatRepr(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return appendFloatRepr(dst, f)
}
