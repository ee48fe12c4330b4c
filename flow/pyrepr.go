package flow

import "github.com/troupe-dev/troupe/internal/pyjson"

// pyRepr renders JSON data the way Python's repr() does, since CrewAI's
// messages quote values with it: 'text', True, None, {'or': ['a', 'b']}.
func pyRepr(v any) string { return pyjson.Repr(v) }
