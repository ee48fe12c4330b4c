package mcp

import (
	"net/url"
	"strings"
	"time"
)

// Transport says how a server is reached.
type Transport string

// The transports of MCP servers.
const (
	// TransportStdio runs the server as a child process and talks to it
	// over its stdin and stdout.
	TransportStdio Transport = "stdio"
	// TransportStreamableHTTP is MCP's streamable HTTP transport.
	TransportStreamableHTTP Transport = "streamable-http"
	// TransportSSE is the 2024-11-05 HTTP+SSE transport (the Troupe
	// extension key transport: sse).
	TransportSSE Transport = "sse"
	// TransportAMP is a CrewAI AMP connected integration, named by a slug.
	// Troupe cannot reach AMP: such servers are skipped at run time with an
	// mcp_config_fetch_failed event.
	TransportAMP Transport = "amp"
)

// Defaults of the Troupe extension keys connect_timeout, list_timeout and
// call_timeout.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultListTimeout    = 30 * time.Second
	DefaultCallTimeout    = 60 * time.Second
)

// A Server is one entry of an agent's mcps list: where an MCP server is and
// which of its tools the agent gets. [Parse] reads the forms of a flow file;
// Go hosts fill the fields they need (Transport may be left empty: a
// Command means stdio, else a URL means streamable HTTP).
type Server struct {
	// Ref is the entry as written when it is a string (an https URL or an
	// AMP slug, with its #tool); empty for the map forms.
	Ref       string
	Transport Transport

	// Command, Args, Env and Dir start a stdio server. The child process
	// gets only HOME, LOGNAME, PATH, SHELL, TERM and USER from Troupe's
	// environment, plus Env. Dir (the extension key cwd) is its working
	// directory; empty keeps Troupe's.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	// URL and Headers reach an HTTP or SSE server. Streamable (default
	// true) has no effect on the transport, as in CrewAI; it shows in
	// events as transport_type http when false.
	URL        string
	Headers    map[string]string
	Streamable *bool
	// Verify, when false, skips TLS certificate checks; CAFile (verify
	// given as a path) names a PEM file of trusted certificates instead of
	// the system's.
	Verify *bool
	CAFile string

	// Slug names an AMP integration (TransportAMP).
	Slug string

	// Tool, when set, keeps only the server's tool of that name (the
	// #tool suffix of the string forms).
	Tool string
	// Filter keeps or drops tools by name; nil keeps all.
	Filter *Filter
	// CacheToolsList is CrewAI's cache_tools_list. Troupe always caches a
	// server's tool list for the life of its connector and refreshes it
	// when the server says it changed, so it has no further effect.
	CacheToolsList *bool
	// Prefix, when set, replaces the prefix derived from the command or
	// URL in the tool names the model sees; a pointer to "" means none.
	Prefix *string

	// ConnectTimeout, ListTimeout and CallTimeout bound connecting, listing
	// the tools and each tool call; zero means the defaults above.
	ConnectTimeout time.Duration
	ListTimeout    time.Duration
	CallTimeout    time.Duration
	// RetryCalls retries failed tool calls even when the tool does not
	// say it is read-only or idempotent.
	RetryCalls bool
	// Required makes a server that cannot be reached fail the agent;
	// otherwise it is skipped with an mcp_connection_failed event and a
	// warning.
	Required bool
}

// Kind is the server's transport, working it out from the fields a Go host
// set when Transport is empty.
func (s Server) Kind() Transport {
	switch {
	case s.Transport != "":
		return s.Transport
	case s.Command != "":
		return TransportStdio
	case s.URL != "":
		return TransportStreamableHTTP
	case s.Slug != "":
		return TransportAMP
	}
	return ""
}

// TransportType is the transport_type of the server's events: stdio,
// streamable-http, http (streamable: false) or sse; amp for slugs.
func (s Server) TransportType() string {
	k := s.Kind()
	if k == TransportStreamableHTTP && s.Streamable != nil && !*s.Streamable {
		return "http"
	}
	return string(k)
}

// Name is the server_name of the server's events: the command and its
// arguments joined by spaces, the URL's host, or the slug.
func (s Server) Name() string {
	switch s.Kind() {
	case TransportStdio:
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	case TransportAMP:
		return s.Slug
	}
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return s.URL
}

// Timeouts returns the server's bounds on connecting, listing its tools and
// one tool call, defaults applied.
func (s Server) Timeouts() (connect, list, call time.Duration) {
	return orDefault(s.ConnectTimeout, DefaultConnectTimeout), orDefault(s.ListTimeout, DefaultListTimeout),
		orDefault(s.CallTimeout, DefaultCallTimeout)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Key identifies the server's connection: command, arguments, environment,
// working directory, URL, headers and TLS settings, so that two entries that
// differ only in the tools they keep share one session and one tool list.
func (s Server) Key() string {
	var b strings.Builder
	w := func(v string) {
		b.WriteString(v)
		b.WriteByte(0)
	}
	w(string(s.Kind()))
	w(s.Command)
	for _, a := range s.Args {
		w(a)
	}
	w("")
	writeMap(w, s.Env)
	w(s.Dir)
	w(s.URL)
	writeMap(w, s.Headers)
	if s.Verify != nil && !*s.Verify {
		w("noverify")
	}
	w(s.CAFile)
	w(s.Slug)
	return b.String()
}

func writeMap(w func(string), m map[string]string) {
	for _, k := range sortedKeys(m) {
		w(k)
		w(m[k])
	}
	w("")
}
