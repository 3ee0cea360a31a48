package evallib

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
)

// One run with malformed spans does not fail drafting from the whole store: it is skipped and
// named (bundle, run id, source, why), with every other run sharing its bad source, and the
// drafts are those of the good runs (issue 23, item 6).
func TestDraftFromStoreSkipsBadRuns(t *testing.T) {
	jsonBody, _ := bodies(t, telemetry())
	opts := DraftOptions{LookbackHours: 168, Max: 20}
	fromFile, err := ReadSpanFile("spans.json", jsonBody)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DraftScenarios(Invocations(fromFile), opts)
	if err != nil {
		t.Fatal(err)
	}

	st := newTestStore(t)
	good := kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPJSON, Data: jsonBody}
	bad := kensa.Source{Path: "otlp/000002", MediaType: store.MediaTypeOTLPJSON, Data: []byte(`{"resourceSpans": [{"scopeSpans": 7}]}`)}
	badProto := kensa.Source{Path: "otlp/000003", MediaType: store.MediaTypeOTLPProtobuf, Data: []byte{0xff, 0xff, 0xff}}
	recordertest.KensaSpansBundle(t, st, "run-good", good)
	b1 := recordertest.KensaSpansBundle(t, st, "run-bad", good, bad)
	b2 := recordertest.KensaSpansBundle(t, st, "run-bad-again", bad)
	b3 := recordertest.KensaSpansBundle(t, st, "run-bad-proto", badProto)

	got, err := DraftFromStore(t.Context(), st, opts)
	if err != nil {
		t.Fatalf("one bad run failed the whole store: %v", err)
	}
	if draftText(got) != draftText(want) {
		t.Errorf("drafts with bad runs beside:\n%s\nwant those of the good run:\n%s", draftText(got), draftText(want))
	}
	skipped := map[string]SkippedRun{}
	for _, k := range got.Skipped {
		skipped[k.RunID] = k
	}
	for _, tt := range []struct {
		run    string
		bundle store.Digest
		source string
	}{{"run-bad", b1, "otlp/000002"}, {"run-bad-again", b2, "otlp/000002"}, {"run-bad-proto", b3, "otlp/000003"}} {
		k, ok := skipped[tt.run]
		if !ok || k.Bundle != tt.bundle || k.Source != tt.source || !strings.Contains(k.Reason, "span source "+tt.source+" cannot be read") {
			t.Errorf("run %s: skipped as %+v, want bundle %s, source %s and why", tt.run, k, tt.bundle.Short(), tt.source)
		}
	}
	if len(got.Skipped) != 3 {
		t.Errorf("skipped %+v, want the three bad runs", got.Skipped)
	}
	if _, err := StoreSpans(t.Context(), st); err == nil || !strings.Contains(err.Error(), "otlp/000002") {
		t.Errorf("StoreSpans, which reads every span or fails: %v", err)
	}
}
