package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/troupe-dev/troupe/mcp"
)

// inherited lists the variables a stdio server gets from Troupe's
// environment, as CrewAI passes them.
var inherited = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// waitDelay bounds how long closing a stdio server waits for its stderr to
// close after it exited (a grandchild may hold it open).
const waitDelay = 2 * time.Second

// transport makes the SDK transport for s's server; life is the context
// the session lives in.
func (c *Connector) transport(life context.Context, s *session) (sdk.Transport, error) {
	srv := s.srv
	if c.opts.Transport != nil {
		return c.opts.Transport(life, srv)
	}
	switch srv.Kind() {
	case mcp.TransportStdio:
		// Not exec.CommandContext: the server must outlive the connect
		// timeout; closing the session stops it.
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Env = childEnv(srv.Env)
		cmd.Dir = srv.Dir
		if s.stderr == nil {
			s.stderr = &stderrLog{logger: c.logger, server: srv.Name()}
		}
		cmd.Stderr = s.stderr
		cmd.WaitDelay = waitDelay
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: c.opts.StopTimeout}, nil
	case mcp.TransportStreamableHTTP:
		hc, err := c.httpClient(srv)
		if err != nil {
			return nil, err
		}
		return &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil
	case mcp.TransportSSE:
		hc, err := c.httpClient(srv)
		if err != nil {
			return nil, err
		}
		return &sdk.SSEClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil
	}
	return nil, fmt.Errorf("mcp: %s has no transport Troupe can connect", srv)
}

// childEnv is a stdio server's environment: the inherited variables that
// are set, then env.
func childEnv(env map[string]string) []string {
	var out []string
	for _, k := range inherited {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// httpClient is the HTTP client of an HTTP or SSE server: the connector's,
// with the server's headers and TLS settings.
func (c *Connector) httpClient(srv mcp.Server) (*http.Client, error) {
	base := c.opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if (srv.Verify != nil && !*srv.Verify) || srv.CAFile != "" {
		t, ok := rt.(*http.Transport)
		if !ok {
			return nil, fmt.Errorf("mcp: %s: verify needs an *http.Transport in Options.HTTPClient", srv)
		}
		t = t.Clone()
		cfg := &tls.Config{}
		if t.TLSClientConfig != nil {
			cfg = t.TLSClientConfig.Clone()
		}
		if srv.CAFile != "" {
			pem, err := os.ReadFile(srv.CAFile)
			if err != nil {
				return nil, fmt.Errorf("mcp: %s: verify: %w", srv, err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("mcp: %s: verify: no PEM certificate in %s", srv, srv.CAFile)
			}
			cfg.RootCAs = pool
		} else {
			cfg.InsecureSkipVerify = true
		}
		t.TLSClientConfig = cfg
		rt = t
	}
	if len(srv.Headers) > 0 {
		rt = headers{base: rt, h: srv.Headers}
	}
	return &http.Client{Transport: rt, Jar: base.Jar, CheckRedirect: base.CheckRedirect}, nil
}

// headers adds fixed headers to every request.
type headers struct {
	base http.RoundTripper
	h    map[string]string
}

// RoundTrip implements http.RoundTripper.
func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.h {
		req.Header.Set(k, v)
	}
	return h.base.RoundTrip(req)
}

// stderrLogLines is how many of its last stderr lines a failed stdio
// server's error quotes.
const stderrLogLines = 5

// stderrLog logs what a stdio server writes on stderr, a line at a time,
// and keeps its last lines for error messages.
type stderrLog struct {
	logger *slog.Logger
	server string

	mu      sync.Mutex
	partial []byte
	last    []string
}

// Write implements io.Writer.
func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.partial[:i]), "\r")
		w.partial = w.partial[i+1:]
		if strings.TrimSpace(line) == "" {
			continue
		}
		w.logger.Info("mcp server stderr: "+line, "server", w.server)
		w.last = append(w.last, line)
		if len(w.last) > stderrLogLines {
			w.last = w.last[1:]
		}
	}
	return len(p), nil
}

// tail returns the last lines written, joined by " | ".
func (w *stderrLog) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.last
	if len(w.partial) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(w.partial))
	}
	return strings.Join(lines, " | ")
}
