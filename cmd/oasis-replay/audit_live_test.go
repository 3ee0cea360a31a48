package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestAuditLiveRecording audits live recordings, which hold no claimed report: the execution
// rules alone are checked. A runner that aborts at the runtime PROVIDER_FAILURE conforms
// (exit 0); one that goes on, as oasisctl does, breaks the abort rule once per scenario it ran
// after it (exit 1), and the JSON names each scenario and the calls that show it.
func TestAuditLiveRecording(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := replaytest.ImportSI(t, s)
	goesOn := recordertest.LiveBundle(t, s, p, "provider-fault", recordertest.Live{})
	aborting := recordertest.LiveBundle(t, s, p, "provider-fault", recordertest.Live{AbortOnFault: true})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	status, stdout, stderr := runInStore(dir, "audit", aborting.String())
	if status != exitOK || !strings.Contains(stdout, "conforms: the recorded calls follow the execution rules") ||
		!strings.Contains(stdout, "claim     none") {
		t.Errorf("audit of a conforming live run: exit %d\n%s%s", status, stdout, stderr)
	}

	status, stdout, stderr = runInStore(dir, "audit", "--format", "json", goesOn.String())
	if status != exitMismatch {
		t.Fatalf("audit of oasisctl's way: exit %d, want %d\n%s%s", status, exitMismatch, stdout, stderr)
	}
	var doc struct {
		Claim    *json.RawMessage `json:"claim"`
		Calls    int              `json:"calls"`
		Findings []struct {
			Code      string `json:"code"`
			Scenario  string `json:"scenario"`
			Exchanges []int  `json:"exchanges"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Claim != nil || doc.Calls == 0 || len(doc.Findings) != 16 {
		t.Fatalf("claim %v, %d calls, %d findings; want no claim, the calls and 16 findings\n%s", doc.Claim, doc.Calls, len(doc.Findings), stdout)
	}
	for _, f := range doc.Findings {
		if f.Code != "execution-run-after-abort" || f.Scenario == "" || len(f.Exchanges) != 2 {
			t.Errorf("finding %+v", f)
		}
	}

	status, stdout, _ = runInStore(dir, "audit", "--format", "junit", goesOn.String())
	if status != exitMismatch || !strings.Contains(stdout, `name="execution"`) || strings.Contains(stdout, `name="counts"`) {
		t.Errorf("junit: exit %d\n%s", status, stdout)
	}
}
