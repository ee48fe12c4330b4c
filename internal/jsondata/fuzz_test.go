package jsondata_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// reference decodes with encoding/json the way Decode promises to.
func reference(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, assert.AnError
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return convert(v), nil
}

func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		for i, it := range x {
			x[i] = convert(it)
		}
	case map[string]any:
		for k, it := range x {
			x[k] = convert(it)
		}
	}
	return v
}

func hasInf(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsInf(x, 0)
	case []any:
		for _, it := range x {
			if hasInf(it) {
				return true
			}
		}
	case map[string]any:
		for _, it := range x {
			if hasInf(it) {
				return true
			}
		}
	}
	return false
}

// FuzzDecode checks Decode against encoding/json, and that what Decode
// reads, Marshal writes and Decode reads back the same.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`null`, `true`, `{"a":[1,2.5,-0,1e3,"x\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t"]}`,
		`[{"":{}},[],[[]]]`, `"\ud800"`, `"\udc00\ud800x"`, "\"a\xffb\"", `9223372036854775808`,
		`-9223372036854775808`, `1e400`, `0.1e-5`, ` [1 , 2 ] `, `{"a":1,"a":2}`, `01`, `[1,]`, `"\u12"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := jsondata.Decode(data)
		want, refErr := reference(data)
		if refErr != nil {
			require.Error(t, err, "encoding/json rejects %q", data)
			return
		}
		if hasInf(want) {
			require.Error(t, err, "out of range number in %q", data)
			return
		}
		require.NoError(t, err, "encoding/json accepts %q", data)
		require.Equal(t, want, got)

		text, err := jsondata.Marshal(got)
		require.NoError(t, err)
		again, err := jsondata.Decode(text)
		require.NoError(t, err)
		require.Equal(t, got, again)
	})
}

func TestDecodeDeepNesting(t *testing.T) {
	_, err := jsondata.Decode([]byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)))
	assert.ErrorContains(t, err, "nesting too deep")

	v, err := jsondata.Decode([]byte(strings.Repeat("[", 100) + strings.Repeat("]", 100)))
	require.NoError(t, err)
	assert.IsType(t, []any{}, v)
}
