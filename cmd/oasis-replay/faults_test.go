package main

import (
	"bytes"
	"errors"
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

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
)

// program runs the oasis-replay command (this test binary, installed on $PATH by TestMain)
// as a process of its own, so that a crash is a crash of that process, not of the test.
func program(t *testing.T, storeDir string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("oasis-replay", append([]string{"--store", storeDir}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ProcessState.Exited():
		status = exit.ExitCode()
	case err != nil:
		t.Fatalf("oasis-replay %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return status, out.String(), errOut.String()
}

// expectClean fails the test if the process crashed instead of returning an error: a SIGBUS
// of Badger's memory-mapped files on a full file system shows up as "fatal error" and a stack.
func expectClean(t *testing.T, stderr string) {
	t.Helper()
	for _, sign := range []string{"fatal error", "SIGBUS", "goroutine ", "panic", "internal error"} {
		if strings.Contains(stderr, sign) {
			t.Fatalf("the process crashed:\n%s", firstLines(stderr, 12))
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// smallFS mounts a tmpfs of size bytes for the test, or skips the test where it cannot (not
// root, no mount): the injected ENOSPC of the store's tests covers those platforms.
func smallFS(t *testing.T, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root; store/badgerstore's TestNoSpace injects a full one instead")
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); store/badgerstore's TestNoSpace injects a full file system instead", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file into dir's file system so that about leave bytes stay free (all of them
// when leave is 0: it writes until the file system refuses).
func fill(t *testing.T, dir, name string, leave int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(st.Bavail)*st.Bsize - leave
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 1<<20)
	for written := int64(0); leave == 0 || written < size; written += int64(len(block)) {
		n := min(int64(len(block)), size-written)
		if leave == 0 {
			n = int64(len(block))
		}
		if _, err := f.Write(block[:n]); err != nil {
			if leave == 0 && errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}

// demoStore makes a store in dir holding the demo's bundle (tagged demo) and profile.
func demoStore(t *testing.T, dir string) string {
	t.Helper()
	st := filepath.Join(dir, "store")
	if status, _, stderr := program(t, st, "demo"); status != exitOK {
		t.Fatalf("demo: exit %d\n%s", status, stderr)
	}
	return st
}

// writeAuditLog writes size bytes of generated audit log (seed) and returns its path.
func writeAuditLog(t *testing.T, seed, size int64) string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := auditgen.Write(f, seed, size); err != nil {
		t.Fatal(err)
	}
	return log
}

// exampleScenario pins a recording to a scenario of the demo's profile.
var exampleScenario = []string{"--profile-digest", "oasis-replay-example-profile@0.1.0", "--scenario", "example.safety.nb.out-of-scope-restart-001"}

// recordExample is the command line that records log for that scenario.
func recordExample(log string) []string {
	return append(append([]string{"record", "files"}, exampleScenario...), "--audit-log", log)
}

// TestFullFileSystem records into a store on a small file system until it is full, then runs
// commands on it, full to the last byte, with and without a writer killed beforehand. Every
// command must end with a clear error (exit status 2, "not enough free space", naming the
// store) or work; none may crash. Once space is freed, the store opens, checks clean and still
// holds the bundle sealed before.
func TestFullFileSystem(t *testing.T) {
	fsDir := smallFS(t, 128<<20)
	st := demoStore(t, fsDir)
	recordLog := recordExample(writeAuditLog(t, 1, 64<<20))

	// Nearly full: the store needs about 40 MiB for itself and keeps 16 MiB more free; the
	// log (5 MiB compressed) does not fit in what is left, and then not even the open does.
	for i, leave := range []int64{58 << 20, 3 << 20} {
		fill(t, fsDir, "filler-1."+strconv.Itoa(i), leave)
		status, _, stderr := program(t, st, recordLog...)
		expectClean(t, stderr)
		if status != exitError || !strings.Contains(stderr, "not enough free space") || !strings.Contains(stderr, st) {
			t.Fatalf("record with %d MiB free: exit %d, want 2 with a message naming the store\n%s", leave>>20, status, stderr)
		}
		expectCommandsWork(t, st)
	}

	// A writer killed while it holds the store leaves a log to replay; then the file system
	// fills up.
	if err := os.Remove(filepath.Join(fsDir, "filler-1.1")); err != nil {
		t.Fatal(err)
	}
	killHolder(t, st)
	fill(t, fsDir, "filler-2", 0)
	for _, args := range [][]string{
		{"bundle", "ls"}, {"store", "fsck"}, {"store", "stats"}, {"replay", "--no-store", "demo"},
		{"store", "gc"}, {"profile", "ls"}, recordLog, {"replay", "demo"},
	} {
		status, _, stderr := program(t, st, args...)
		expectClean(t, stderr)
		if status != exitError || !strings.Contains(stderr, "not enough free space") {
			t.Errorf("%s on a full file system after a killed writer: exit %d, want 2 saying there is not enough free space\n%s",
				strings.Join(args, " "), status, stderr)
		}
	}

	// Space comes back: everything works again and nothing sealed was lost.
	for _, name := range []string{"filler-1.0", "filler-2"} {
		if err := os.Remove(filepath.Join(fsDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	expectCommandsWork(t, st)
	if status, _, stderr := program(t, st, "store", "gc"); status != exitOK {
		t.Fatalf("store gc after freeing space: exit %d\n%s", status, stderr)
	}
	if status, stdout, stderr := program(t, st, "store", "fsck"); status != exitOK || !strings.Contains(stdout, "0 problems; garbage for store gc: 0 entries") {
		t.Fatalf("store fsck after gc: exit %d\n%s%s", status, stdout, stderr)
	}
}

// killHolder kills a process while it holds the store in dir for writing (the scripts'
// hold-store), which leaves a log a read-write open must replay.
func killHolder(t *testing.T, dir string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command("hold-store", dir, port)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("hold-store did not open the store within a minute")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
}

// expectCommandsWork runs the read-only commands on st: they must work and find the demo's
// bundle complete, with no problem in the store.
func expectCommandsWork(t *testing.T, st string) {
	t.Helper()
	status, stdout, stderr := program(t, st, "bundle", "ls")
	expectClean(t, stderr)
	if status != exitOK || !strings.Contains(stdout, "demo") {
		t.Fatalf("bundle ls: exit %d\n%s%s", status, stdout, stderr)
	}
	status, stdout, stderr = program(t, st, "store", "fsck")
	expectClean(t, stderr)
	if status != exitOK || !strings.Contains(stdout, " 0 problems") {
		t.Fatalf("store fsck: exit %d\n%s%s", status, stdout, stderr)
	}
	status, _, stderr = program(t, st, "replay", "--no-store", "demo")
	expectClean(t, stderr)
	if status != exitOK {
		t.Fatalf("replay --no-store demo: exit %d\n%s", status, stderr)
	}
}

// programWithin is program for a command that may hang: it is killed after limit, which fails
// the test.
func programWithin(t *testing.T, limit time.Duration, storeDir string, args ...string) (status int, stderr string) {
	t.Helper()
	cmd := exec.Command("oasis-replay", append([]string{"--store", storeDir}, args...)...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), errOut.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, errOut.String()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("oasis-replay %s hung for %s\n%s", strings.Join(args, " "), limit, errOut.String())
		return 0, ""
	}
}

// TestInputsThatAreNotFiles gives every kind of input a named pipe (or a device) instead of a
// file, directly or inside an input directory. Opening a pipe blocks until a writer comes, with
// the store locked; each command must instead refuse it at once (exit status 2, naming the
// path and what it is) and leave the store free for the next command.
func TestInputsThatAreNotFiles(t *testing.T) {
	work := t.TempDir()
	st := demoStore(t, work)
	fifo := filepath.Join(work, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	runDir := filepath.Join(work, "run") // an oasisctl directory whose report is a pipe
	if err := os.Mkdir(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(runDir, "verdict.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	example := exampleScenario
	tests := []struct {
		args []string
		says string
	}{
		{append([]string{"record", "files", "--audit-log", fifo}, example...), "--audit-log: inputfile: not a regular file: " + fifo + " is a named pipe"},
		{append([]string{"record", "files", "--audit-log", "/dev/zero"}, example...), "/dev/zero is a device"},
		{append([]string{"record", "files", "--before", fifo}, example...), "--before: inputfile: not a regular file: " + fifo + " is a named pipe, not a regular file or a directory"},
		{append([]string{"record", "files", "--transcript", fifo}, example...), "--transcript: inputfile: not a regular file"},
		{append([]string{"record", "files", "--redact-file", fifo, "--redact-key-file", fifo}, example...), "--redact-file: inputfile: not a regular file"},
		{[]string{"record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", fifo}, "DIR: inputfile: not a regular file: " + fifo + " is a named pipe, not a directory"},
		{[]string{"record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", runDir}, "verdict.json is a named pipe"},
		{[]string{"profile", "import", runDir}, "verdict.json (not a regular file"},
		{[]string{"bundle", "import", fifo}, fifo + " is a named pipe"},
		{[]string{"bundle", "verify", fifo}, fifo + " is a named pipe"},
		{[]string{"audit", "--report", fifo, "demo"}, "--report: inputfile: not a regular file"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			status, stderr := programWithin(t, 10*time.Second, st, tc.args...)
			if status != exitError || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d, want 2 saying %q:\n%s", status, tc.says, stderr)
			}
			if status, _, stderr := program(t, st, "--lock-wait", "0s", "bundle", "ls"); status != exitOK {
				t.Errorf("the store is not free afterwards: exit %d\n%s", status, stderr)
			}
		})
	}
}

// waitUntilReading waits until process pid has read n bytes (Linux's /proc/PID/io), so that a
// signal reaches it at work rather than while it starts.
func waitUntilReading(t *testing.T, pid int, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		if err != nil {
			t.Skipf("cannot see how much the process read: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "rchar: "); ok {
				if read, _ := strconv.ParseInt(v, 10, 64); read >= n {
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d did not read %d bytes within 30 s", pid, n)
}

// TestInterruptedWhileReading: SIGTERM while record files works on a large audit log stops it
// within 2 s, with exit status 2, and leaves a store that checks clean, without the bundle.
// (recorder's TestRecordFilesStopsWhenCancelled checks that reading stops at once.)
func TestInterruptedWhileReading(t *testing.T) {
	st := demoStore(t, t.TempDir())
	args := append([]string{"--store", st}, recordExample(writeAuditLog(t, 3, 128<<20))...)
	cmd := exec.Command("oasis-replay", append(args, "--tag", "interrupted")...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntilReading(t, cmd.Process.Pid, 16<<20)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		cancelled := strings.Contains(errOut.String(), "signal received") || strings.Contains(errOut.String(), "context canceled")
		if !errors.As(err, &exit) || exit.ExitCode() != exitError || !cancelled {
			t.Fatalf("after SIGTERM: %v, want exit status 2 saying the command was cancelled\n%q", err, errOut.String())
		}
	case <-time.After(2 * time.Second):
		cmd.Process.Kill()
		t.Fatal("record files went on reading for 2 s after SIGTERM")
	}
	expectCommandsWork(t, st)
	if _, stdout, _ := program(t, st, "bundle", "ls"); strings.Contains(stdout, "interrupted") {
		t.Errorf("the interrupted recording was sealed:\n%s", stdout)
	}
}
