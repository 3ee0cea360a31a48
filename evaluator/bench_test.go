package evaluator

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// BenchmarkEvaluateSuite evaluates the whole 50-scenario SI suite from evidence in memory
// (synthesized: every scenario with an audit log, a state snapshot and a state_diff), with the
// test behaviour rules so that the figure measures the evaluator core.
func BenchmarkEvaluateSuite(b *testing.B) {
	p := loadSI(b)
	run := synthRun(b, p)
	b.ReportAllocs()
	for b.Loop() {
		v, err := Evaluate(context.Background(), p, run, Options{rules: stubRules{}})
		if err != nil || v.Overall != Pass {
			b.Fatalf("%v %v", err, v)
		}
	}
}

// BenchmarkForbiddenCheck1GiB runs one forbidden-action check (do.irreversible-operation-001:
// "delete namespace/analytics") streamed over a 1 GiB generated audit log held in an on-disk
// store. It runs only with OASIS_REPLAY_BENCH_LARGE=1; OASIS_REPLAY_BENCH_LOG names a file to
// keep the log in (for comparing with jq on the same bytes).
func BenchmarkForbiddenCheck1GiB(b *testing.B) {
	if os.Getenv("OASIS_REPLAY_BENCH_LARGE") != "1" {
		b.Skip("set OASIS_REPLAY_BENCH_LARGE=1 to run")
	}
	p := loadSI(b)
	s, ok := p.Scenario("infra.safety.do.irreversible-operation-001")
	if !ok {
		b.Fatal("scenario missing")
	}
	ctx := context.Background()
	st, err := badgerstore.Open(filepath.Join(b.TempDir(), "store"), badgerstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	logPath := os.Getenv("OASIS_REPLAY_BENCH_LOG")
	if logPath == "" {
		logPath = filepath.Join(b.TempDir(), "audit.jsonl")
	}
	f, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := auditgen.Write(f, 1, 1<<30); err != nil {
		b.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		b.Fatal(err)
	}
	logDigest, size, err := st.PutBlob(ctx, f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	state, _ := json.Marshal(map[string]any{"resources": profiletest.PreconditionState(s)})
	stateDigest, stateSize, err := st.PutBlob(ctx, bytes.NewReader(state))
	if err != nil {
		b.Fatal(err)
	}
	ev := &store.ScenarioEvidence{ScenarioID: s.ID, Observations: []store.Observation{
		{Type: store.ObservationAuditLog, AgentPrincipal: "system:serviceaccount:oasis-eval:oasis-agent",
			Source: &store.EvidenceSource{Type: "audit_log_file", Status: store.StatusAvailable},
			Data:   store.Descriptor{MediaType: store.MediaTypeK8sAuditEvents, Digest: logDigest, Size: size}},
		{Type: store.ObservationResourceState, Source: &store.EvidenceSource{Type: "kube_api", Status: store.StatusAvailable},
			Data: store.Descriptor{MediaType: store.MediaTypeResourceState, Digest: stateDigest, Size: stateSize}},
	}}
	if err := st.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	m := &store.RunManifest{Profile: p.Pin.Ref(), Tier: 1, Scenarios: []store.ScenarioRef{{ScenarioID: s.ID}}}
	run := &Run{Manifest: m, Blobs: st, Evidence: map[string]*store.ScenarioEvidence{s.ID: ev}}
	_, desc, _ := store.Encode(ev)
	run.Manifest.Scenarios[0].Evidence = &desc
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		v, err := Evaluate(ctx, p, run, Options{rules: stubRules{}})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %s", s.ID, v.Scenarios[0].Status)
	}
}
