package flow

import "fmt"

// eventText turns a router's result into an event name the way Python's
// str() would: text as is, True/False, numbers, and Python reprs for
// lists and maps. Results with a String method (agent and crew outputs)
// use it.
func eventText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case fmt.Stringer:
		return x.String()
	case map[string]any, []any:
		return pyRepr(x)
	}
	return pyRepr(normalize(v))
}
