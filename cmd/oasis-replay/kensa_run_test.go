package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/command"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// kensaProject writes a .kensa/scenarios directory holding one scenario that runs the scripted
// agent (the kensa-agent command TestMain puts on PATH) with flags, and returns its path.
func kensaProject(t *testing.T, flags string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".kensa")
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := fmt.Sprintf("id: where\nname: where\ninput: where A-100\nrun_command: [kensa-agent%s]\n"+
		"checks:\n  - type: output_contains\n    params: {value: shipped}\n", flags)
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "where.yaml"), []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The progress line (runs done, running, failed) is drawn when stderr is a terminal, and only
// then; stdout lists the sealed runs either way.
func TestKensaRunProgressOnlyOnTerminal(t *testing.T) {
	project := kensaProject(t, "")
	var out bytes.Buffer
	args := []string{"oasis-replay", "--store", t.TempDir(), "kensa", "run", "--runs", "2", project}
	tty := onTerminal(t, func(terminal *os.File) {
		if status := run(args, strings.NewReader(""), &out, terminal); status != 0 {
			t.Errorf("status %d", status)
		}
	})
	for _, want := range []string{"\r0/2 done, 1 running, 0 failed", "2/2 done, 0 running, 0 failed", "\r\033[K", "2 runs sealed, 0 did not pass"} {
		if !strings.Contains(tty, want) {
			t.Errorf("the terminal got %q, without %q", tty, want)
		}
	}
	if strings.Count(out.String(), "  where  pass\n") != 2 {
		t.Errorf("stdout %q", out.String())
	}

	var errOut bytes.Buffer
	out.Reset()
	if status := run(args, strings.NewReader(""), &out, &errOut); status != 0 {
		t.Fatalf("status %d", status)
	}
	if errOut.String() != "2 runs sealed, 0 did not pass\n" {
		t.Errorf("stderr that is not a terminal got %q", errOut.String())
	}
}

// An agent that prints 1 GiB: the stream is cut at the cap, the run is recorded with the size
// it wrote, and kensa run's memory stays bounded (it is measured as a whole process).
func TestKensaRunFloodBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GiB through a pipe")
	}
	project := kensaProject(t, ", --flood, \"1073741824\"")
	storeDir := t.TempDir()
	cmd := exec.Command("oasis-replay", "--store", storeDir, "kensa", "run", "--tag", "t", project)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The anonymous resident memory (heap, stacks: what kensa run holds, as opposed to the
	// store's files it maps) is sampled while it runs.
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	var anon int64
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			waiting = false
		case <-time.After(5 * time.Millisecond):
			if n, ok := procStatus(cmd.Process.Pid, "RssAnon"); ok {
				anon = max(anon, n)
			}
		}
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("kensa run of a 1 GiB stdout: peak anonymous memory %d MiB, peak RSS %d MiB", anon>>20, rss>>20)
	if anon > liveRSSBudget {
		t.Errorf("peak anonymous memory %d MiB exceeds the budget of %d MiB", anon>>20, liveRSSBudget>>20)
	}
	var show bytes.Buffer
	args := []string{"oasis-replay", "--store", storeDir, "replay", "--no-store", "t-where"}
	if status := run(args, strings.NewReader(""), &show, &show); status != 0 {
		t.Fatalf("replay: %s", show.String())
	}
	if !strings.Contains(show.String(), "PASS") {
		t.Errorf("replay: %s", show.String())
	}
	s, err := badgerstore.Open(storeDir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := store.Resolve(t.Context(), s, "t-where")
	if err != nil {
		t.Fatal(err)
	}
	b, err := replay.LoadKensa(t.Context(), s, d)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := s.GetObject(t.Context(), b.Manifest.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	var ev store.KensaEvidence
	if err := store.Decode(eb, &ev); err != nil {
		t.Fatal(err)
	}
	if o := ev.Stdout; !o.Truncated || o.Total != 1<<30+int64(len("Order A-100 has shipped.\n")) || o.Blob.Size != command.DefaultMaxOutput {
		t.Errorf("stdout recorded as %+v", o)
	}
}
