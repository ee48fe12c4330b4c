package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDBOSCommandsGoToTroupeDBOS(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"troupe-dbos $*\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "troupe-dbos"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var out, errb bytes.Buffer
	code := run([]string{"start", "--dbos", "postgres://db", "flow.yaml", "--inputs", "{}"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 3, code)
	assert.Equal(t, "troupe-dbos start --dbos postgres://db flow.yaml --inputs {}\n", out.String())
}

func TestDBOSCommandWithoutTroupeDBOS(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"worker", "--dbos=postgres://db", "flow.yaml"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), "troupe-dbos command, which is not on PATH")
	assert.Contains(t, errb.String(), "go install github.com/troupe-dev/troupe/durable/dbos/cmd/troupe-dbos@latest")
}

func TestRunsWithoutDBOSStaysHere(t *testing.T) {
	_, handled := handOver([]string{"runs", "--store", "x.db"}, nil, nil, nil)
	assert.False(t, handled)
}

func TestDBOSCommandWithoutDBOSFlagSaysWhatIsMissing(t *testing.T) {
	for _, cmd := range []string{"worker", "start", "result", "feedback", "status", "watch", "cancel", "recover"} {
		var out, errb bytes.Buffer
		code := run([]string{cmd, "flow.yaml"}, strings.NewReader(""), &out, &errb)
		assert.Equal(t, exitUsage, code, cmd)
		assert.Equal(t, "troupe: "+cmd+" runs on DBOS Transact: give --dbos DSN (postgres://... or sqlite:///file.db); see docs/durable.md\n", errb.String())
	}
}

func TestRunControlCommandsGoToTroupeDBOS(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"troupe-dbos $*\"\n"
	if err := os.WriteFile(filepath.Join(dir, "troupe-dbos"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, args := range [][]string{
		{"runs", "--dbos", "postgres://db", "--status", "PENDING", "--flow", "F", "--limit", "5"},
		{"status", "--dbos", "postgres://db", "run-1"},
		{"watch", "--dbos=postgres://db", "run-1"},
		{"cancel", "--dbos", "postgres://db", "run-1"},
		{"recover", "--dbos", "postgres://db", "pod-a", "pod-b"},
	} {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		assert.Equal(t, 0, code, args)
		assert.Equal(t, "troupe-dbos "+strings.Join(args, " ")+"\n", out.String())
	}
}
