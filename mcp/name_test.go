package mcp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/mcp"
)

func TestSanitize(t *testing.T) {
	long := strings.Repeat("abcdefghij_", 7) // 77 characters
	sum := sha256.Sum256([]byte(strings.Trim(long, "_")))
	tests := []struct{ in, want string }{
		{"getWeather", "get_weather"},
		{"HTTPServerStatus", "http_server_status"},
		{"read_file", "read_file"},
		{"already_snake", "already_snake"},
		{"ABCDefGHIjk", "abc_def_gh_ijk"},
		{"getURLForID", "get_url_for_id"},
		{"v2Tool", "v2tool"}, // a digit is not a lowercase letter
		{"Café Menü", "cafe_menu"},
		{"日本語ツール", ""},
		{"ﬁle", "file"}, // NFKD splits the ligature
		{"don't \"quote\"", "dont_quote"},
		{"  --weird..name--  ", "weird_name"},
		{"a__b", "a_b"},
		{long, strings.TrimRight(strings.Trim(long, "_")[:55], "_") + "_" + hex.EncodeToString(sum[:])[:8]},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := mcp.Sanitize(tt.in)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), mcp.MaxToolNameLen)
		})
	}
}

func TestSanitizeLongNameTrimsTheCutsUnderscore(t *testing.T) {
	// The 55th character is an underscore: it goes before the hash.
	name := strings.Repeat("a", 54) + "_" + strings.Repeat("b", 20)
	got := mcp.Sanitize(name)
	sum := sha256.Sum256([]byte(name))
	assert.Equal(t, strings.Repeat("a", 54)+"_"+hex.EncodeToString(sum[:])[:8], got)
	assert.Len(t, got, 63)
}

func TestToolNames(t *testing.T) {
	parse := func(v any) mcp.Server {
		s, ps := mcp.Parse(v, "mcps[0]")
		require.NoError(t, ps.Err())
		return s
	}
	empty := ""
	tests := []struct {
		name   string
		server mcp.Server
		tool   string
		want   string
	}{
		{"stdio", parse(map[string]any{"command": "npx", "args": []any{"-y", "@modelcontextprotocol/server-filesystem", "/data"}}), "read_file",
			"npx_y_modelcontextprotocol_server_filesystem_data_read_file"},
		{"stdio without args", parse(map[string]any{"command": "my-server"}), "getWeather", "my_server_get_weather"},
		{"https string", parse("https://api.example.com/mcp"), "getWeather", "api_example_com_mcp_get_weather"},
		{"https with port and query", parse("https://api.example.com:8443/v1/mcp/?key=x#search"), "search", "api_example_com_8443_v1_mcp_search"},
		{"url without path", parse(map[string]any{"url": "http://localhost:9000"}), "HTTPServerStatus", "localhost_9000_http_server_status"},
		{"prefix", parse(map[string]any{"command": "npx", "prefix": "fs"}), "read_file", "fs_read_file"},
		{"empty prefix", mcp.Server{Command: "npx", Prefix: &empty}, "readFile", "read_file"},
		{"camel case prefix", parse(map[string]any{"command": "MyServer"}), "x", "my_server_x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, mcp.ToolName(tt.server.ToolPrefix(), tt.tool))
		})
	}
}

func TestToolNameOver64CharactersGetsAHash(t *testing.T) {
	s := mcp.Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/very/long/path/to/some/data"}}
	got := mcp.ToolName(s.ToolPrefix(), "read_multiple_files")
	full := "npx_y_modelcontextprotocol_server_filesystem_very_long_path_to_some_data_read_multiple_files"
	sum := sha256.Sum256([]byte(full))
	assert.Equal(t, strings.TrimRight(full[:55], "_")+"_"+hex.EncodeToString(sum[:])[:8], got)
	assert.Equal(t, "npx_y_modelcontextprotocol_server_filesystem_very_long_b1436b34", got)
}

func TestNamesAddSuffixesToDuplicates(t *testing.T) {
	var n mcp.Names
	n.Take("search")
	assert.Equal(t, "search_2", n.Unique("search"))
	assert.Equal(t, "search_3", n.Unique("search"))
	assert.Equal(t, "read", n.Unique("read"))
	assert.Equal(t, "read_2", n.Unique("read"))

	long := strings.Repeat("x", 64)
	assert.Equal(t, long, n.Unique(long))
	got := n.Unique(long)
	assert.Equal(t, strings.Repeat("x", 62)+"_2", got, "a suffix keeps the name within 64 characters")
}

func TestKeeps(t *testing.T) {
	parse := func(v any) mcp.Server {
		s, ps := mcp.Parse(v, "mcps[0]")
		require.NoError(t, ps.Err())
		return s
	}
	filter := func(allowed, blocked []any) map[string]any {
		f := map[string]any{"type": "static"}
		if allowed != nil {
			f["allowed_tool_names"] = allowed
		}
		if blocked != nil {
			f["blocked_tool_names"] = blocked
		}
		return map[string]any{"command": "srv", "tool_filter": f}
	}
	tests := []struct {
		name   string
		server mcp.Server
		keep   []string
		drop   []string
	}{
		{"no filter", parse(map[string]any{"command": "srv"}), []string{"a", "b"}, nil},
		{"#tool on a URL compares sanitized names", parse("https://x.dev/mcp#getWeather"), []string{"getWeather", "get_weather"}, []string{"get_weather_now", "weather"}},
		{"#tool on a slug is exact", parse("notion#search"), []string{"search"}, []string{"notion_search", "research"}},
		{"allowed", parse(filter([]any{"read_file"}, nil)), []string{"read_file", "readFile"}, []string{"write_file"}},
		{"allowed by the full name", parse(filter([]any{"srv_read_file"}, nil)), []string{"read_file"}, []string{"write_file"}},
		{"blocked", parse(filter(nil, []any{"write_file"})), []string{"read_file"}, []string{"write_file", "writeFile"}},
		{"blocked wins", parse(filter([]any{"write_file"}, []any{"write_file"})), nil, []string{"write_file"}},
		{"empty lists admit all", parse(filter([]any{}, []any{})), []string{"a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range tt.keep {
				assert.True(t, tt.server.Keeps(name), "keeps %q", name)
			}
			for _, name := range tt.drop {
				assert.False(t, tt.server.Keeps(name), "drops %q", name)
			}
		})
	}
}
