package flow

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/troupe-dev/troupe/llm"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A FeedbackProvider asks a person to review a method's output. Returning
// an error that wraps ErrPending pauses the run instead: Run returns a
// Result whose Pending says what is asked, and Resume continues it later,
// in any process, once the answer is known.
type FeedbackProvider interface {
	RequestFeedback(ctx context.Context, req *FeedbackRequest) (string, error)
}

// FeedbackFunc adapts a function to a FeedbackProvider.
type FeedbackFunc func(ctx context.Context, req *FeedbackRequest) (string, error)

// RequestFeedback calls f.
func (f FeedbackFunc) RequestFeedback(ctx context.Context, req *FeedbackRequest) (string, error) {
	return f(ctx, req)
}

// ErrPending is what a FeedbackProvider returns to pause the run until
// the feedback arrives through Engine.Resume.
var ErrPending = errors.New("flow: feedback pending")

// PendingProvider pauses every run that asks for feedback.
var PendingProvider FeedbackProvider = FeedbackFunc(func(context.Context, *FeedbackRequest) (string, error) {
	return "", ErrPending
})

// FeedbackRequest is what a provider is asked.
type FeedbackRequest struct {
	FlowID         string
	Flow           string
	Method         string
	Output         any
	Message        string
	Emit           []string
	DefaultOutcome string
	Metadata       map[string]any
}

// WithFeedback sets the provider of methods whose human_feedback names no
// provider. Without one, such runs pause (as with PendingProvider).
func WithFeedback(p FeedbackProvider) Option { return func(e *Engine) { e.feedback = p } }

// WithFeedbackProvider registers a provider under a human_feedback.provider
// ref such as "my_app:SlackReview".
func WithFeedbackProvider(ref string, p FeedbackProvider) Option {
	return func(e *Engine) { e.feedbackRefs[ref] = p }
}

// feedbackResult is CrewAI's HumanFeedbackResult as JSON data.
func feedbackResult(method string, out any, feedback string, outcome *string, metadata map[string]any, at time.Time) map[string]any {
	var oc any
	if outcome != nil {
		oc = *outcome
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	return map[string]any{
		"output": normalize(out), "feedback": feedback, "outcome": oc,
		"timestamp": at.UTC().Format(time.RFC3339Nano), "method_name": method, "metadata": metadata,
	}
}

// provider picks the feedback provider of a method.
func (e *Engine) provider(hf *HumanFeedback) (FeedbackProvider, error) {
	if hf.Provider != "" {
		p, ok := e.feedbackRefs[hf.Provider]
		if !ok {
			return nil, fmt.Errorf("unresolvable human_feedback.provider ref '%s' (register it with flow.WithFeedbackProvider)", hf.Provider)
		}
		return p, nil
	}
	if e.feedback != nil {
		return e.feedback, nil
	}
	return PendingProvider, nil
}

// outcome turns feedback into one of emit: empty feedback gives the
// default outcome (else the first), free text is read by the model.
func (e *Engine) feedbackOutcome(ctx context.Context, r *run, hf *HumanFeedback, feedback string) *string {
	if len(hf.Emit) == 0 {
		return nil
	}
	if strings.TrimSpace(feedback) == "" {
		o := hf.Emit[0]
		if hf.DefaultOutcome != "" {
			o = hf.DefaultOutcome
		}
		return &o
	}
	for _, o := range hf.Emit {
		if strings.EqualFold(o, strings.TrimSpace(feedback)) {
			return &o
		}
	}
	o := hf.Emit[0]
	m, err := e.model(ctx, hf.LLM)
	if err != nil {
		return &o
	}
	prompt := fmt.Sprintf("A reviewer answered with this feedback:\n\n%s\n\nWhich of these outcomes does the reviewer want? %s\n\nAnswer with exactly one of those words and nothing else.",
		feedback, strings.Join(hf.Emit, ", "))
	enum := make([]any, len(hf.Emit))
	for i, v := range hf.Emit {
		enum[i] = v
	}
	req := &llm.Request{
		Messages: []llm.Message{llm.User(prompt)},
		ResponseSchema: &llm.ResponseSchema{Name: "outcome", Schema: map[string]any{
			"type": "object", "properties": map[string]any{"outcome": map[string]any{"type": "string", "enum": enum}},
			"required": []any{"outcome"}, "additionalProperties": false,
		}},
	}
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return &o
	}
	r.addUsage(resp.Usage)
	text := resp.Text()
	if parsed, err := jsondata.Decode([]byte(text)); err == nil {
		if obj, ok := parsed.(map[string]any); ok {
			if s, ok := obj["outcome"].(string); ok {
				text = s
			}
		}
	}
	if got, ok := matchOutcome(text, hf.Emit); ok {
		return &got
	}
	return &o
}

// matchOutcome finds text among outcomes: exactly, case-insensitively, or
// as the longest outcome contained in it.
func matchOutcome(text string, outcomes []string) (string, bool) {
	t := strings.TrimSpace(text)
	for _, o := range outcomes {
		if strings.EqualFold(o, t) {
			return o, true
		}
	}
	sorted := append([]string(nil), outcomes...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	lower := strings.ToLower(t)
	for _, o := range sorted {
		if o != "" && strings.Contains(lower, strings.ToLower(o)) {
			return o, true
		}
	}
	return "", false
}
