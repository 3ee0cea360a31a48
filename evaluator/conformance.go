package evaluator

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/profiles"
)

// conformanceOf applies the preflight conformance check of Provider Conformance §3.8.3 to the
// provider's conformance answer the run recorded, for metadata.environment.preflight: nil when
// the run recorded none. The requested tier is the manifest's. An answer that is not the
// document of §3.8.2 is a result saying so, not an error: the verdict reports what the runner
// was given, and audit judges what the runner did with it. An answer the source cannot serve
// is ErrEvidence.
func conformanceOf(ctx context.Context, p *profiles.Profile, run *Run) (*profiles.PreflightResult, error) {
	desc := run.Manifest.Conformance
	if desc == nil {
		return nil, nil
	}
	rc, err := run.openBlob(ctx, *desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, profiles.MaxConformanceAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%w: conformance answer %s: %w", ErrEvidence, desc.Digest, err)
	}
	req := profiles.PreflightRequest{Tier: run.Manifest.Tier}
	result, err := p.Conformance.Check(desc.Digest.Short(), data, req)
	if err != nil {
		result = p.Conformance.Malformed(err, req)
	}
	return &result, nil
}
