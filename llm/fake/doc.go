// Package fake provides a scripted [llm.LLM] for tests: replies are chosen by
// regular expressions searched in the conversation, every request is
// recorded, and token usage is deterministic, so a flow or an agent can be
// tested without a network or a key.
//
// A script is built in Go with [New] or read from YAML with [Load] or [Parse]:
//
//	function_calling: true        # false: no native tool calls (ReAct path)
//	replies:                      # the first entry whose match is found and
//	  - match: "Follow-up router" # whose times are not used up answers
//	    times: 1
//	    text: followup
//	  - match: "(?s)Research.*AI"
//	    tool_calls:
//	      - {name: search, arguments: {query: AI agents}}
//	  - json: {category: billing}
//	  - error: "rate limited"
//	    status: 429
//
// A match is an RE2 expression searched in the transcript: the text of every
// message of the request (system, user, assistant, tool results), skipping
// empty ones, joined by newlines. An entry without match answers anything.
// A request that no entry answers fails with an error quoting the end of its
// transcript.
//
// An entry's times is how many requests it may answer. Without times (0 in
// Go: a script cannot write times: 0) an entry answers without limit and its
// answers are not counted, so it is never "used up"; an entry with times n
// answers n requests, then lets the next matching entry answer. Reset
// restores every entry's times. action/fake counts the same way.
//
// Without an explicit usage, a reply's usage is estimated as
// ceil(len(transcript)/4) input tokens and ceil(len(reply)/4) output tokens,
// where the reply's length is that of its text plus, for each tool call, its
// name and arguments.
//
// Start with [New] and [Reply] (model.go, reply.go), then the YAML script
// reader (script.go), built on internal/fakescript.
//
// It imports llm and internal packages; it must not import flow or
// action.
package fake
