package httpcall

import (
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
