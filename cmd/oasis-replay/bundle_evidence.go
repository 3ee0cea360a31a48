package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/store"
)

// evidencePiece is one stored piece of a scenario's evidence, as bundle show --evidence lists
// it: what `cat` prints, and what it is.
type evidencePiece struct {
	Desc store.Descriptor
	What string
}

// scenarioEvidence lists the evidence of one scenario of a run: the scenario's evidence object
// (transcript and observation list), the source file it was read from, and each observation's
// payload, with the attributes.source it came from (OASIS Reporting §1.1: an observation is
// independent evidence, its payload kept byte-exact).
func scenarioEvidence(ctx context.Context, s store.Store, d store.Digest, m *store.RunManifest, scenario string) ([]evidencePiece, error) {
	var ref *store.ScenarioRef
	var ids []string
	for i := range m.Scenarios {
		ids = append(ids, m.Scenarios[i].ScenarioID)
		if m.Scenarios[i].ScenarioID == scenario {
			ref = &m.Scenarios[i]
		}
	}
	switch {
	case ref == nil:
		return nil, fmt.Errorf("%w: bundle %s has no scenario %q (it has %s)", store.ErrNotFound, d.Short(), scenario, strings.Join(ids, ", "))
	case ref.Evidence == nil:
		return nil, nil
	}
	b, err := s.GetObject(ctx, ref.Evidence.Digest)
	if err != nil {
		return nil, err
	}
	var ev store.ScenarioEvidence
	if err := store.Decode(b, &ev); err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", scenario, err)
	}
	pieces := []evidencePiece{{*ref.Evidence, fmt.Sprintf("the scenario's evidence: transcript (%d actions), %d observations, %d findings",
		len(ev.Transcript.Actions), len(ev.Observations), len(ev.Findings))}}
	if ev.Artifact != nil {
		pieces = append(pieces, evidencePiece{*ev.Artifact, "artifact: the file the evidence was read from, as recorded"})
	}
	for i, o := range ev.Observations {
		what := fmt.Sprintf("observation %d: %s", i+1, o.Type)
		if o.Phase != "" {
			what += " " + o.Phase
		}
		if o.EnvironmentID != "" {
			what += ", environment " + o.EnvironmentID
		}
		if o.Source != nil {
			what += fmt.Sprintf(", %s %s", o.Source.Type, o.Source.Status)
		}
		if src := o.Attributes[store.AttrSource]; src != "" {
			what += ", from " + src
		}
		if kind := o.Attributes[store.AttrKind]; kind != "" {
			what += ", kind " + kind
		}
		pieces = append(pieces, evidencePiece{o.Data, what})
	}
	return pieces, nil
}

// printEvidence writes the pieces, one a line: the full digest (what `cat` takes), the media
// type, the size, and what the piece is.
func printEvidence(w io.Writer, d store.Digest, scenario string, pieces []evidencePiece) error {
	p := textout.New(w)
	p.Line("bundle     %s", d)
	p.Line("scenario   %s", scenario)
	if len(pieces) == 0 {
		p.Line("no evidence recorded")
		return p.Err()
	}
	width := 0
	for _, e := range pieces {
		width = max(width, len(e.Desc.MediaType))
	}
	for _, e := range pieces {
		p.Line("  %s  %-*s  %9s  %s", e.Desc.Digest, width, e.Desc.MediaType, humanBytes(e.Desc.Size), e.What)
	}
	return p.Err()
}
