package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// dbosCommands are the commands that, given --dbos, run on DBOS Transact
// through the troupe-dbos command (its own Go module, so this binary does
// not link DBOS), the way git runs its external commands.
var dbosCommands = []string{"worker", "start", "result", "feedback", "runs", "status", "watch", "cancel", "recover"}

// dbosCommand is the external command's name.
const dbosCommand = "troupe-dbos"

// handOver runs a DBOS command line through troupe-dbos. It reports
// whether args were one.
func handOver(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 || !slices.Contains(dbosCommands, args[0]) {
		return 0, false
	}
	if !slices.ContainsFunc(args[1:], isDBOSFlag) {
		if args[0] == "runs" || slices.ContainsFunc(args[1:], isHelpFlag) {
			return 0, false // troupe runs lists this machine's stored runs
		}
		fmt.Fprintf(stderr, "troupe: %s runs on DBOS Transact: give --dbos DSN (postgres://... or sqlite:///file.db); see docs/durable.md\n", args[0])
		return exitUsage, true
	}
	path, err := exec.LookPath(dbosCommand)
	if err != nil {
		fmt.Fprintf(stderr, "troupe: %s --dbos runs flows on DBOS through the %s command, which is not on PATH; install it with:\n"+
			"  go install github.com/troupe-dev/troupe/durable/dbos/cmd/troupe-dbos@latest\n", args[0], dbosCommand)
		return exitUsage, true
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode(), true
		}
		fmt.Fprintf(stderr, "troupe: %s: %v\n", dbosCommand, err)
		return exitFail, true
	}
	return exitOK, true
}

func isHelpFlag(a string) bool { return a == "-h" || a == "--help" }

func isDBOSFlag(a string) bool { return a == "--dbos" || strings.HasPrefix(a, "--dbos=") }
