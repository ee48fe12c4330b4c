package jsondata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Decode parses one JSON value into JSON data: integers that fit become
// int64, every other number float64.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("jsondata: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("jsondata: data after the JSON value")
	}
	return fromNumbers(v), nil
}

// DecodeMap is Decode for a JSON object; null gives a nil map.
func DecodeMap(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("jsondata: got %s, want an object", kind(v))
}

// fromNumbers replaces json.Number values in place.
func fromNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return number(string(x))
	case []any:
		for i, it := range x {
			x[i] = fromNumbers(it)
		}
	case map[string]any:
		for k, it := range x {
			if n, ok := it.(json.Number); ok {
				x[k] = number(string(n))
			} else {
				fromNumbers(it)
			}
		}
	}
	return v
}

// number converts the text of a valid JSON number.
func number(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// kind names the JSON type of v for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
