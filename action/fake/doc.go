// Package fake provides scripted tools ([action.Tool]) for tests and
// offline runs: replies are chosen by the call's arguments, every call is
// recorded, and arguments are validated against the tool's schema first,
// so an agent or a flow that uses tools runs without the real services.
// Together with the scripted model of package llm/fake, a flow runs
// entirely offline (`troupe run --llm-script ... --tool-script ...`).
//
// A tool is built in Go with [NewTool] or read from YAML with [LoadTools]
// or [ParseTools]:
//
//	tools:
//	  - name: lookup_order
//	    description: Look up an order by its id.
//	    parameters:                    # JSON Schema of the arguments
//	      type: object                 # (default: {type: object})
//	      properties: {order_id: {type: string}}
//	      required: [order_id]
//	    replies:                       # the first entry whose match fits and
//	      - match: {order_id: A-1001}  # whose times are not used up answers
//	        result: {status: shipped, eta: tomorrow}
//	      - match: "(?i)B-"
//	        times: 1
//	        result: "order not found"
//	      - error: "order service down"
//	        delay: 250ms
//
// A match that is a mapping answers calls whose arguments hold each of its
// keys with an equal value (other arguments are ignored; numbers compare by
// value, so 1 equals 1.0). A match that is a string is an RE2 expression
// searched in the arguments as canonical JSON text: compact, keys sorted,
// as in {"order_id":"B-7"}. An entry without match answers every call. An
// entry's result is what the call returns (any YAML value, read as JSON
// data with YAML 1.2's rules, as in llm/fake: `yes` is a string); its
// error makes the call fail with that message ([*ToolError]).
//
// Arguments are decoded, coerced the way pydantic's lax mode does and
// validated against the parameters before any reply is chosen, as
// [action.NewTool] does; a mismatch is an [*action.ArgumentError]. Replies
// are matched against the coerced arguments. A call that no entry answers
// fails with an error wrapping [ErrUnmatched] and quoting its arguments.
//
// An entry's times is how many calls it may answer. Without times (0 in
// Go: a script cannot write times: 0) an entry answers without limit and its
// answers are not counted, so it is never "used up"; an entry with times n
// answers n calls, then lets the next matching entry answer. Reset
// restores every entry's times. llm/fake counts the same way.
//
// Start with [NewTool] and [ToolReply] (tool.go, reply.go), then the YAML
// script reader (script.go), built on internal/fakescript.
//
// It imports action, llm, llm/fake, schema and internal packages; it must
// not import flow.
package fake
