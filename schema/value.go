package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// valueData converts values to validate: shared when they already are JSON
// data, float32 through its shortest decimal form so 0.1 stays 0.1, other
// containers and named types by reflection; values that cannot be JSON
// data (structs, channels, ...) are kept as they are, and validation then
// reports them.
var valueData = jsondata.Options{ShortFloat32: true, Reflect: true, Unknown: jsondata.Keep}

// copyData is valueData copying every container.
var copyData = jsondata.Options{Copy: true, ShortFloat32: true, Reflect: true, Unknown: jsondata.Keep}

// normalize returns v in canonical form, copying only where needed (see
// valueData).
func normalize(v any) any {
	out, _ := jsondata.Convert(v, &valueData)
	return out
}

// toCanonical converts v to canonical JSON data; containers are always
// copied.
func toCanonical(v any) any {
	out, _ := jsondata.Convert(v, &copyData)
	return out
}

// decodeJSON parses one JSON value into canonical JSON data: integers
// without a fraction or exponent become int64, other numbers float64.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return numbersToCanonical(v), nil
}

// numbersToCanonical converts json.Number leaves in place; the containers
// come fresh from the decoder, so mutating them is safe.
func numbersToCanonical(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, ok := jsondata.ParseNumber(string(v)); ok {
			return n
		}
		return string(v)
	case []any:
		for i, e := range v {
			v[i] = numbersToCanonical(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = numbersToCanonical(e)
		}
	}
	return v
}
