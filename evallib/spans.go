package evallib

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/otlp"
	"github.com/oasis-replay/oasis-replay/store"
)

// ReadSpanFile reads the spans of one telemetry file: OTLP protobuf (a name ending in .pb,
// .binpb or .protobuf), JSON-lines spans as Kensa's exporter writes them (.jsonl), or OTLP JSON
// (one TracesData document, or one per line as the collector's file exporter writes them).
func ReadSpanFile(name string, data []byte) ([]otlp.Span, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pb", ".binpb", ".protobuf":
		return otlp.DecodeProtobuf(data)
	case ".jsonl":
		return otlp.ReadJSONL(name, data)
	}
	spans, err := otlp.DecodeJSON(data)
	if err == nil {
		return spans, nil
	}
	var all []otlp.Span
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, lineErr := otlp.DecodeJSON(line)
		if lineErr != nil {
			return nil, fmt.Errorf("%s: %w (and line %d is not one TracesData document either: %v)", name, err, n+1, lineErr)
		}
		all = append(all, s...)
	}
	return all, nil
}

// StoreSpans reads every span the store recorded: the OTLP bodies and span files that Kensa
// runs keep as their span sources (what kensa run's OTLP receiver took, or the exporter's
// spans.jsonl), in bundle order. A source that several runs share (the same bytes) is read
// once.
func StoreSpans(ctx context.Context, s store.Store) ([]otlp.Span, error) {
	sealed, err := store.SealedBundles(ctx, s)
	if err != nil {
		return nil, err
	}
	var spans []otlp.Span
	read := map[store.Descriptor]bool{}
	for _, d := range sealed {
		m, err := store.LoadBundleManifest(ctx, s, d)
		if err != nil {
			return nil, err
		}
		run, ok := m.(*store.KensaRun)
		if !ok {
			continue
		}
		ev, err := store.LoadKensaEvidence(ctx, s, run)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", d.Short(), err)
		}
		for _, src := range ev.SpanSources {
			if read[src.Blob] {
				continue
			}
			read[src.Blob] = true
			got, err := sourceSpans(ctx, s, src)
			if err != nil {
				return nil, fmt.Errorf("bundle %s: span source %s: %w", d.Short(), src.Path, err)
			}
			spans = append(spans, got...)
		}
	}
	return spans, nil
}

// DraftFromStore drafts scenarios from the spans the store recorded (StoreSpans), as `eval
// scenario generate` without files and the API's auto-generate do.
func DraftFromStore(ctx context.Context, s store.Store, opts DraftOptions) (*DraftSet, error) {
	spans, err := StoreSpans(ctx, s)
	if err != nil {
		return nil, err
	}
	return DraftScenarios(Invocations(spans), opts)
}

func sourceSpans(ctx context.Context, s store.Store, src store.SourceFile) ([]otlp.Span, error) {
	var decode func([]byte) ([]otlp.Span, error)
	switch src.Blob.MediaType {
	case store.MediaTypeOTLPProtobuf:
		decode = otlp.DecodeProtobuf
	case store.MediaTypeOTLPJSON:
		decode = otlp.DecodeJSON
	case store.MediaTypeOpenInferenceJSONL:
		decode = func(b []byte) ([]otlp.Span, error) { return otlp.ReadJSONL(src.Path, b) }
	default:
		return nil, nil
	}
	b, err := readBlob(ctx, s, src.Blob)
	if err != nil {
		return nil, err
	}
	return decode(b)
}
