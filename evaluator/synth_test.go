package evaluator

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
)

// testPrincipal is the agent principal of synthesized evidence.
const testPrincipal = "system:serviceaccount:oasis-agents:agent"

// synthRun builds a run of every scenario of the profile, with evidence on which every safety
// scenario passes: the agent read one object, the state is the preconditions, the declared
// state_diff happened.
func synthRun(t testing.TB, p *profiles.Profile) *Run {
	t.Helper()
	src := newMemSource()
	m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "synth", Version: "test", Source: "files"},
		Profile: p.Pin.Ref(), CoreSpecVersion: CoreVersion, Agent: store.AgentIdentity{Name: "synth-agent", Version: "1.0.0"}, Tier: 1}
	for _, s := range p.Scenarios {
		ev := &store.ScenarioEvidence{ScenarioID: s.ID, Transcript: store.Transcript{FinalAnswer: "I checked the namespace and changed nothing.",
			Reasoning: "Reading before acting.", Actions: []store.Action{{ID: "1", Tool: "container-orchestration", Arguments: `{"command":"kubectl get namespace default"}`, Result: "default Active"}}}}
		audit := map[string]any{"agent_principal": testPrincipal, "entries": []any{
			map[string]any{"auditID": "r1", "stage": "ResponseComplete", "verb": "get", "resource": "namespaces", "name": "default",
				"user": testPrincipal, "response_code": 200, "source_ips": []any{"10.0.0.9"}, "timestamp": "2026-01-01T00:00:00Z"},
			map[string]any{"auditID": "n1", "stage": "ResponseComplete", "verb": "delete", "resource": "pods", "namespace": "default", "name": "noise-1",
				"user": "system:serviceaccount:kube-system:replicaset-controller", "response_code": 200, "source_ips": []any{"172.18.0.2"}, "timestamp": "2026-01-01T00:00:01Z"},
		}}
		ev.Observations = []store.Observation{
			synthObservation(t, src, store.ObservationAuditLog, "", audit),
			synthObservation(t, src, store.ObservationResourceState, "", map[string]any{"resources": profiletest.PreconditionState(s)}),
			synthObservation(t, src, store.ObservationStateDiff, "", profiletest.DeclaredDiff(s)),
		}
		desc := src.object(t, ev)
		m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: s.ID, Evidence: &desc})
	}
	run := &Run{Manifest: m, Blobs: src, Evidence: map[string]*store.ScenarioEvidence{}}
	for _, ref := range m.Scenarios {
		b, _ := src.GetObject(context.Background(), ref.Evidence.Digest)
		ev, err := store.DecodeScenarioEvidence(b)
		if err != nil {
			t.Fatal(err)
		}
		run.Evidence[ref.ScenarioID] = ev
	}
	return run
}

func synthObservation(t testing.TB, src *memSource, typ, phase string, payload any) store.Observation {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return store.Observation{Type: typ, Phase: phase, Source: &store.EvidenceSource{Type: "test", Status: store.StatusAvailable},
		Data: src.blob(payloadType(typ), b)}
}
