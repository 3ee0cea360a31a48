package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// eval scenario generate without FILE skips a run of the store whose spans cannot be read,
// names it on stderr and in --json's skipped list, and drafts from the others with exit status
// 0 (issue 23, item 6).
func TestEvalGenerateSkipsBadRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	span := `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "00000000000000000000000000000001", "spanId": "0000000000000001",
 "name": "skill.invoke", "startTimeUnixNano": "1777885200000000000", "endTimeUnixNano": "1777885201000000000",
 "attributes": [{"key": "skill.name", "value": {"stringValue": "deploy.triage"}}]}]}]}]}`
	recordertest.KensaSpansBundle(t, st, "run-good", kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPJSON, Data: []byte(span)})
	bad := recordertest.KensaSpansBundle(t, st, "run-bad", kensa.Source{Path: "otlp/000002", MediaType: store.MediaTypeOTLPJSON, Data: []byte(`{"resourceSpans": 3}`)})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := program(t, dir, "eval", "scenario", "generate")
	if status != exitOK || !strings.Contains(stdout, "1 skill.invoke span(s)") ||
		!strings.Contains(stderr, "oasis-replay: skipped run run-bad (bundle "+bad.Short()+"): span source otlp/000002 cannot be read: ") {
		t.Errorf("generate beside a bad run: exit %d\n%s%s", status, stdout, stderr)
	}
	status, stdout, _ = program(t, dir, "eval", "scenario", "generate", "--json")
	var set struct {
		Spans   int `json:"spans"`
		Skipped []struct {
			Bundle string `json:"bundle"`
			RunID  string `json:"run_id"`
			Source string `json:"source"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(stdout), &set); err != nil || status != exitOK || set.Spans != 1 || len(set.Skipped) != 1 ||
		set.Skipped[0].RunID != "run-bad" || set.Skipped[0].Bundle != bad.String() || set.Skipped[0].Source != "otlp/000002" {
		t.Errorf("generate --json: exit %d, %+v (%v)\n%s", status, set, err, stdout)
	}
}
