package llmtest_test

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/troupe-dev/troupe/llm"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/llm/llmtest"
)

// fakeServer scripts llm/fake: each call is answered by a fake model built
// from the next pushed reply, and recorded from the fake's own record.
type fakeServer struct {
	mu       sync.Mutex
	replies  []llmtest.Reply
	received []llmtest.Received
}

func (s *fakeServer) Push(replies ...llmtest.Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

func (s *fakeServer) Received() []llmtest.Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llmtest.Received(nil), s.received...)
}

// model pops the next reply as a one-reply fake model.
func (s *fakeServer) model() *fake.Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return fake.New()
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	fr := fake.Reply{Text: r.Text, FinishReason: r.FinishReason, Error: r.Error, Status: r.Status}
	if r.Status != 0 && fr.Error == "" {
		fr.Error = "error"
	}
	for _, c := range r.ToolCalls {
		fr.ToolCalls = append(fr.ToolCalls, fake.ToolCall{ID: c.ID, Name: c.Name, Arguments: []byte(c.Arguments)})
	}
	if !r.Usage.IsZero() {
		u := r.Usage
		fr.Usage = &u
	}
	if r.Hang {
		fr.Delay = time.Hour
	}
	return fake.New(fr)
}

func (s *fakeServer) record(m *fake.Model, stream bool) {
	reqs := m.Requests()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range reqs {
		s.received = append(s.received, llmtest.Received{Request: r, Stream: stream})
	}
}

// fakeLLM routes calls to the fake models.
type fakeLLM struct{ srv *fakeServer }

func (f fakeLLM) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	m := f.srv.model()
	defer f.srv.record(m, false)
	return m.Generate(ctx, req)
}

func (f fakeLLM) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		m := f.srv.model()
		defer f.srv.record(m, true)
		m.Stream(ctx, req)(yield)
	}
}

func TestConformanceFake(t *testing.T) {
	llmtest.Run(t, llmtest.Harness{
		Name: "fake",
		New: func(t *testing.T) (llm.LLM, llmtest.Server) {
			srv := &fakeServer{}
			return fakeLLM{srv}, srv
		},
	})
}
