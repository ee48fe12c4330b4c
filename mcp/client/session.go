package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
)

// A session is the connection to one server configuration. Its SDK session
// is made on first use, shared by concurrent calls, and made again when the
// server went away.
type session struct {
	c   *Connector
	srv mcp.Server
	key string

	mu       sync.Mutex
	cs       *sdk.ClientSession
	stop     func() // ends the context the SDK session lives in
	stderr   *stderrLog
	connects int
	closed   bool
}

// errSessionClosed is the error of a session used after it was closed.
var errSessionClosed = errors.New("the MCP session is closed")

// get returns the live SDK session, connecting first when there is none.
func (s *session) get(ctx context.Context, w who) (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errSessionClosed
	}
	if s.cs != nil {
		return s.cs, nil
	}
	cs, stop, err := s.c.connect(ctx, s, w, s.connects > 0)
	if err != nil {
		return nil, err
	}
	s.connects++
	s.cs, s.stop = cs, stop
	s.c.mu.Lock()
	s.c.open[s] = true
	s.c.bySDK[cs] = s
	s.c.mu.Unlock()
	return cs, nil
}

// dead forgets cs after a call found its connection closed, so that the
// next use connects again.
func (s *session) dead(cs *sdk.ClientSession) {
	s.mu.Lock()
	if s.cs != cs {
		s.mu.Unlock()
		return
	}
	stop := s.stop
	s.cs, s.stop = nil, nil
	s.mu.Unlock()
	s.forget(cs)
	_ = cs.Close()
	stop()
}

// close ends the session: for a stdio server, closes its stdin, waits for
// it to exit, then sends SIGTERM and at last SIGKILL.
func (s *session) close() error {
	s.mu.Lock()
	s.closed = true
	cs, stop := s.cs, s.stop
	s.cs, s.stop = nil, nil
	s.mu.Unlock()
	s.c.mu.Lock()
	delete(s.c.open, s)
	s.c.mu.Unlock()
	if cs == nil {
		return nil
	}
	s.forget(cs)
	err := cs.Close()
	stop()
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		return fmt.Errorf("mcp: closing %s: %w", s.srv.Name(), err)
	}
	return nil
}

func (s *session) forget(cs *sdk.ClientSession) {
	s.c.mu.Lock()
	delete(s.c.bySDK, cs)
	s.c.mu.Unlock()
}

// connect opens an SDK session for s, retried, reporting
// mcp_connection_started and then _completed or _failed.
func (c *Connector) connect(ctx context.Context, s *session, w who, reconnect bool) (*sdk.ClientSession, func(), error) {
	timeout, _, _ := s.srv.Timeouts()
	d := s.srv.Detail()
	d.ConnectTimeout, d.IsReconnect = timeout.Seconds(), reconnect
	start := time.Now()
	id := action.Report(ctx, action.Event{Kind: action.EventMCPConnectionStarted, Agent: w.agent, Task: w.task, Detail: d})
	var (
		cs   *sdk.ClientSession
		stop func()
	)
	err := c.retry(ctx, c.opts.Attempts, retryConnect, func(ctx context.Context) error {
		var err error
		cs, stop, err = c.dial(ctx, s, timeout)
		return err
	})
	d.ConnectTimeout = 0
	if err != nil {
		err = s.withStderr(err)
		d.Error, d.ErrorType = err.Error(), errorType(err)
		action.Report(ctx, action.Event{Kind: action.EventMCPConnectionFailed, Parent: id, Agent: w.agent, Task: w.task, Err: err, Detail: d, Duration: time.Since(start)})
		return nil, nil, err
	}
	end := time.Now()
	d.StartedAt, d.CompletedAt = start, end
	d.ConnectionDurationMS = float64(end.Sub(start).Microseconds()) / 1000
	action.Report(ctx, action.Event{Kind: action.EventMCPConnectionCompleted, Parent: id, Agent: w.agent, Task: w.task, Detail: d, Duration: end.Sub(start)})
	return cs, stop, nil
}

// A timeoutError reports a step that took longer than its bound.
type timeoutError struct {
	what  string
	after time.Duration
}

func (e *timeoutError) Error() string { return fmt.Sprintf("%s timed out after %s", e.what, e.after) }

// Unwrap makes it match context.DeadlineExceeded.
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// dial makes one attempt at connecting. The SDK session lives in a context
// of its own (an SSE transport's stream is bound to it), ended by the
// returned stop func once the session is closed; the connect timeout and
// ctx's end are enforced apart from it.
func (c *Connector) dial(ctx context.Context, s *session, timeout time.Duration) (*sdk.ClientSession, func(), error) {
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	t, err := c.transport(life, s)
	if err != nil {
		stop()
		return nil, nil, err
	}
	type result struct {
		cs  *sdk.ClientSession
		err error
	}
	done := make(chan result, 1)
	go func() {
		cs, err := c.client.Connect(life, t, &sdk.ClientSessionOptions{ProtocolVersion: c.opts.ProtocolVersion})
		done <- result{cs, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var cause error
	select {
	case r := <-done:
		if r.err != nil {
			stop()
			return nil, nil, r.err
		}
		return r.cs, stop, nil
	case <-timer.C:
		cause = &timeoutError{what: "connecting", after: timeout}
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	stop()
	// Connect returns once its context is cancelled, but on a transport
	// that never answers it may wait in its own cleanup until the
	// transport closes: close what it gives in the background, so that a
	// timed-out dial returns at once instead of hanging with it.
	go func() {
		if r := <-done; r.cs != nil {
			_ = r.cs.Close()
		}
	}()
	return nil, nil, cause
}

// tools returns the server's tools: the connector's cached list for the
// configuration, or every page of tools/list, retried.
func (s *session) tools(ctx context.Context, w who) ([]*sdk.Tool, error) {
	c := s.c
	c.mu.Lock()
	list, ok := c.lists[s.key]
	gen := c.listsGen[s.key]
	c.mu.Unlock()
	if ok {
		return list, nil
	}
	_, timeout, _ := s.srv.Timeouts()
	err := c.retry(ctx, c.opts.Attempts, retryConnect, func(ctx context.Context) error {
		cs, err := s.get(ctx, w)
		if err != nil {
			return err
		}
		lctx, cancel := context.WithTimeoutCause(ctx, timeout, &timeoutError{what: "listing tools", after: timeout})
		defer cancel()
		list = list[:0]
		for t, err := range cs.Tools(lctx, nil) {
			if err != nil {
				if lctx.Err() != nil && ctx.Err() == nil {
					err = context.Cause(lctx)
				}
				if errors.Is(err, sdk.ErrConnectionClosed) {
					s.dead(cs)
				}
				return err
			}
			list = append(list, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	c.mu.Lock()
	if c.listsGen[s.key] == gen {
		c.lists[s.key] = list
	}
	c.mu.Unlock()
	return list, nil
}

// withStderr adds what a stdio server last wrote on stderr to err.
func (s *session) withStderr(err error) error {
	if s.stderr == nil {
		return err
	}
	if tail := s.stderr.tail(); tail != "" {
		return fmt.Errorf("%w (stderr: %s)", err, tail)
	}
	return err
}
