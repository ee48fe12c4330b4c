// Package schema does the JSON Schema work of a flow: it validates flow state
// and kickoff inputs, coerces inputs the way pydantic's lax mode does, and
// reflects Go types into schemas for tool arguments.
//
// Schemas are compiled once (Compile, CompileState) and are safe for
// concurrent use. Values are JSON data: nil, bool, int64, float64, string,
// []any and map[string]any. Other Go numbers, []string, map[string]string and
// similar shapes are accepted as input and converted; results use only the
// canonical forms, and integers stay int64.
//
// Validation errors read like pydantic's, so that messages such as
// "Invalid inputs for structured state: ..." match CrewAI's:
//
//	count: Input should be a valid integer, unable to parse string as an integer
//
// Start with [Compile] and [Schema] (schema.go), then validation
// (validate.go), lax coercion (coerce.go) and reflection of Go types
// (reflect.go).
//
// It imports its JSON Schema libraries and internal packages only; it must
// not import anything else of Troupe.
package schema
