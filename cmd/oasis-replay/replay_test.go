package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// replayStore prepares an on-disk store holding the SI profile, the oasisctl fixture runs and
// the synthesized complete run (tagged safe, unsafe, provider-fault and synth), closes it, and
// returns its directory and the profile tree digest.
func replayStore(t *testing.T) (string, store.Digest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := replaytest.ImportSI(t, s)
	for _, name := range recordertest.Fixtures {
		recordertest.OasisctlBundle(t, s, p, name)
	}
	replaytest.SynthBundle(t, s, p)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, p.Pin.Tree
}

// runInStore runs the program with args after "oasis-replay --store dir".
func runInStore(dir string, args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = run(append([]string{"oasis-replay", "--store", dir}, args...), strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestReplayCommand(t *testing.T) {
	dir, _ := replayStore(t)
	tests := []struct {
		name           string
		args           []string
		status         int
		stdout, stderr []string
	}{
		{name: "text", args: []string{"replay", "unsafe"}, status: exitOK,
			stdout: []string{"overall     FAIL", "FAIL             infra.safety.ae.credential-forwarding-001",
				"auditID 12300515-c05e-4f3e-7701-23fcc62f28e4", "receipt     sha256:", "stored verdict and receipt, ref receipts/"}},
		{name: "abort point", args: []string{"replay", "--no-store", "provider-fault"}, status: exitOK,
			stdout: []string{"aborted     at infra.safety.br.proportionality-check-001 (scenario 5 of 21)", "not stored (--no-store)"}},
		{name: "partial", args: []string{"replay", "--no-store", "--scenario", "infra.safety.br.scope-escalation-001",
			"--scenario", "infra.safety.ae.credential-forwarding-001", "unsafe"}, status: exitOK,
			stdout: []string{"partial     2 of 21 scenarios selected", "not selected     infra.safety.sc.partial-operation-001"}},
		{name: "repeat", args: []string{"replay", "--no-store", "--repeat", "5", "safe"}, status: exitOK,
			stdout: []string{"5 evaluations, 1 verdict digest sha256:"}},
		{name: "capability scores", args: []string{"replay", "--no-store", "synth"}, status: exitOK,
			stdout: []string{"overall     PASS", "capability scores, tier 1: 29 archetypes evaluated", "dimension task_completion"}},
		{name: "unknown bundle", args: []string{"replay", "no-such-tag"}, status: exitError,
			stderr: []string{`no sealed bundle matches "no-such-tag"`}},
		{name: "unknown scenario", args: []string{"replay", "--scenario", "infra.safety.xx.none-001", "unsafe"}, status: exitError,
			stderr: []string{"unknown scenario: infra.safety.xx.none-001 is not listed in the run"}},
		{name: "repeat zero", args: []string{"replay", "--repeat", "0", "unsafe"}, status: exitError,
			stderr: []string{"--repeat must be at least 1"}},
		{name: "flags after the bundle", args: []string{"replay", "safe", "--no-store", "--repeat=2", "--scenario", "infra.safety.br.scope-escalation-001"},
			status: exitOK, stdout: []string{"partial     1 of 50 scenarios selected", "2 evaluations, 1 verdict digest sha256:", "not stored (--no-store)"}},
		{name: "no bundle", args: []string{"replay"}, status: exitError, stderr: []string{"replay: missing BUNDLE (usage: oasis-replay replay [command options] BUNDLE)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, stdout, stderr := runInStore(dir, tt.args...)
			if status != tt.status {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.status, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout does not contain %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, stderr)
				}
			}
		})
	}
}

var verdictLine = regexp.MustCompile(`(?m)^  verdict   (sha256:[0-9a-f]{64})$`)

// TestReplayJSON: --json prints exactly the canonical verdict bytes, whose digest is the
// receipt's verdict digest printed on stderr; the same bundle always gives the same receipt,
// and storing it twice leaves one ref.
func TestReplayJSON(t *testing.T) {
	dir, _ := replayStore(t)
	var receipts []string
	for range 2 {
		status, stdout, stderr := runInStore(dir, "replay", "--json", "unsafe")
		if status != exitOK {
			t.Fatalf("exit %d: %s", status, stderr)
		}
		m := verdictLine.FindStringSubmatch(stderr)
		if m == nil || store.Sum([]byte(stdout)).String() != m[1] {
			t.Fatalf("stdout is not the verdict named on stderr:\n%s", stderr)
		}
		if canon, err := store.Canonicalize([]byte(stdout)); err != nil || string(canon) != stdout {
			t.Fatalf("stdout is not canonical JSON: %v", err)
		}
		receipts = append(receipts, stderr)
	}
	if receipts[0] != receipts[1] {
		t.Errorf("two replays gave different receipts:\n%s\n%s", receipts[0], receipts[1])
	}
	s, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	refs, err := s.ListRefs(context.Background(), store.RefReceiptPrefix)
	if err != nil || len(refs) != 1 {
		t.Errorf("receipt refs %v %v", refs, err)
	}
}

// TestReplayMissingProfile: a bundle whose pinned profile tree is gone is exit status 2 with a
// message naming the pin.
func TestReplayMissingProfile(t *testing.T) {
	dir, tree := replayStore(t)
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(context.Background(), tree); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	status, _, stderr := runInStore(dir, "replay", "--no-store", "unsafe")
	if status != exitError || !strings.Contains(stderr, "pinned profile unavailable") || !strings.Contains(stderr, tree.String()) {
		t.Errorf("exit %d: %s", status, stderr)
	}
}
