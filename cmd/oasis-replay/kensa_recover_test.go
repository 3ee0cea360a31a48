package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdStoreProcess opens the store in dir for writing in a child process (hold-store) and
// returns it once it holds the store.
func holdStoreProcess(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	hold := exec.Command("hold-store", dir, port)
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hold.Process.Kill(); _ = hold.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return hold
		}
		if time.Now().After(deadline) {
			t.Fatal("hold-store did not start")
		}
	}
}

// killedKensaRun runs kensa run with two runs while another process holds the store, waits
// until both runs finished and wait in the spool to be sealed, kills kensa run with SIGKILL,
// lets go of the store, and returns the store's directory.
func killedKensaRun(t *testing.T) string {
	t.Helper()
	storeDir := filepath.Join(t.TempDir(), "store")
	hold := holdStoreProcess(t, storeDir)
	project := kensaProject(t, "")
	cmd := exec.Command("oasis-replay", "--store", storeDir, "kensa", "run", "--runs", "2", "--tag", "killed", project)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		kept, _ := filepath.Glob(filepath.Join(storeDir, "journals", "kensa-*", "run-*", "record.json"))
		if len(kept) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runs were not kept in the spool:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !strings.Contains(out.String(), "in use by another process") {
		t.Fatalf("kensa run was not waiting for the store:\n%s", out.String())
	}
	_ = hold.Process.Signal(syscall.SIGTERM)
	_ = hold.Wait()
	return storeDir
}

// After kill -9 of kensa run, the runs it finished and had not sealed are sealed by record
// recover (and its spool removed, so recovering again seals nothing), or by the next kensa run
// when it starts, which says so on stderr; either way the runs replay, tagged as kensa run
// tags them.
func TestKensaRunKilledRunsRecovered(t *testing.T) {
	tests := []struct {
		name  string
		args  func(project string) []string
		check func(t *testing.T, stdout, stderr string)
	}{
		{"record recover", func(string) []string { return []string{"record", "recover"} }, func(t *testing.T, stdout, stderr string) {
			if strings.Count(stdout, "sha256:") != 2 || !strings.Contains(stderr, "sealed 2 finished runs") {
				t.Errorf("stdout %q, stderr %q", stdout, stderr)
			}
		}},
		{"the next kensa run", func(project string) []string { return []string{"kensa", "run", "--tag", "next", project} }, func(t *testing.T, stdout, stderr string) {
			if !strings.Contains(stderr, "kensa run: sealed 2 finished runs a kensa run that did not finish left in ") ||
				strings.Count(stderr, "  where  pass\n") != 2 || strings.Count(stdout, "  where  pass\n") != 1 {
				t.Errorf("stdout %q, stderr %q", stdout, stderr)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			storeDir := killedKensaRun(t)
			var stdout, stderr bytes.Buffer
			args := append([]string{"oasis-replay", "--store", storeDir}, tt.args(kensaProject(t, ""))...)
			if status := run(args, strings.NewReader(""), &stdout, &stderr); status != 0 {
				t.Fatalf("status %d: %s", status, stderr.String())
			}
			tt.check(t, stdout.String(), stderr.String())
			if left, _ := filepath.Glob(filepath.Join(storeDir, "journals", "kensa-*")); len(left) != 0 {
				t.Errorf("spools left: %v", left)
			}
			var show bytes.Buffer
			if status := run([]string{"oasis-replay", "--store", storeDir, "replay", "--no-store", "killed-where"}, strings.NewReader(""), &show, &show); status != 0 || !strings.Contains(show.String(), "PASS") {
				t.Errorf("replay of the recovered run: %d %s", status, show.String())
			}
			stdout.Reset()
			if status := run([]string{"oasis-replay", "--store", storeDir, "record", "recover"}, strings.NewReader(""), &stdout, &stderr); status != 0 || stdout.Len() != 0 {
				t.Errorf("recovering again: %d %q", status, stdout.String())
			}
		})
	}
}

// An agent's background child does not outlive kensa run, eval run or eval matrix, which end
// the agent's process group when its run ends (here a normal exit).
func TestAgentBackgroundChildEnded(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.sh")
	pidFile := filepath.Join(dir, "child.pid")
	// The child holds no pipe of the agent's: nothing else would make the run wait for it.
	text := fmt.Sprintf("#!/bin/sh\nsleep 300 >/dev/null 2>&1 </dev/null &\necho $! >> %s\necho '{\"answer\": \"Order A-100 has shipped.\"}'\n", pidFile)
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	kensaDir := filepath.Join(dir, ".kensa")
	if err := os.MkdirAll(filepath.Join(kensaDir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := fmt.Sprintf("id: bg\nname: bg\ninput: where A-100\nrun_command: [%q]\n", script)
	if err := os.WriteFile(filepath.Join(kensaDir, "scenarios", "bg.yaml"), []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args func() []string
	}{
		{"kensa run", func() []string {
			return []string{"oasis-replay", "--store", filepath.Join(t.TempDir(), "store"), "kensa", "run", kensaDir}
		}},
		{"eval run", func() []string { return append(evalStore(t), "eval", "run", "--agent", script, "--scenario", "deploy") }},
		{"eval matrix", func() []string {
			return append(evalStore(t), "eval", "matrix", "--agent", script, "--variation", "sycophancy")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(pidFile)
			var out bytes.Buffer
			run(tt.args(), strings.NewReader(""), &out, &out)
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("the agent did not run: %v\n%s", err, out.String())
			}
			for _, line := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(line)
				if !processGone(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("the agent's background child %d outlived %s", pid, tt.name)
				}
			}
		})
	}
}

// processGone waits a little for pid to end: gone, or a zombie no one reaps.
func processGone(pid int) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
			if strings.HasPrefix(strings.TrimSpace(rest), "Z") {
				return true
			}
		}
	}
	return false
}

// A spool that cannot be recovered (its record damaged) does not keep kensa run from running:
// it is a warning, and the spool stays for record recover, which reports it and fails.
func TestKensaRunDamagedSpoolLeftForRecover(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "store")
	spool := filepath.Join(storeDir, "journals", "kensa-20260101T000000Z-1-abcd")
	if err := os.MkdirAll(filepath.Join(spool, "run-000001"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"kensa-spool": "", "run-000001/record.json": "{not json"} {
		if err := os.WriteFile(filepath.Join(spool, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"oasis-replay", "--store", storeDir, "kensa", "run", kensaProject(t, "")}, strings.NewReader(""), &stdout, &stderr); status != 0 ||
		!strings.Contains(stderr.String(), "kensa run: warning: the spool "+spool+" a kensa run left was not recovered: kensa: spool: ") {
		t.Errorf("kensa run: %d %s", status, stderr.String())
	}
	stderr.Reset()
	if status := run([]string{"oasis-replay", "--store", storeDir, "record", "recover"}, strings.NewReader(""), &stdout, &stderr); status != 2 ||
		!strings.Contains(stderr.String(), "journal kensa-20260101T000000Z-1-abcd: not sealed: kensa: spool: ") {
		t.Errorf("record recover: %d %s", status, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(spool, "run-000001", "record.json")); err != nil {
		t.Errorf("the damaged spool was not kept: %v", err)
	}
}
