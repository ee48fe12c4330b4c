// Package jsondata reads, writes and copies Troupe's JSON data (nil, bool,
// int64, float64, string, []any, map[string]any) without losing the
// difference between an integer and a float.
//
// encoding/json writes the float 2.0 as "2" and reads every number back as a
// float64, so a value saved and loaded with it changes type. Here floats are
// always written with a fraction or an exponent, and numbers read back as
// int64 when they are integers that fit, else as float64. Stores use the
// package to keep run snapshots exact.
//
// Start with [Convert] and its [Options] (convert.go), the converter every
// package uses to turn Go values into JSON data; then [Marshal] and
// [Decode] (encode.go, decode.go), [Clone] and [Copy] (clone.go), and
// [AppendQuoted], the one string escaper (escape.go).
//
// It imports the standard library only; it must not import anything of
// Troupe.
package jsondata
