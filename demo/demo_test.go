package demo

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/report"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestProfileLoads: the example profile is valid, with the one warning a profile without a
// project scoring table always has, and covers what its documentation says.
func TestProfileLoads(t *testing.T) {
	p, err := profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
	if err != nil {
		t.Fatalf("the example profile does not load: %v", err)
	}
	var codes []string
	for _, d := range p.Diagnostics {
		codes = append(codes, string(d.Severity)+" "+d.Code)
	}
	if want := []string{"warning scoring-table-missing"}; !slices.Equal(codes, want) {
		t.Errorf("diagnostics %q, want %q:\n%v", codes, want, p.Diagnostics)
	}
	if p.Pin.ID != "oasis-replay-example-profile" || p.Pin.Version != "0.1.0" {
		t.Errorf("pin %+v", p.Pin)
	}
	if got := [2]int{len(p.Safety()), len(p.Capability())}; got != [2]int{4, 3} {
		t.Errorf("%d safety and %d capability scenarios, want 4 and 3", got[0], got[1])
	}
	if !p.AgentConfig.Declared {
		t.Error("the profile declares no agent configuration schema (Profiles §2.16)")
	}
}

// TestRunTwice runs the demo twice against one on-disk store, reopened in between: the same
// bundle, verdict and receipt both times, the audit reproduces, and the store checks clean.
func TestRunTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	var first *Result
	for i := range 2 {
		s, err := badgerstore.Open(dir, badgerstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(t.Context(), s, Options{Version: "test"})
		if err != nil {
			s.Close()
			t.Fatalf("run %d: %v", i+1, err)
		}
		if i == 0 {
			first = res
			checkResult(t, res)
		} else if a, b := summary(first), summary(res); a != b {
			t.Errorf("the second run differs:\n first %s\nsecond %s", a, b)
		}
		rep, err := store.Check(t.Context(), s, store.CheckOptions{})
		if err != nil || len(rep.Problems) > 0 {
			t.Errorf("run %d: store check: %v %+v", i+1, err, rep)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func summary(r *Result) string {
	return strings.Join([]string{r.Recording.Bundle.String(), r.Replay.Receipt.Verdict.String(),
		r.Replay.Receipt.Digest.String(), r.ReceiptRef, r.Tag}, " ")
}

// checkResult pins what the example run is for: every safety scenario passes, Phase 2 is
// scored by the generic rule with one scenario at 0.5, and the claimed report agrees with no
// note.
func checkResult(t *testing.T, r *Result) {
	t.Helper()
	v := r.Replay.Verdict
	if v.Overall != evaluator.Pass || v.Safety != evaluator.Pass || v.SafetyDetails.Passed != 4 {
		t.Errorf("overall %s, safety %s, %d passed", v.Overall, v.Safety, v.SafetyDetails.Passed)
	}
	if v.Capability == nil || !v.Capability.Coverage.Complete {
		t.Fatalf("capability block %+v, want complete coverage", v.Capability)
	}
	want := map[string]string{"task_completion": "0.75", "reliability": "0.5", "reasoning": "1.0", "auditability": "1.0"}
	for dim, score := range want {
		if got := v.Capability.CoreDimensions[dim]; got == nil || got.String() != score {
			t.Errorf("dimension %s = %v, want %s", dim, got, score)
		}
	}
	if !r.Reproduced() || len(r.Audit.Findings) != 0 {
		t.Errorf("audit: reproduced %v, %d findings %+v", r.Reproduced(), len(r.Audit.Findings), r.Audit.Findings)
	}
	if r.Tag != DefaultTag || r.ReceiptRef != store.ReceiptRefName(r.Replay.Receipt.Digest) {
		t.Errorf("tag %q, receipt ref %q", r.Tag, r.ReceiptRef)
	}
}

// TestWalkthrough: the four steps and the suggested commands are printed, with the bundle and
// receipt of the run.
func TestWalkthrough(t *testing.T) {
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(t.Context(), s, Options{Tag: "example", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteWalkthrough(&out, res, "STORE", "oasis-replay"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1. Recorded into the store at STORE",
		"   bundle      " + res.Recording.Bundle.String() + " (tag example)",
		"   evidence    7 scenarios: 7 transcripts, 7 audit_log, 6 resource_state, 2 state_diff observations; 0 recorder findings",
		"   overall     PASS",
		"   dimensions  task_completion 0.750000, reliability 0.500000, reasoning 1.000000, auditability 1.000000",
		"   lowest      example.capability.ce.scale-out-001 scored 0.500000",
		"   result      reproduced: the claimed report agrees with the evidence (0 notes)",
		"   receipt     " + res.Replay.Receipt.Digest.String(),
		"   stored as   " + res.ReceiptRef,
		"  oasis-replay replay --repeat 8 example",
		"  oasis-replay bundle export -o example.bundle.tar.zst example",
		"  oasis-replay bundle show --evidence example.capability.ce.scale-out-001 example",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("walkthrough lacks %q:\n%s", want, out.String())
		}
	}
}

// TestAuditLine: an audit that does not reproduce says so and points at the audit command.
func TestAuditLine(t *testing.T) {
	tests := []struct {
		findings []report.Finding
		want     string
	}{
		{nil, "   result      reproduced: the claimed report agrees with the evidence (0 notes)\n"},
		{[]report.Finding{{Severity: report.SeverityNote}}, "   result      reproduced: the claimed report agrees with the evidence (1 notes)\n"},
		{[]report.Finding{{Severity: report.SeverityMismatch}, {Severity: report.SeverityNote}},
			"   result      NOT reproduced: 1 mismatches, 1 notes; `./bin/oasis-replay audit demo` lists them\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		writeAudit(textout.New(&out), &report.Audit{Findings: tt.findings}, "./bin/oasis-replay", "demo")
		if out.String() != tt.want {
			t.Errorf("got %q, want %q", out.String(), tt.want)
		}
	}
}
