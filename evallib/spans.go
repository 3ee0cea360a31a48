package evallib

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
// once. A run whose spans cannot be read is an error here; DraftFromStore skips it instead.
func StoreSpans(ctx context.Context, s store.Store) ([]otlp.Span, error) {
	runs, skipped, err := storeRuns(ctx, s)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		k := skipped[0]
		return nil, fmt.Errorf("bundle %s: %s", k.Bundle.Short(), k.Reason)
	}
	var spans []otlp.Span
	for _, r := range runs {
		spans = append(spans, r.spans...)
	}
	return spans, nil
}

// SkippedRun is a Kensa run of the store whose spans the drafts leave out, and why: one run
// with malformed spans never fails a command over the whole store (issue "Hostile inputs to
// the newer commands", item 6); it is named instead.
type SkippedRun struct {
	Bundle store.Digest `json:"bundle"`
	RunID  string       `json:"run_id"`
	// Source is the span source to blame (its path in the run), when one is.
	Source string `json:"source,omitempty"`
	Reason string `json:"reason"`
}

// runSpans are the spans one Kensa run of the store recorded.
type runSpans struct {
	bundle store.Digest
	runID  string
	spans  []otlp.Span
}

// storeRuns reads the spans of each Kensa run of the store, in bundle order, skipping (and
// naming) a run whose manifest, evidence or span sources cannot be read. A source that several
// runs share is read once, and a run holding a source that could not be read is skipped too.
// Only a failure to list the store, or the end of ctx, fails the whole.
func storeRuns(ctx context.Context, s store.Store) ([]runSpans, []SkippedRun, error) {
	sealed, err := store.SealedBundles(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	var (
		runs    []runSpans
		skipped []SkippedRun
	)
	bad := map[store.Descriptor]string{}
	read := map[store.Descriptor]bool{}
	for _, d := range sealed {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		m, err := store.LoadBundleManifest(ctx, s, d)
		if err != nil {
			skipped = append(skipped, SkippedRun{Bundle: d, Reason: "the manifest cannot be read: " + err.Error()})
			continue
		}
		run, ok := m.(*store.KensaRun)
		if !ok {
			continue
		}
		ev, err := store.LoadKensaEvidence(ctx, s, run)
		if err != nil {
			skipped = append(skipped, SkippedRun{Bundle: d, RunID: run.RunID, Reason: "the evidence cannot be read: " + err.Error()})
			continue
		}
		r := runSpans{bundle: d, runID: run.RunID}
		var (
			skip *SkippedRun
			mine []store.Descriptor // the sources this run reads first, read once it is kept
		)
		for _, src := range ev.SpanSources {
			if why, ok := bad[src.Blob]; ok {
				skip = &SkippedRun{Bundle: d, RunID: run.RunID, Source: src.Path, Reason: why}
				break
			}
			if read[src.Blob] || slices.Contains(mine, src.Blob) {
				continue
			}
			got, err := sourceSpans(ctx, s, src)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				why := fmt.Sprintf("span source %s cannot be read: %v", src.Path, err)
				bad[src.Blob] = why
				skip = &SkippedRun{Bundle: d, RunID: run.RunID, Source: src.Path, Reason: why}
				break
			}
			mine = append(mine, src.Blob)
			r.spans = append(r.spans, got...)
		}
		if skip != nil {
			skipped = append(skipped, *skip)
			continue
		}
		for _, b := range mine {
			read[b] = true
		}
		runs = append(runs, r)
	}
	return runs, skipped, nil
}

// DraftFromStore drafts scenarios from the spans the store recorded, as `eval scenario
// generate` without files and the API's auto-generate do. A run whose spans cannot be read,
// or whose spans give a draft that is no valid scenario, is left out and named in Skipped; the
// drafts are those of the other runs.
func DraftFromStore(ctx context.Context, s store.Store, opts DraftOptions) (*DraftSet, error) {
	runs, skipped, err := storeRuns(ctx, s)
	if err != nil {
		return nil, err
	}
	for {
		var all []Invocation
		for i, r := range runs {
			for _, inv := range Invocations(r.spans) {
				inv.run = i
				all = append(all, inv)
			}
		}
		set, err := DraftScenarios(sortInvocations(all), opts)
		var de *draftError
		if errors.As(err, &de) && de.run >= 0 && de.run < len(runs) {
			// Drop the run the failing draft came from, and draft again from the others.
			r := runs[de.run]
			skipped = append(skipped, SkippedRun{Bundle: r.bundle, RunID: r.runID, Reason: de.Error()})
			runs = slices.Delete(runs, de.run, de.run+1)
			continue
		}
		if err != nil {
			return nil, err
		}
		set.Skipped = append(set.Skipped, skipped...)
		return set, nil
	}
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
