package replaytest

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// ConformanceBundle seals, tagged tag, the recording of a run that got answer from the
// provider's GET /v1/conformance and ran no scenario, as record proxy seals a runner that
// stopped after its preflight: the answer as the manifest's Conformance, tier 1.
func ConformanceBundle(t testing.TB, s store.Store, p *profiles.Profile, answer []byte, tag string) store.Digest {
	t.Helper()
	b := builder{t: t, s: s}
	d := b.blob(store.MediaTypeConformance, answer)
	m := &store.RunManifest{
		Recorder:        store.RecorderInfo{Name: "replaytest", Version: "test", Source: "proxy"},
		Profile:         p.Pin.Ref(),
		CoreSpecVersion: "1.0.0-rc1.5",
		Conformance:     &d,
		Tier:            1,
		Scenarios:       []store.ScenarioRef{},
	}
	return b.seal(m, tag)
}
