package main

import (
	"fmt"
	"io"

	"github.com/troupe-dev/troupe/flow"
)

// printDiagnostics writes diagnostics one per line, as
// FILE:LINE:COL: error|warning: PATH: MESSAGE.
func printDiagnostics(w io.Writer, diags flow.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// strictError is the error of --strict for a definition with warnings.
func strictError(path string, warnings int) error {
	return fmt.Errorf("%s: %s, and --strict makes warnings errors", path, plural(warnings, "warning"))
}

// plural is "1 warning", "2 warnings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
