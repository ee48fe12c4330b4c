package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/eventlog"
	"github.com/troupe-dev/troupe/flow"
)

// telemetryFlags are the flags of run and resume that say what leaves the
// process besides the result: the event log.
type telemetryFlags struct {
	events string
}

func addTelemetryFlags(cmd *cobra.Command, f *telemetryFlags) {
	cmd.Flags().StringVar(&f.events, "events", "", "write every event of the run to this file as JSON lines (read it with `troupe trace FILE`)")
}

// telemetry is what a session sends events to besides the terminal.
type telemetry struct {
	stderr io.Writer
	file   *os.File
	log    *eventlog.Writer
}

// openTelemetry opens what f asks for and returns the engine options that
// feed it.
func openTelemetry(f telemetryFlags, stderr io.Writer) (*telemetry, []flow.Option, error) {
	t := &telemetry{stderr: stderr}
	var opts []flow.Option
	if f.events != "" {
		file, err := os.Create(f.events)
		if err != nil {
			return nil, nil, fmt.Errorf("--events: %w", err)
		}
		t.file, t.log = file, eventlog.NewWriter(file)
		opts = append(opts, flow.WithEvents(t.log.Observe))
	}
	return t, opts, nil
}

// close flushes and closes what openTelemetry opened, reporting failures
// on stderr.
func (t *telemetry) close() {
	if t == nil || t.file == nil {
		return
	}
	err := t.log.Flush()
	if cerr := t.file.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(t.stderr, "troupe: the event log %s is incomplete: %v\n", t.file.Name(), err)
	}
}
