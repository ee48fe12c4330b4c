package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/troupe-dev/troupe/llm"
)

// A StructuredOutputError reports a final answer that did not match the
// response schema, even after the model was asked once more with the
// validation error. RunAgent returns it inside an *AgentError, which names
// the agent.
type StructuredOutputError struct {
	Agent string
	Raw   string // the last answer
	Err   error  // why it does not match
}

// Error implements error.
func (e *StructuredOutputError) Error() string {
	return fmt.Sprintf("the answer does not match the response schema: %v", e.Err)
}

// Unwrap returns the validation error.
func (e *StructuredOutputError) Unwrap() error { return e.Err }

// structured turns the final answer into data matching the response schema.
// A mismatch is sent back to the model once with the validation error.
func (l *loop) structured(ctx context.Context, raw string) (any, string, error) {
	v, text, err := l.conform(raw)
	if err == nil {
		return v, text, nil
	}
	if n := len(l.msgs); n == 0 || l.msgs[n-1].Role != llm.RoleAssistant {
		l.msgs = append(l.msgs, llm.Assistant(raw)) // a result_as_answer tool's result
	}
	l.msgs = append(l.msgs, llm.User(fmt.Sprintf(schemaRetryMessage, err)))
	req := l.request(false)
	req.ResponseSchema = &llm.ResponseSchema{Name: "answer", Schema: l.respDoc}
	resp, gerr := l.generate(ctx, req)
	if gerr != nil {
		return nil, "", gerr
	}
	retry := resp.Text()
	l.msgs = append(l.msgs, llm.Assistant(retry))
	v, text, err = l.conform(retry)
	if err != nil {
		return nil, "", &StructuredOutputError{Agent: l.spec.Role, Raw: retry, Err: err}
	}
	return v, text, nil
}

// conform extracts the JSON of an answer and validates it, coercing an
// object the way pydantic's lax mode does. It returns the data and its JSON
// text.
func (l *loop) conform(answer string) (any, string, error) {
	if i := strings.LastIndex(answer, finalAnswerMarker); i >= 0 {
		answer = answer[i+len(finalAnswerMarker):]
	}
	js := extractJSON(answer)
	v, err := l.respSchema.ConformJSON(js)
	if err != nil {
		return nil, "", err
	}
	return v, string(js), nil
}
