package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/mcp"
	"github.com/troupe-dev/troupe/mcp/client"
)

func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Check MCP servers before an agent uses them",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newMCPToolsCmd())
	return cmd
}

type mcpToolsFlags struct {
	stdio   []string
	sse     bool
	headers []string
	env     []string
	asJSON  bool
	timeout time.Duration
}

func newMCPToolsCmd() *cobra.Command {
	var f mcpToolsFlags
	cmd := &cobra.Command{
		Use:   "tools [URL...] [--stdio \"COMMAND ARGS\"...]",
		Short: "List the tools of MCP servers as an agent sees them",
		Long: "tools connects to each server, lists its tools and prints them with the\n" +
			"names the model sees (CrewAI's names: the server's prefix and the tool's\n" +
			"name, sanitized, unique among the listed servers), their descriptions and\n" +
			"their input schemas. A URL is a streamable HTTP server (--sse: the older\n" +
			"HTTP+SSE transport); --stdio runs a command as a stdio server, with the\n" +
			"environment an agent's server gets (HOME, LOGNAME, PATH, SHELL, TERM, USER\n" +
			"and --env). The exit code is 1 when a server cannot be reached.",
		Example: "  troupe mcp tools https://mcp.example.com/mcp --header 'Authorization=Bearer TOKEN'\n" +
			"  troupe mcp tools --stdio 'npx -y @modelcontextprotocol/server-filesystem /data' --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			servers, err := f.servers(args)
			if err != nil {
				return usageError{err}
			}
			return listMCPTools(cmd, servers, f)
		},
	}
	cmd.Flags().StringArrayVar(&f.stdio, "stdio", nil, `run "COMMAND ARGS" as a stdio server (quote it; repeatable)`)
	cmd.Flags().BoolVar(&f.sse, "sse", false, "reach the URLs with the HTTP+SSE transport (2024-11-05) instead of streamable HTTP")
	cmd.Flags().StringArrayVar(&f.headers, "header", nil, "send NAME=VALUE with every HTTP request (repeatable)")
	cmd.Flags().StringArrayVar(&f.env, "env", nil, "give stdio servers NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print [{server, transport, tools: [{name, original_name, description, input_schema, retried}]}]")
	cmd.Flags().DurationVar(&f.timeout, "timeout", mcp.DefaultConnectTimeout, "bound on connecting to each server, and again on listing its tools")
	return cmd
}

// servers turns the command line into server entries.
func (f mcpToolsFlags) servers(urls []string) ([]mcp.Server, error) {
	if len(urls) == 0 && len(f.stdio) == 0 {
		return nil, errors.New("name a server: a URL, or --stdio \"COMMAND ARGS\"")
	}
	headers, err := pairs("--header", f.headers)
	if err != nil {
		return nil, err
	}
	env, err := pairs("--env", f.env)
	if err != nil {
		return nil, err
	}
	var out []mcp.Server
	for _, u := range urls {
		s := mcp.Server{Transport: mcp.TransportStreamableHTTP, URL: u, Headers: headers}
		if f.sse {
			s.Transport = mcp.TransportSSE
		}
		out = append(out, s)
	}
	for _, line := range f.stdio {
		words, err := shellWords(line)
		if err != nil {
			return nil, fmt.Errorf("--stdio %q: %w", line, err)
		}
		if len(words) == 0 {
			return nil, errors.New("--stdio needs a command")
		}
		out = append(out, mcp.Server{Transport: mcp.TransportStdio, Command: words[0], Args: words[1:], Env: env})
	}
	for i := range out {
		out[i].ConnectTimeout, out[i].ListTimeout, out[i].Required = f.timeout, f.timeout, true
		if err := out[i].Validate("").Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pairs reads NAME=VALUE flags.
func pairs(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(list))
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: want NAME=VALUE", flag, kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

// shellWords splits a command line into words, honouring single and double
// quotes and backslash escapes outside single quotes; no variables, no
// globs.
func shellWords(s string) ([]string, error) {
	var (
		words []string
		word  strings.Builder
		quote rune
		have  bool
		esc   bool
	)
	for _, r := range s {
		switch {
		case esc:
			word.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, have = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, have = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if have {
				words = append(words, word.String())
				word.Reset()
				have = false
			}
		default:
			word.WriteRune(r)
			have = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if esc {
		return nil, errors.New("a backslash ends the line")
	}
	if have {
		words = append(words, word.String())
	}
	return words, nil
}

// mcpToolInfo is one tool in the JSON output.
type mcpToolInfo struct {
	Name        string         `json:"name"`
	Original    string         `json:"original_name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
	// Retried is set for read-only or idempotent tools, whose failed
	// calls are tried again.
	Retried bool `json:"retried"`
}

// mcpServerInfo is one server in the JSON output.
type mcpServerInfo struct {
	Server    string        `json:"server"`
	Transport string        `json:"transport"`
	Tools     []mcpToolInfo `json:"tools"`
}

func listMCPTools(cmd *cobra.Command, servers []mcp.Server, f mcpToolsFlags) error {
	conn := client.New(client.Options{Logger: warnings(cmd.ErrOrStderr()), Attempts: 1})
	defer conn.Close()
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	var report []mcpServerInfo
	var taken []string
	for _, s := range servers {
		tools, release, err := conn.Tools(ctx, mcp.Request{Servers: []mcp.Server{s}, Agent: "troupe mcp tools", Taken: taken})
		if err != nil {
			release()
			return interrupted(ctx, err)
		}
		info := mcpServerInfo{Server: s.Name(), Transport: s.TransportType(), Tools: []mcpToolInfo{}}
		for _, t := range tools {
			ct, ok := t.(*client.Tool)
			if !ok {
				continue
			}
			spec := t.Spec()
			taken = append(taken, spec.Name)
			info.Tools = append(info.Tools, mcpToolInfo{Name: spec.Name, Original: ct.Original(), Description: spec.Description,
				InputSchema: spec.Parameters, Retried: ct.Retryable()})
		}
		release()
		report = append(report, info)
	}
	out := cmd.OutOrStdout()
	if f.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	for i, s := range report {
		if i > 0 {
			fmt.Fprintln(out)
		}
		printMCPServer(out, s)
	}
	return nil
}

// printMCPServer prints a server's tools for people.
func printMCPServer(w io.Writer, s mcpServerInfo) {
	fmt.Fprintf(w, "%s (%s): %s\n", s.Server, s.Transport, plural(len(s.Tools), "tool"))
	for _, t := range s.Tools {
		fmt.Fprintf(w, "\n  %s", t.Name)
		if t.Original != t.Name {
			fmt.Fprintf(w, "  (on the server: %s)", t.Original)
		}
		if t.Retried {
			fmt.Fprint(w, "  [read-only or idempotent: retried]")
		}
		fmt.Fprintln(w)
		for _, line := range strings.Split(strings.TrimSpace(t.Description), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
		schema, _ := json.Marshal(t.InputSchema)
		fmt.Fprintf(w, "    arguments: %s\n", schema)
	}
}
