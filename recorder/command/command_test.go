package command

import (
	"context"
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		spec       Spec
		wantOK     bool
		wantCode   int
		wantStdout string
		wantStderr string
		check      func(t *testing.T, r *Result)
	}{
		{name: "stdout and stderr", spec: Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2"}},
			wantOK: true, wantStdout: "out\n", wantStderr: "err\n"},
		{name: "stdin", spec: Spec{Argv: []string{"cat"}, Stdin: strings.NewReader(`{"a":1}`)},
			wantOK: true, wantStdout: `{"a":1}`},
		{name: "environment is exactly Env", spec: Spec{Argv: []string{"/usr/bin/env"}, Env: []string{"ONLY=1"}},
			wantOK: true, wantStdout: "ONLY=1\n"},
		{name: "non-zero exit", spec: Spec{Argv: []string{"sh", "-c", "exit 3"}}, wantCode: 3},
		{name: "missing program", spec: Spec{Argv: []string{"/nonexistent/agent"}}, check: func(t *testing.T, r *Result) {
			if !strings.Contains(r.StartError, "/nonexistent/agent") {
				t.Errorf("StartError = %q", r.StartError)
			}
		}},
		{name: "killed by a signal", spec: Spec{Argv: []string{"sh", "-c", "kill -9 $$"}}, wantCode: -1, check: func(t *testing.T, r *Result) {
			if r.Signal != "killed" {
				t.Errorf("Signal = %q", r.Signal)
			}
		}},
		{name: "output past the cap is counted and discarded", spec: Spec{Argv: []string{"sh", "-c", "head -c 3000000 /dev/zero"}, MaxOutput: 1000},
			check: func(t *testing.T, r *Result) {
				if !r.OK() || r.Stdout.Size != 1000 || !r.Stdout.Truncated || r.Stdout.Total != 3000000 {
					t.Errorf("stdout = %+v, ok %v", r.Stdout, r.OK())
				}
			}},
		{name: "timeout kills the process group", spec: Spec{Argv: []string{"sh", "-c", "sleep 60 & sleep 60"}, Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond},
			wantCode: -1, check: func(t *testing.T, r *Result) {
				if !r.TimedOut || r.Duration > 10*time.Second {
					t.Errorf("TimedOut = %v after %v", r.TimedOut, r.Duration)
				}
			}},
		{name: "SIGTERM ignored: SIGKILL after the grace period", spec: Spec{Argv: []string{"sh", "-c", "trap '' TERM; sleep 60"}, Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond},
			wantCode: -1, check: func(t *testing.T, r *Result) {
				if !r.TimedOut || r.Signal == "" {
					t.Errorf("TimedOut = %v, Signal %q", r.TimedOut, r.Signal)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.SpoolDir = t.TempDir()
			if tt.spec.Env == nil {
				tt.spec.Env = []string{"PATH=" + os.Getenv("PATH")}
			}
			r, err := Run(t.Context(), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, r)
			} else if r.OK() != tt.wantOK || r.ExitCode != tt.wantCode {
				t.Errorf("OK %v, exit %d (%s); want OK %v, exit %d", r.OK(), r.ExitCode, r.Describe(), tt.wantOK, tt.wantCode)
			}
			if tt.wantStdout != "" {
				checkOutput(t, r.Stdout, tt.wantStdout)
			}
			if tt.wantStderr != "" {
				checkOutput(t, r.Stderr, tt.wantStderr)
			}
		})
	}
}

func checkOutput(t *testing.T, o Output, want string) {
	t.Helper()
	b, err := os.ReadFile(o.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want || o.Size != int64(len(want)) || o.SHA256 != sha256.Sum256([]byte(want)) || o.Truncated {
		t.Errorf("captured %q (%+v), want %q", b, o, want)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	r, err := Run(ctx, Spec{Argv: []string{"sleep", "60"}, Env: []string{"PATH=" + os.Getenv("PATH")}, SpoolDir: t.TempDir(), Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cancelled || r.OK() || !strings.Contains(r.Describe(), "interrupted") {
		t.Errorf("Cancelled = %v, %s", r.Cancelled, r.Describe())
	}
}

func TestRunUnusableSpool(t *testing.T) {
	_, err := Run(t.Context(), Spec{Argv: []string{"true"}, SpoolDir: "/nonexistent/spool"})
	if err == nil || !strings.Contains(err.Error(), "cannot capture output") {
		t.Fatalf("err = %v", err)
	}
}

// With InMemory, a short stream stays in memory and a long one is spooled to a file of its own,
// so several runs share one spool directory.
func TestRunInMemory(t *testing.T) {
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH")}
	short, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "echo small; echo oops >&2"}, Env: env, SpoolDir: dir, InMemory: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if short.Stdout.Path != "" || string(short.Stdout.Data) != "small\n" || short.Stdout.SHA256 != sha256.Sum256([]byte("small\n")) ||
		string(short.Stderr.Data) != "oops\n" {
		t.Errorf("short streams: %+v / %+v", short.Stdout, short.Stderr)
	}
	var paths []string
	for range 2 {
		long, err := Run(t.Context(), Spec{Argv: []string{"head", "-c", "5000", "/dev/zero"}, Env: env, SpoolDir: dir, InMemory: 1024, MaxOutput: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if long.Stdout.Path == "" || long.Stdout.Data != nil || long.Stdout.Size != 3000 || !long.Stdout.Truncated {
			t.Fatalf("long stream: %+v", long.Stdout)
		}
		if b, err := os.ReadFile(long.Stdout.Path); err != nil || len(b) != 3000 || long.Stdout.SHA256 != sha256.Sum256(b) {
			t.Fatalf("spooled %d bytes, %v", len(b), err)
		}
		paths = append(paths, long.Stdout.Path)
	}
	if paths[0] == paths[1] {
		t.Errorf("two runs spooled to the same file %s", paths[0])
	}
	empty, err := Run(t.Context(), Spec{Argv: []string{"true"}, Env: env, SpoolDir: "/nonexistent/spool", InMemory: 1024})
	if err != nil || empty.Stdout.Data == nil || len(empty.Stdout.Data) != 0 {
		t.Errorf("a silent command with an unusable spool directory: %+v, %v", empty, err)
	}
}
