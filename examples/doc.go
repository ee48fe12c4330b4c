// Package examples holds the example flows (one folder each: a flow file,
// its scripts and a README.md) and a test (examples_test.go) that runs the
// commands each README documents and compares their output, so that the
// READMEs stay true.
//
// Start with hello, then support_triage (a Go tool with a scripted model).
// The package has no code of its own; the examples import only Troupe's
// public packages, never internal ones.
package examples
