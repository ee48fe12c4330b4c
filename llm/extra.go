package llm

import (
	"fmt"
	"math"
)

// ExtraInt reads the setting key of Extra as a non-negative integer, the
// rule for every integer setting a provider reads from there (max_retries):
// any Go integer, a float or json.Number with no fraction, or a string
// holding such a number. ok is false when the key is absent or null. Any
// other value (1.5, "abc", true, a negative number, or more than
// math.MaxInt32) is a [*ConfigError] naming the key, so a mistyped setting
// fails when the model is built instead of being silently ignored.
func (c Config) ExtraInt(key string) (n int, ok bool, err error) {
	v, present := c.Extra[key]
	if !present || v == nil {
		return 0, false, nil
	}
	i, isInt := toInt(v)
	if !isInt {
		return 0, false, &ConfigError{Model: c.Model, Key: key, Msg: "must be a whole number, got " + describe(v)}
	}
	if i < 0 || i > math.MaxInt32 {
		return 0, false, &ConfigError{Model: c.Model, Key: key, Msg: fmt.Sprintf("must be between 0 and %d, got %d", math.MaxInt32, i)}
	}
	return int(i), true, nil
}

// ExtraString reads the setting key of Extra as a string, the rule for every
// string setting a provider reads from there (organization, project). ok is
// false when the key is absent or null; any other type is a [*ConfigError]
// naming the key.
func (c Config) ExtraString(key string) (s string, ok bool, err error) {
	v, present := c.Extra[key]
	if !present || v == nil {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, &ConfigError{Model: c.Model, Key: key, Msg: "must be a string, got " + describe(v)}
	}
	return s, true, nil
}
