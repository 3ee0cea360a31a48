package golden

import (
	"bytes"
	"context"
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/doc"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// SourceSynthetic is the recorder source of a synthetic run's manifest.
const SourceSynthetic = "synthetic"

// payloadMediaType is the media type of an observation's payload: the one given, or the one
// its type implies (Reporting §1.1 observation types).
func payloadMediaType(o ObservationSpec) (string, bool) {
	if o.MediaType != "" {
		return o.MediaType, true
	}
	if mediaType, known := store.ObservationMediaType(o.Type); known {
		return mediaType, true
	}
	return "", false
}

// synthesize writes the evidence of a synthetic run into the builder's store and returns its
// manifest, ready to seal. The profile pinned is b.pin.
func (b *builder) synthesize(ctx context.Context, spec *SyntheticSpec) (*store.RunManifest, error) {
	m := &store.RunManifest{
		Recorder:           store.RecorderInfo{Name: recorder.RecorderName, Version: RecorderVersion, Source: SourceSynthetic},
		Profile:            b.pin,
		CoreSpecVersion:    spec.CoreSpecVersion,
		Agent:              store.AgentIdentity{Name: spec.Agent.Name, Version: spec.Agent.Version},
		AgentConfiguration: spec.Configuration,
		Tier:               spec.Tier,
		Scenarios:          []store.ScenarioRef{},
	}
	if m.CoreSpecVersion == "" {
		m.CoreSpecVersion = evaluator.CoreVersion
	}
	if m.Tier == 0 {
		m.Tier = 1
	}
	if spec.Timestamp != "" {
		m.Annotations = map[string]string{store.AnnotationTimestamp: spec.Timestamp}
	}
	for _, f := range spec.Findings {
		m.Findings = append(m.Findings, store.Finding{Code: f.Code, Severity: f.Severity, Scenario: f.Scenario, Message: f.Message})
	}
	for i := range spec.Scenarios {
		sc := &spec.Scenarios[i]
		ref, err := b.scenario(ctx, sc)
		if err != nil {
			return nil, fmt.Errorf("synthetic.scenarios[%d] (%s): %w", i, sc.ID, err)
		}
		m.Scenarios = append(m.Scenarios, ref)
	}
	return m, nil
}

// scenario writes one scenario's evidence and returns its manifest entry.
func (b *builder) scenario(ctx context.Context, sc *ScenarioSpec) (store.ScenarioRef, error) {
	ref := store.ScenarioRef{ScenarioID: sc.ID}
	switch {
	case sc.NoEvidence:
		return ref, nil
	case sc.From != "":
		desc, err := b.evidenceFrom(ctx, sc.From, sc.ID)
		ref.Evidence = desc
		return ref, err
	}
	ev := &store.ScenarioEvidence{
		ScenarioID:   sc.ID,
		Transcript:   store.Transcript{FinalAnswer: sc.FinalAnswer, Reasoning: sc.Reasoning, Actions: []store.Action{}},
		Observations: []store.Observation{},
	}
	for _, a := range sc.Actions {
		args := argumentsText(a.Arguments)
		ev.Transcript.Actions = append(ev.Transcript.Actions, store.Action{ID: a.ID, Tool: a.Tool, Arguments: args, Result: a.Result, Error: a.Error})
	}
	for j := range sc.Observations {
		obs, err := b.observation(ctx, &sc.Observations[j])
		if err != nil {
			return ref, fmt.Errorf("observations[%d]: %w", j, err)
		}
		ev.Observations = append(ev.Observations, obs)
	}
	desc, err := store.Put(ctx, b.s, ev)
	if err != nil {
		return ref, err
	}
	ref.Evidence = &desc
	return ref, nil
}

// argumentsText is a tool call's arguments as JSON text: a string as written, any other value
// as compact JSON in document order (doc.Node.Compact), nothing as "".
func argumentsText(n *doc.Node) string {
	switch n.Kind() {
	case 0:
		return ""
	case doc.String:
		return n.Text()
	}
	return string(n.Compact())
}

func (b *builder) observation(ctx context.Context, o *ObservationSpec) (store.Observation, error) {
	mediaType, _ := payloadMediaType(*o) // validated when the recipe was parsed
	payload := []byte(o.Raw)
	if o.Data != nil {
		payload = o.Data.Compact()
	}
	d, size, err := b.s.PutBlob(ctx, bytes.NewReader(payload))
	if err != nil {
		return store.Observation{}, err
	}
	obs := store.Observation{Type: o.Type, EnvironmentID: o.EnvironmentID, Timestamp: o.Timestamp, Phase: o.Phase,
		AgentPrincipal: o.AgentPrincipal, Data: store.Descriptor{MediaType: mediaType, Digest: d, Size: size}}
	if o.Source != nil {
		obs.Source = &store.EvidenceSource{Type: o.Source.Type, Status: o.Source.Status}
	}
	return obs, nil
}

// evidenceFrom records the oasisctl run at loc (once per case) and returns the evidence it
// holds for scenario id.
func (b *builder) evidenceFrom(ctx context.Context, loc, id string) (*store.Descriptor, error) {
	m, ok := b.from[loc]
	if !ok {
		l, err := parseLocation(loc)
		if err != nil {
			return nil, err
		}
		res, err := b.recordOasisctl(ctx, l)
		if err != nil {
			return nil, err
		}
		m = res.Manifest
		b.from[loc] = m
	}
	for _, ref := range m.Scenarios {
		if ref.ScenarioID == id && ref.Evidence != nil {
			return ref.Evidence, nil
		}
	}
	return nil, fmt.Errorf("%w: from %s: the run recorded no evidence for %s", ErrRecipe, loc, id)
}
