package cel

import (
	"strings"

	celgo "cel.dev/cel-go/cel"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// Problem codes: stable names for the rules CheckExpr, CheckTemplate and
// CheckValue apply, also carried by *CompileError.
const (
	CodeEmpty                = "cel-empty"             // a full-CEL field is empty
	CodeInvalid              = "cel-invalid"           // the expression does not parse
	CodeUnknownRoot          = "cel-unknown-root"      // the expression reads a root that is not allowed
	CodeUnknownFunction      = "cel-unknown-function"  // the expression calls a function that does not exist
	CodeType                 = "cel-type"              // a call no overload accepts, whatever the data
	CodeAlwaysFails          = "cel-always-fails"      // a part that reads no variable fails when evaluated
	CodeTemplateUnterminated = "template-unterminated" // a ${ has no closing }
	CodeTemplateInvalid      = "template-invalid"      // text after ${ is not CEL tokens
	CodeTemplateEmpty        = "template-empty"        // ${} or ${   }
)

// A Problem is one finding of a static check, with CrewAI's message text.
type Problem struct {
	// Message is the full text, including the source path.
	Message string
	// Code is the stable rule code, one of the Code constants.
	Code string
	// Offset is the byte offset of the problem in the checked string.
	Offset int
}

// CompileError reports an expression or template that cannot be compiled.
type CompileError struct {
	// Code is the rule code, one of the Code constants.
	Code string
	// Message is CrewAI's text for the problem, without a source path.
	Message string
	// Expr is the expression source concerned, when there is one.
	Expr string
	// Offset is the byte offset of the problem in the compiled text.
	Offset int
}

// Error implements error.
func (e *CompileError) Error() string { return "cel: " + e.Message }

// EvalError reports an expression that failed at run time. Its message is
// CrewAI's: failed to evaluate CEL expression '<expr>': <cause>.
type EvalError struct {
	// Expr is the expression source that failed.
	Expr string
	// Cause is the underlying error (a cel-go error, a context error, or an
	// unsupported result value).
	Cause error
}

// Error implements error.
func (e *EvalError) Error() string {
	return "failed to evaluate CEL expression " + pyjson.QuoteRepr(e.Expr) + ": " + e.Cause.Error()
}

// Unwrap returns the cause.
func (e *EvalError) Unwrap() error { return e.Cause }

// emptyExprText is CrewAI's message for an empty full-CEL field at src.
func emptyExprText(src string) string {
	return "empty CEL expression at " + src + ". Provide a CEL expression such as state.topic or outputs.step_name."
}

// invalidText is CrewAI's message for an expression that does not parse;
// src may be empty when no source path is known.
func invalidText(src, expr, detail string) string {
	var b strings.Builder
	b.WriteString("invalid CEL expression ")
	if src != "" {
		b.WriteString("at ")
		b.WriteString(src)
		b.WriteString(": ")
	}
	b.WriteString(pyjson.QuoteRepr(expr))
	b.WriteString(". Check the CEL syntax. Parser details: ")
	b.WriteString(detail)
	return b.String()
}

// unknownRootText is CrewAI's message for roots outside the allowed set. Both
// lists must be sorted.
func unknownRootText(src string, unknown, allowed []string) string {
	var b strings.Builder
	b.WriteString("unknown CEL root at ")
	b.WriteString(src)
	b.WriteString(": ")
	for i, r := range unknown {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyjson.QuoteRepr(r))
	}
	b.WriteString("; allowed roots: ")
	b.WriteString(strings.Join(allowed, ", "))
	b.WriteString(". Reference flow data through one of those roots, for example state.field or outputs.step_name.")
	return b.String()
}

// invalidError turns parser issues into a *CompileError for src.
func invalidError(src string, iss *celgo.Issues) *CompileError {
	off := 0
	if errs := iss.Errors(); len(errs) > 0 {
		loc := errs[0].Location
		off = lineColumnOffset(src, loc.Line(), loc.Column())
	}
	return &CompileError{
		Code:    CodeInvalid,
		Message: invalidText("", src, iss.Err().Error()),
		Expr:    src,
		Offset:  off,
	}
}

// lineColumnOffset converts a 1-based line and 0-based column counted in
// code points, as cel-go reports them, into a byte offset in s.
func lineColumnOffset(s string, line, col int) int {
	i := 0
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return len(s)
		}
		i += nl + 1
	}
	for c := 0; c < col && i < len(s); c++ {
		_, size := decodeRune(s[i:])
		i += size
	}
	return i
}

// runeOffset converts an offset counted in code points into a byte offset in s.
func runeOffset(s string, runes int) int {
	i := 0
	for c := 0; c < runes && i < len(s); c++ {
		_, size := decodeRune(s[i:])
		i += size
	}
	return i
}
