package evaluator

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// exampleAnswer answers the example profile's contract; tier is its complexity_tiers_supported.
func exampleAnswer(tier string) string {
	return `{"provider":"petri","provider_version":"0.2.0","oasis_core_spec_versions":["1.0.0-rc1.5"],` +
		`"profile":"oasis-replay-example-profile","profile_version":"0.1.0","supported":true,` +
		`"requirements":{"environment_type":"kubernetes-cluster","complexity_tiers_supported":` + tier + `,` +
		`"oasis_core_spec_version":["1.0.0-rc1.5"],"evidence_sources_available":["audit_log","resource_state"],` +
		`"value_containment_support":true,"state_injection":true,"audit_policy_installation":true}}`
}

// TestConformanceInVerdict: metadata.environment carries the preflight check of the recorded
// conformance answer against the requested tier (the manifest's), and nothing when the run
// recorded no answer, so those verdicts keep their bytes.
func TestConformanceInVerdict(t *testing.T) {
	p, err := profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		tier         int
		// check is "" for no answer, "met", "unmet KEY" or "malformed".
		want string
	}{
		{name: "no answer", tier: 1},
		{name: "conformant", answer: exampleAnswer("2"), tier: 2, want: "met"},
		{name: "no tier recorded reads as tier 1", answer: exampleAnswer("1"), tier: 0, want: "met"},
		{name: "tier above the provider's", answer: exampleAnswer("2"), tier: 3, want: "unmet complexity_tiers_supported"},
		{name: "malformed", answer: `{"supported":"yes"}`, tier: 1, want: "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newMemSource()
			m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "test", Version: "test", Source: "proxy"},
				Profile: p.Pin.Ref(), CoreSpecVersion: CoreVersion, Tier: tt.tier}
			if tt.answer != "" {
				d := src.blob(store.MediaTypeConformance, []byte(tt.answer))
				m.Conformance = &d
			}
			v, err := Evaluate(context.Background(), p, &Run{Manifest: m, Blobs: src, Evidence: map[string]*store.ScenarioEvidence{}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			env := v.Metadata.Environment
			canonical, err := v.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if env.Preflight != nil || env.ConformanceCheck != "no provider conformance response was recorded" || bytes.Contains(canonical, []byte(`"preflight"`)) {
					t.Fatalf("environment %+v", env)
				}
				return
			}
			pre := env.Preflight
			if pre == nil || !bytes.Contains(canonical, []byte(`"preflight":{`)) || !strings.Contains(env.ConformanceCheck, m.Conformance.Digest.String()) {
				t.Fatalf("environment %+v", env)
			}
			var got string
			switch {
			case pre.Malformed != "":
				got = "malformed"
			case pre.Met:
				got = "met"
			default:
				got = "unmet " + pre.Unmet[0].Key
			}
			if got != tt.want || pre.RequestedTier != max(tt.tier, 1) || !strings.HasPrefix(env.ConformanceCheck, pre.Summary()) {
				t.Errorf("preflight %+v (%s), want %s; conformance_check %q", pre, got, tt.want, env.ConformanceCheck)
			}
		})
	}
}

// TestConformanceUnreadable: an answer the source cannot serve is a validation error, never a
// verdict.
func TestConformanceUnreadable(t *testing.T) {
	p, err := profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := store.Descriptor{MediaType: store.MediaTypeConformance, Digest: store.Sum([]byte("never stored")), Size: 12}
	m := &store.RunManifest{Profile: p.Pin.Ref(), CoreSpecVersion: CoreVersion, Tier: 1, Conformance: &d}
	_, err = Evaluate(context.Background(), p, &Run{Manifest: m, Blobs: newMemSource(), Evidence: map[string]*store.ScenarioEvidence{}}, Options{})
	if !errors.Is(err, ErrEvidence) || !strings.Contains(err.Error(), d.Digest.String()) {
		t.Fatalf("error %v, want ErrEvidence naming %s", err, d.Digest)
	}
}
