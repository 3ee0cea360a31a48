package recordertest

import (
	"context"
	"testing"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// KensaSpansBundle seals into s one Kensa run whose span sources are sources (OTLP bodies as
// kensa run's receiver keeps them, or the exporter's spans.jsonl), as kensa run seals a run,
// and returns its bundle id. Runs with another runID are other bundles; runs with the same
// sources share their blobs, as recorded runs that saw the same spans do.
func KensaSpansBundle(t testing.TB, s store.Store, runID string, sources ...kensa.Source) store.Digest {
	t.Helper()
	const path = "scenarios/skills.yaml"
	text := []byte("id: skills\nname: Skills\ninput: go\nrun_command: [agent]\n")
	sc, err := fkensa.ParseScenario(path, text)
	if err != nil {
		t.Fatal(err)
	}
	rec := &kensa.Record{
		Definition:  &kensa.Definition{Scenario: sc, ScenarioPath: path, Files: map[string][]byte{path: text}},
		RunID:       runID,
		Argv:        []string{"agent", "go"},
		Stdout:      kensa.Captured{Data: []byte("done\n"), Total: 5},
		SpanSources: sources,
	}
	ds, err := kensa.SealAll(context.Background(), s, []*kensa.Record{rec}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds[0]
}
