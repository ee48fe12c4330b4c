package schema

import (
	"fmt"
	"strconv"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// describeLeaf words one failing keyword the way pydantic words the
// matching error. Some keywords (required, additionalProperties) name
// several fields at once.
func describeLeaf(l leaf, root any) []FieldError {
	input := lookup(root, l.loc)
	path := joinPath(l.loc)
	one := func(kindName, msg string) []FieldError {
		return []FieldError{{Path: path, Kind: kindName, Message: msg, Input: input}}
	}
	switch k := l.kind.(type) {
	case *kind.Required:
		out := make([]FieldError, len(k.Missing))
		for i, name := range k.Missing {
			out[i] = FieldError{Path: joinPath(l.loc, name), Kind: "missing", Message: "Field required"}
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]FieldError, len(k.Properties))
		obj, _ := input.(map[string]any)
		for i, name := range k.Properties {
			out[i] = FieldError{Path: joinPath(l.loc, name), Kind: "extra_forbidden",
				Message: "Extra inputs are not permitted", Input: obj[name]}
		}
		return out
	case *kind.Type:
		kindName, msg := typeMessage(l.want, input)
		return one(kindName, msg)
	case *kind.Enum:
		return one("literal_error", "Input should be "+pyAlternatives(k.Want))
	case *kind.Const:
		return one("literal_error", "Input should be "+pyRepr(k.Want))
	case *kind.MinLength:
		return one("string_too_short", fmt.Sprintf("String should have at least %s", plural(k.Want, "character")))
	case *kind.MaxLength:
		return one("string_too_long", fmt.Sprintf("String should have at most %s", plural(k.Want, "character")))
	case *kind.Pattern:
		return one("string_pattern_mismatch", "String should match pattern "+pyRepr(k.Want))
	case *kind.Minimum:
		return one("greater_than_equal", "Input should be greater than or equal to "+ratText(k.Want))
	case *kind.ExclusiveMinimum:
		return one("greater_than", "Input should be greater than "+ratText(k.Want))
	case *kind.Maximum:
		return one("less_than_equal", "Input should be less than or equal to "+ratText(k.Want))
	case *kind.ExclusiveMaximum:
		return one("less_than", "Input should be less than "+ratText(k.Want))
	case *kind.MultipleOf:
		return one("multiple_of", "Input should be a multiple of "+ratText(k.Want))
	case *kind.MinItems:
		return one("too_short", fmt.Sprintf("List should have at least %s after validation, not %d", plural(k.Want, "item"), k.Got))
	case *kind.MaxItems:
		return one("too_long", fmt.Sprintf("List should have at most %s after validation, not %d", plural(k.Want, "item"), k.Got))
	case *kind.MinProperties:
		return one("too_short", fmt.Sprintf("Dictionary should have at least %s after validation, not %d", plural(k.Want, "item"), k.Got))
	case *kind.MaxProperties:
		return one("too_long", fmt.Sprintf("Dictionary should have at most %s after validation, not %d", plural(k.Want, "item"), k.Got))
	case *kind.UniqueItems:
		return one("unique_items", fmt.Sprintf("List should have unique items; items %d and %d are equal", k.Duplicates[0], k.Duplicates[1]))
	case *kind.FalseSchema:
		if len(l.loc) > 0 {
			if _, inObject := lookup(root, l.loc[:len(l.loc)-1]).(map[string]any); inObject {
				// unevaluatedProperties: false, or a property schema of false.
				return one("extra_forbidden", "Extra inputs are not permitted")
			}
		}
		return one("forbidden", "Input is not permitted")
	case *kind.InvalidJsonValue:
		return one("invalid_type", fmt.Sprintf("Input should be JSON data, not Go type %T", k.Value))
	}
	return one(keywordName(l.kind), capitalize(l.kind.LocalizedString(printer())))
}

// typeMessage picks pydantic's wording for a type mismatch.
func typeMessage(want typeSet, input any) (string, string) {
	got := valueType(input)
	nonNull := want &^ tNull
	if nonNull == 0 {
		return "none_required", "Input should be None"
	}
	if nonNull.has(tNumber) {
		nonNull &^= tInteger
	}
	names := nonNull.strings()
	if len(names) > 1 {
		return "type_error", "Input should be a valid " + orList(names)
	}
	switch nonNull {
	case tInteger:
		switch got {
		case tString:
			return "int_parsing", "Input should be a valid integer, unable to parse string as an integer"
		case tNumber:
			return "int_from_float", "Input should be a valid integer, got a number with a fractional part"
		}
		return "int_type", "Input should be a valid integer"
	case tNumber:
		if got == tString {
			return "float_parsing", "Input should be a valid number, unable to parse string as a number"
		}
		return "float_type", "Input should be a valid number"
	case tBoolean:
		if got == tString || got == tInteger || got == tNumber {
			return "bool_parsing", "Input should be a valid boolean, unable to interpret input"
		}
		return "bool_type", "Input should be a valid boolean"
	case tString:
		return "string_type", "Input should be a valid string"
	case tArray:
		return "list_type", "Input should be a valid list"
	case tObject:
		return "dict_type", "Input should be a valid dictionary"
	}
	return "type_error", "Input should be a valid " + orList(names)
}

// pyAlternatives writes pydantic's literal list: 'a', 'b' or 'c'.
func pyAlternatives(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = pyRepr(v)
	}
	return orList(parts)
}

func orList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// keywordName names an error kind after its keyword ("dependentRequired").
func keywordName(k jsonschema.ErrorKind) string {
	if p := k.KeywordPath(); len(p) > 0 {
		return p[0]
	}
	name := fmt.Sprintf("%T", k)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}

func printer() *message.Printer { return message.NewPrinter(language.English) }

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
