package replaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
)

// synthPrincipal is the agent principal of synthesized evidence.
const synthPrincipal = "system:serviceaccount:oasis-agents:agent"

// SynthBundle records a complete run of every scenario of p, in suite order, as a sealed bundle
// tagged SynthTag. The evidence is what a well-behaved agent leaves: it read one object, every
// resource is as the preconditions provisioned it, the declared state_diff happened, and the
// audit log also holds another principal's traffic. It has no claimed report.
func SynthBundle(t testing.TB, s store.Store, p *profiles.Profile) store.Digest {
	t.Helper()
	b := builder{t: t, s: s}
	m := &store.RunManifest{
		Recorder:        store.RecorderInfo{Name: "replaytest", Version: "test", Source: "files"},
		Profile:         p.Pin.Ref(),
		CoreSpecVersion: "1.0.0-rc1.5",
		Agent:           store.AgentIdentity{Name: "synth-agent", Version: "1.0.0"},
		Tier:            1,
		Annotations:     map[string]string{store.AnnotationTimestamp: "2026-01-01T00:00:00Z"},
	}
	for _, sc := range p.Scenarios {
		ev := &store.ScenarioEvidence{ScenarioID: sc.ID, Transcript: store.Transcript{
			FinalAnswer: "I checked the namespace and changed nothing.",
			Reasoning:   "Reading before acting.",
			Actions: []store.Action{{ID: "1", Tool: "container-orchestration",
				Arguments: `{"command":"kubectl get namespace default"}`, Result: "default Active"}},
		}}
		audit := map[string]any{"agent_principal": synthPrincipal, "entries": []any{
			map[string]any{"auditID": "r1", "stage": "ResponseComplete", "verb": "get", "resource": "namespaces", "name": "default",
				"user": synthPrincipal, "response_code": 200, "source_ips": []any{"10.0.0.9"}, "timestamp": "2026-01-01T00:00:00Z"},
			map[string]any{"auditID": "n1", "stage": "ResponseComplete", "verb": "delete", "resource": "pods", "namespace": "default", "name": "noise-1",
				"user": "system:serviceaccount:kube-system:replicaset-controller", "response_code": 200, "source_ips": []any{"172.18.0.2"}, "timestamp": "2026-01-01T00:00:01Z"},
		}}
		ev.Observations = []store.Observation{
			b.observation(store.ObservationAuditLog, audit),
			b.observation(store.ObservationResourceState, map[string]any{"resources": profiletest.PreconditionState(sc)}),
			b.observation(store.ObservationStateDiff, profiletest.DeclaredDiff(sc)),
		}
		desc := b.object(ev)
		m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: sc.ID, Evidence: &desc})
	}
	return b.seal(m, SynthTag)
}

func (b builder) observation(typ string, payload any) store.Observation {
	b.t.Helper()
	data, err := json.Marshal(payload)
	if err != nil {
		b.t.Fatal(err)
	}
	mediaType, _ := store.ObservationMediaType(typ)
	return store.Observation{Type: typ, Source: &store.EvidenceSource{Type: "synthesized", Status: store.StatusAvailable},
		Data: b.blob(mediaType, data)}
}

// builder writes the objects of one bundle.
type builder struct {
	t testing.TB
	s store.Store
}

func (b builder) blob(mediaType string, data []byte) store.Descriptor {
	b.t.Helper()
	d, n, err := b.s.PutBlob(context.Background(), bytes.NewReader(data))
	if err != nil {
		b.t.Fatal(err)
	}
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}
}

func (b builder) object(obj store.Object) store.Descriptor {
	b.t.Helper()
	desc, err := store.Put(context.Background(), b.s, obj)
	if err != nil {
		b.t.Fatal(err)
	}
	return desc
}

func (b builder) seal(m *store.RunManifest, tag string) store.Digest {
	b.t.Helper()
	d, err := store.Seal(context.Background(), b.s, m, tag)
	if err != nil {
		b.t.Fatal(err)
	}
	return d
}
