package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/mcp"
)

// Scope says how long a connector keeps a session.
type Scope int

const (
	// PerExecution opens sessions for one agent execution and closes them
	// when it ends (the default).
	PerExecution Scope = iota
	// PerConnector keeps one session per server configuration open for
	// every execution until Close: make one connector per flow run to get
	// sessions per run.
	PerConnector
)

// Defaults of [Options].
const (
	DefaultAttempts        = 3
	DefaultBackoff         = time.Second
	DefaultStopTimeout     = 5 * time.Second
	DefaultProtocolVersion = "2025-11-25"
)

// Options configure a [Connector]. The zero value is ready to use.
type Options struct {
	// Logger receives warnings (servers skipped, tools without a usable
	// schema), the stderr lines of stdio servers (at info level) and the
	// SDK's own logs. Nil discards them.
	Logger *slog.Logger
	// Scope is how long sessions live; PerExecution by default.
	Scope Scope
	// Name and Version name the client to servers; "troupe" and "dev" by
	// default.
	Name, Version string
	// HTTPClient is the base of the HTTP client for HTTP and SSE servers
	// (headers and TLS settings go on a copy of its transport); nil uses
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Transport, when set, makes every server's transport instead of the
	// defaults: tests use in-memory transports, hosts their own.
	Transport func(ctx context.Context, s mcp.Server) (sdk.Transport, error)
	// Attempts bounds connecting, listing and (retryable) calls; Backoff is
	// the wait before the second attempt, doubled for each further one.
	// Zero means DefaultAttempts and DefaultBackoff.
	Attempts int
	Backoff  time.Duration
	// StopTimeout is how long closing a stdio server waits after closing
	// its stdin before SIGTERM, and again before SIGKILL;
	// DefaultStopTimeout when zero.
	StopTimeout time.Duration
	// ProtocolVersion is asked for when connecting; DefaultProtocolVersion
	// (2025-11-25, which every current server speaks) when empty.
	ProtocolVersion string
}

// A Connector opens MCP servers for agents; it implements mcp.Connector.
// It is safe for concurrent use. Close it when done: it closes the
// sessions it keeps (PerConnector) and any left open.
type Connector struct {
	opts   Options
	logger *slog.Logger
	client *sdk.Client

	mu       sync.Mutex
	shared   map[string]*session // PerConnector sessions by server key
	open     map[*session]bool   // every session not closed yet
	bySDK    map[*sdk.ClientSession]*session
	lists    map[string][]*sdk.Tool // tool lists by server key
	closed   bool
	listsGen map[string]int // bumped when a list is invalidated
}

// New returns a connector configured by opts.
func New(opts Options) *Connector {
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = DefaultProtocolVersion
	}
	if opts.Name == "" {
		opts.Name = "troupe"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Connector{opts: opts, logger: logger, shared: map[string]*session{}, open: map[*session]bool{},
		bySDK: map[*sdk.ClientSession]*session{}, lists: map[string][]*sdk.Tool{}, listsGen: map[string]int{}}
	c.client = sdk.NewClient(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ClientOptions{
		Logger: logger,
		// No roots, sampling or elicitation: agents only call tools.
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: c.toolListChanged,
	})
	return c
}

// ErrClosed is the error of Tools on a closed connector.
var ErrClosed = errors.New("mcp: connector is closed")

// Tools implements mcp.Connector: it opens req.Servers and returns their
// tools. AMP slugs are skipped with an mcp_config_fetch_failed event.
func (c *Connector) Tools(ctx context.Context, req mcp.Request) ([]action.Tool, func(), error) {
	x := &execution{c: c, who: who{agent: req.Agent, task: req.Task}, sessions: map[string]*session{}}
	var names mcp.Names
	names.Take(req.Taken...)
	var out []action.Tool
	for _, srv := range req.Servers {
		if err := ctx.Err(); err != nil {
			return nil, x.release, context.Cause(ctx)
		}
		if srv.Kind() == mcp.TransportAMP {
			x.ampSkipped(ctx, srv)
			continue
		}
		sess, list, err := x.open(ctx, srv)
		if err != nil {
			if ctx.Err() != nil {
				return nil, x.release, context.Cause(ctx)
			}
			if srv.Required {
				return nil, x.release, fmt.Errorf("mcp: required server %s: %w", srv.Name(), err)
			}
			c.logger.Warn(fmt.Sprintf("mcp: server %s skipped: %v", srv.Name(), err), "server", srv.Name(), "agent", req.Agent)
			continue
		}
		out = append(out, c.tools(sess, srv, list, &names, x.who)...)
	}
	return out, x.release, nil
}

// Close closes every session the connector keeps or still has open. Tools
// fails after Close.
func (c *Connector) Close() error {
	c.mu.Lock()
	c.closed = true
	var all []*session
	for s := range c.open {
		all = append(all, s)
	}
	c.shared = map[string]*session{}
	c.mu.Unlock()
	return closeAll(all)
}

// closeAll closes sessions concurrently and returns their errors.
func closeAll(sessions []*session) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() { errs[i] = s.close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// who names the agent and task an execution belongs to, for events.
type who struct{ agent, task string }

// execution is what one call of Tools opened.
type execution struct {
	c        *Connector
	who      who
	sessions map[string]*session // by server key
	once     sync.Once
}

// open returns the session for srv, connecting it (or reusing the
// connector's under PerConnector), and its tool list.
func (x *execution) open(ctx context.Context, srv mcp.Server) (*session, []*sdk.Tool, error) {
	key := srv.Key()
	sess := x.sessions[key]
	if sess == nil {
		var err error
		if sess, err = x.c.session(srv, x.c.opts.Scope == PerConnector); err != nil {
			return nil, nil, err
		}
		x.sessions[key] = sess
	}
	if _, err := sess.get(ctx, x.who); err != nil {
		return nil, nil, err
	}
	list, err := sess.tools(ctx, x.who)
	if err != nil {
		d := srv.Detail()
		d.Error, d.ErrorType = err.Error(), errorType(err)
		action.Report(ctx, action.Event{Kind: action.EventMCPConnectionFailed, Agent: x.who.agent, Task: x.who.task, Err: err, Detail: d})
		return nil, nil, err
	}
	return sess, list, nil
}

// release closes the execution's sessions, unless the connector keeps them.
func (x *execution) release() {
	x.once.Do(func() {
		if x.c.opts.Scope == PerConnector {
			return
		}
		all := make([]*session, 0, len(x.sessions))
		for _, s := range x.sessions {
			all = append(all, s)
		}
		if err := closeAll(all); err != nil {
			x.c.logger.Debug("mcp: closing sessions: " + err.Error())
		}
	})
}

// ampSkipped reports an AMP slug, which Troupe cannot fetch the
// configuration of, as CrewAI does when AMP does not know it.
func (x *execution) ampSkipped(ctx context.Context, srv mcp.Server) {
	d := srv.Detail()
	d.Slug = srv.Slug
	d.Error = fmt.Sprintf("Config for '%s' not found. Make sure it is connected in your account.", srv.Slug)
	d.ErrorType = mcp.ErrorNotConnected
	action.Report(ctx, action.Event{Kind: action.EventMCPConfigFetchFailed, Agent: x.who.agent, Task: x.who.task, Err: errors.New(d.Error), Detail: d})
	x.c.logger.Warn("mcp: "+d.Error+" (Troupe cannot reach CrewAI AMP integrations; give the server as a URL or a command)", "slug", srv.Slug, "agent", x.who.agent)
}

// session returns a new session for srv, or under PerConnector the one the
// connector keeps for srv's configuration.
func (c *Connector) session(srv mcp.Server, shared bool) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	key := srv.Key()
	if shared {
		if s := c.shared[key]; s != nil {
			return s, nil
		}
	}
	s := &session{c: c, srv: srv, key: key}
	if shared {
		c.shared[key] = s
	}
	return s, nil
}

// toolListChanged forgets the tool list of the session's configuration, so
// the next execution lists the tools again.
func (c *Connector) toolListChanged(_ context.Context, req *sdk.ToolListChangedRequest) {
	cs, _ := req.GetSession().(*sdk.ClientSession)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.bySDK[cs]; s != nil {
		delete(c.lists, s.key)
		c.listsGen[s.key]++
	}
}
