package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"syscall"
)

// machineScope names this boot of the machine and this process's pid
// namespace: processes with the same scope see the same pids, so one can
// tell whether another's process still exists. It is "" when unknown.
func machineScope() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(boot)) + " " + ns))
	return hex.EncodeToString(sum[:6])
}

// processGone reports whether no process has the pid. A process of
// another user, or a zombie not yet reaped, still exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
