package report

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrNoClaim: the bundle records no claimed report and none was given.
var ErrNoClaim = errclass.New(errclass.NotFound, "report: no claimed report")

// BlobSource is what LoadClaimed reads the claimed report through; store.Store satisfies it.
type BlobSource interface {
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// claimedFormats maps the media types a recorder gives claimed reports to their format.
var claimedFormats = map[string]string{
	store.MediaTypeOasisctlReport:     oasisctl.FormatJSON,
	store.MediaTypeOasisctlReportYAML: oasisctl.FormatYAML,
	store.MediaTypeOasisVerdict:       oasisctl.FormatJSON,
	store.MediaTypeVerdict:            oasisctl.FormatJSON,
	store.MediaTypeJSON:               oasisctl.FormatJSON,
	store.MediaTypeYAML:               oasisctl.FormatYAML,
}

// LoadClaimed reads the claimed report a run manifest records (RunManifest.Claimed).
func LoadClaimed(ctx context.Context, src BlobSource, m *store.RunManifest) (*oasisctl.Claim, error) {
	desc := m.Claimed
	if desc == nil {
		return nil, fmt.Errorf("%w: the bundle records none; give one with --report", ErrNoClaim)
	}
	format, ok := claimedFormats[desc.MediaType]
	if !ok {
		return nil, fmt.Errorf("%w: the claimed report %s has media type %q, which is not a report audit reads", oasisctl.ErrShape, desc.Digest, desc.MediaType)
	}
	if desc.Size > oasisctl.MaxReportBytes {
		return nil, fmt.Errorf("%w: the claimed report %s has %d bytes, the limit is %d", oasisctl.ErrTooLarge, desc.Digest, desc.Size, oasisctl.MaxReportBytes)
	}
	rc, _, err := src.OpenBlob(ctx, desc.Digest)
	if err != nil {
		return nil, fmt.Errorf("report: claimed report %s: %w", desc.Digest, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, oasisctl.MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: claimed report %s: %w", desc.Digest, err)
	}
	return oasisctl.Read(data, format, "the bundle's claimed report "+desc.Digest.Short()+" ("+desc.MediaType+")")
}
