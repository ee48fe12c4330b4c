package memory

import (
	"strings"
	"unicode"
)

// CleanScope returns the canonical form of a scope path: absolute, single
// slashes, no trailing slash, no "." or ".." segments (dropped, never
// followed, so a scope cannot climb out of its root). "" becomes "/".
func CleanScope(scope string) string {
	if isClean(scope) {
		return scope
	}
	var b strings.Builder
	b.Grow(len(scope) + 1)
	for seg := range strings.SplitSeq(scope, "/") {
		seg = strings.TrimSpace(seg)
		if seg == "" || seg == "." || seg == ".." {
			continue
		}
		b.WriteByte('/')
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// isClean is the allocation-free fast path of CleanScope.
func isClean(s string) bool {
	if s == "/" {
		return true
	}
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] == '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			continue
		}
		seg := s[start:i]
		if seg == "" || seg == "." || seg == ".." || strings.TrimSpace(seg) != seg {
			return false
		}
		start = i + 1
	}
	return true
}

// JoinScope files a scope under a root: JoinScope("/flow/a", "agent/x") is
// "/flow/a/agent/x". A scope already within root is returned clean and
// unchanged, so joining twice is harmless.
func JoinScope(root, scope string) string {
	root, scope = CleanScope(root), CleanScope(scope)
	if root == "/" || InScope(scope, root) {
		return scope
	}
	if scope == "/" {
		return root
	}
	return root + scope
}

// InScope reports whether the clean scope path lies within the clean scope
// root: equal to it or below it segment by segment ("/a/b" is in "/a", "/ab"
// is not).
func InScope(path, root string) bool {
	if root == "/" || root == "" {
		return true
	}
	return strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/')
}

// FlowScope is the root scope of a flow's memory: "/flow/<slug>" where the
// slug lower-cases the name and turns runs of other characters than
// letters and digits into single dashes ("Trip Planner" -> "/flow/trip-planner").
func FlowScope(name string) string {
	return "/flow/" + Slug(name)
}

// Slug lower-cases s and replaces every run of characters other than
// letters and digits by one dash, trimming dashes at both ends. An empty
// result becomes "default".
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "default"
	}
	return b.String()
}
