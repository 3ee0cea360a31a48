package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone reports whether the process pid has ended: no such process, or a zombie no one reaped
// yet (an orphan's new parent may be slow to reap it, or never do).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command's name in parentheses, which may hold spaces.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// WaitGone waits up to a few seconds for pid to end, and reports whether it did.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if gone(pid) {
			return true
		}
	}
	return false
}

// An agent's background child is ended with its group however the run ends: a normal exit, a
// non-zero exit, a timeout, the context cancelled (SIGINT or SIGTERM reaching the CLI). The
// child holds stdout in one case (so the run's end waits for it) and not in the other.
func TestRunEndsProcessGroup(t *testing.T) {
	tests := []struct {
		name    string
		script  string // the agent: $1 is the pid file
		timeout time.Duration
		cancel  bool
		check   func(*Result) bool
	}{
		{"normal exit, child holding stdout", `sleep 300 & echo $! > "$1"; echo done`, 0, false, (*Result).OK},
		{"normal exit, child detached from the pipes", `sleep 300 >/dev/null 2>&1 </dev/null & echo $! > "$1"`, 0, false, (*Result).OK},
		{"non-zero exit", `sleep 300 & echo $! > "$1"; exit 3`, 0, false, func(r *Result) bool { return r.ExitCode == 3 }},
		{"timeout", `sleep 300 & echo $! > "$1"; sleep 300`, 300 * time.Millisecond, false, func(r *Result) bool { return r.TimedOut }},
		{"cancelled", `sleep 300 & echo $! > "$1"; sleep 300`, 0, true, func(r *Result) bool { return r.Cancelled }},
		{"child ignoring SIGTERM", `(trap '' TERM; sleep 300) & echo $! > "$1"`, 0, false, (*Result).OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancel {
				go func() {
					for {
						if _, err := os.Stat(pidFile); err == nil {
							time.Sleep(50 * time.Millisecond) // the pid written whole
							cancel()
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			start := time.Now()
			res, err := Run(ctx, Spec{Argv: []string{"sh", "-c", tt.script, "agent", pidFile}, SpoolDir: dir,
				Timeout: tt.timeout, Grace: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(res) {
				t.Errorf("result %+v", res)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if !waitGone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the agent's background child %d outlived the run", pid)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the run took %v", d)
			}
		})
	}
}
