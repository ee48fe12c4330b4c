package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// scriptsVariable is CrewAI's switch for script actions. troupe reads it
// from the real environment only.
const scriptsVariable = "CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION"

// scriptsFromEnv reports whether the environment troupe was started with
// allows script actions ("1", "true" or "yes", as CrewAI reads it).
func scriptsFromEnv() bool { return allows(os.Getenv(scriptsVariable)) }

// allows reports whether a value of CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION
// allows scripts.
func allows(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "1" || v == "true" || v == "yes"
}

// loadDotEnv sets variables from a .env file, but never one the
// environment already has (even set to "" or "0"): the real environment
// wins. It never sets CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION either: a file
// next to a definition must not switch on running the definition's code;
// it says so on stderr. A missing file is not an error.
//
// CrewAI's CLI loads .env with override=True; Troupe does not, so that an
// explicit setting in the shell or the service's environment holds.
func loadDotEnv(path string, stderr io.Writer) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if k == scriptsVariable {
			if allows(v) {
				fmt.Fprintf(stderr, "troupe: %s: ignoring %s=%s: only the environment or --allow-scripts enables script actions\n", path, k, v)
			}
			continue
		}
		if _, set := os.LookupEnv(k); set {
			continue
		}
		os.Setenv(k, v)
	}
}
