package flow

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML 1.1 implicit resolvers, as PyYAML's SafeLoader applies them.
var (
	reBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	reInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	reTime  = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)
)

func resolveScalar(y *yaml.Node) any {
	v := y.Value
	// Quoted and block scalars are strings.
	if y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return v
	}
	// An explicit tag other than a core scalar one keeps the text.
	if y.Style&yaml.TaggedStyle != 0 {
		switch y.Tag {
		case "!!null", "!!bool", "!!int", "!!float", "!!timestamp":
		default:
			return v
		}
	}
	// Like PyYAML, try the resolvers only for scalars whose first character
	// can start a null, bool, number or date; most text cannot.
	if v == "" {
		return nil
	}
	if !strings.ContainsRune("yYnNtTfFoO~-+.0123456789", rune(v[0])) {
		return v
	}
	switch {
	case reNull.MatchString(v):
		return nil
	case reBool.MatchString(v):
		switch strings.ToLower(v) {
		case "yes", "true", "on":
			return true
		}
		return false
	case reInt.MatchString(v):
		if i, ok := parseYAMLInt(v); ok {
			return i
		}
		return bigInt(v)
	case reFloat.MatchString(v):
		return parseYAMLFloat(v)
	case reTime.MatchString(v):
		return timestamp(v)
	}
	return v
}

// parseYAMLInt reads an integer in one of YAML 1.1's forms (decimal, 0b,
// 0x, leading-0 octal, sexagesimal, with _ separators). It reports false
// when the value does not fit in an int64.
func parseYAMLInt(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	sign := ""
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = "-", s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	base := 10
	switch {
	case s == "0":
		return 0, true
	case strings.HasPrefix(s, "0b"):
		base, s = 2, s[2:]
	case strings.HasPrefix(s, "0x"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0"):
		base, s = 8, s[1:]
	case strings.Contains(s, ":"):
		return parseSexagesimal(sign, s)
	}
	// The sign goes with the digits, so that the most negative int64 fits.
	v, err := strconv.ParseInt(sign+s, base, 64)
	return v, err == nil
}

// parseSexagesimal reads a base-60 integer such as 1:30:00, reporting false
// on overflow.
func parseSexagesimal(sign, s string) (int64, bool) {
	var v int64
	for _, part := range strings.Split(s, ":") {
		d, err := strconv.ParseInt(part, 10, 64)
		if err != nil || v > (math.MaxInt64-d)/60 {
			return 0, false
		}
		v = v*60 + d
	}
	if sign == "-" {
		v = -v
	}
	return v, true
}

func parseYAMLFloat(s string) float64 {
	s = strings.ReplaceAll(s, "_", "")
	lower := strings.ToLower(s)
	switch {
	case strings.HasSuffix(lower, ".inf"):
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case strings.HasSuffix(lower, ".nan"):
		return math.NaN()
	case strings.Contains(s, ":"):
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimLeft(s, "+-")
		parts := strings.Split(s, ":")
		var v float64
		for _, p := range parts {
			d, _ := strconv.ParseFloat(p, 64)
			v = v*60 + d
		}
		if neg {
			v = -v
		}
		return v
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
