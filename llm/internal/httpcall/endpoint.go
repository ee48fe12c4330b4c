package httpcall

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// IsLocal reports whether baseURL points at this machine (localhost, a
// loopback address or the unspecified address), where servers such as
// Ollama need no key.
func IsLocal(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// MissingVersionHint returns a hint for a 404 from an OpenAI-compatible
// server when baseURL's path has no /v1 (servers such as Ollama, vLLM and
// LM Studio serve the API under /v1, so a base URL without it finds no
// route), or "" when it has one or is empty. The URL is shown without
// credentials, query or fragment.
func MissingVersionHint(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" || strings.Contains(u.Path, "/v1") {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	shown := strings.TrimSuffix(u.String(), "/")
	return fmt.Sprintf("the base URL %s has no /v1; OpenAI-compatible servers usually serve under /v1 (try %s/v1)", shown, shown)
}

// Lookup returns the first non-empty value of the variables in env, and the
// name it came from. A nil env finds nothing.
func Lookup(env func(string) string, names []string) (value, name string) {
	if env == nil {
		return "", ""
	}
	for _, n := range names {
		if v := strings.TrimSpace(env(n)); v != "" {
			return v, n
		}
	}
	return "", ""
}
