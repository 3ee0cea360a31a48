package recorder

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// Verdicts evaluates bundles for the check that redaction changes no verdict. The recorder
// never imports the evaluator (internal/layers): the caller gives it one (package
// replay/outcome implements it).
type Verdicts interface {
	// Outcomes evaluates the run whose manifest object is m in src and says what its verdict
	// decides, free of digests and markers: per scenario id, its outcome line first (state,
	// status, score), then one line per check ("assertions.must[0] violated"); under "" the
	// run's (overall, safety, capability). Two evaluations decide the same when the maps are
	// equal.
	Outcomes(ctx context.Context, src Source, m store.Digest) (map[string][]string, error)
}

// Source is what an evaluation reads: objects and blobs by digest (replay.Source). It is an
// alias of an unnamed interface, so that an evaluator declared elsewhere with the same
// method set (replay/outcome) satisfies Verdicts without importing this package.
type Source = interface {
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// writer writes one source's evidence into a recording: everything between newRecording and
// seal. It must be a function of its input alone, so that it can run a second time into the
// unredacted twin of the check.
type writer func(ctx context.Context, rec *recording) error

// record runs a recording: write, then the seal with the verdict check.
func record(ctx context.Context, s Store, opts Options, source string, write writer) (*Result, error) {
	rec, err := newRecording(s, opts, source)
	if err != nil {
		return nil, err
	}
	if err := write(ctx, rec); err != nil {
		return nil, err
	}
	return rec.seal(ctx, write)
}

// Finding codes of the check.
const (
	// CodeRedactionChangesVerdict (error): the verdict of the bundle as redacted differs from
	// the verdict of the same evidence unredacted; the message names the markers, the
	// scenario and what changed. The bundle is sealed all the same (nothing is lost), and the
	// recording command exits 1.
	CodeRedactionChangesVerdict = "redaction-changes-verdict"
	// CodeRedactionUnchecked (warning): the check could not be made (the unredacted evidence
	// would not fit in the check's memory, or could not be evaluated); the message says why.
	CodeRedactionUnchecked = "redaction-unchecked"
)

// twinBudget bounds the unredacted bytes the check holds in memory: only blobs and objects
// that redaction changed are held (the others are read from the store), and a live recording
// stays within 64 MiB.
const twinBudget = 8 << 20

// checkVerdicts compares the verdict of the recording as it will be sealed with the verdict
// of the same evidence unredacted: write runs again into a twin recording without redaction,
// whose blobs and objects live in memory only (nothing unredacted is ever persisted), and
// both manifests are evaluated. It returns the findings to add. It runs only when something
// is redacted and the caller gave an evaluator.
func (r *recording) checkVerdicts(ctx context.Context, write writer) ([]store.Finding, error) {
	red := r.hooks.current()
	base, ok := r.s.(twinBase)
	if r.opts.Verdicts == nil || write == nil || red.Len() == 0 || !ok {
		return nil, nil
	}
	unchecked := func(why string) []store.Finding {
		return []store.Finding{{Code: CodeRedactionUnchecked, Severity: store.SeverityWarning,
			Message: "whether redaction changes the verdict was not checked: " + why}}
	}
	plain := newOverlay(base, twinBudget)
	twinOpts := r.opts
	twinOpts.Redactor, twinOpts.Tags = nil, nil
	twin, err := newRecording(plain, twinOpts, r.m.Recorder.Source)
	if err != nil {
		return nil, err
	}
	twin.hooks.frozen, twin.twin = true, true
	err = write(ctx, twin)
	switch {
	case plain.over:
		return unchecked(fmt.Sprintf("the blobs redaction changed exceed the check's %d MiB", twinBudget>>20)), nil
	case err != nil:
		return unchecked(fmt.Sprintf("the evidence unredacted could not be recorded: %v", err)), nil
	}
	twin.finish()
	td, err := store.Put(ctx, plain, &twin.m)
	if err != nil {
		return nil, err
	}
	asSealed := newOverlay(base, 0)
	d, err := store.Put(ctx, asSealed, &r.m)
	if err != nil {
		return nil, err
	}
	redacted, rerr := r.opts.Verdicts.Outcomes(ctx, asSealed, d.Digest)
	unredacted, uerr := r.opts.Verdicts.Outcomes(ctx, plain, td.Digest)
	switch {
	case rerr != nil && uerr != nil:
		return nil, nil // neither can be evaluated: replay reports that, redaction is not the cause
	case rerr != nil:
		redacted = map[string][]string{"": {"not evaluable: " + rerr.Error()}}
	case uerr != nil:
		unredacted = map[string][]string{"": {"not evaluable: " + uerr.Error()}}
	}
	found := r.verdictFindings(redacted, unredacted)
	hide := r.hooks.pass()
	for i := range found {
		found[i].Message = hide.str(found[i].Message) // an evaluation error may quote the evidence unredacted
	}
	return found, nil
}

// verdictFindings names, per scenario whose outcome differs (and for the run), the markers
// that can be the cause and what changed.
func (r *recording) verdictFindings(redacted, unredacted map[string][]string) []store.Finding {
	ids := slices.Sorted(maps.Keys(redacted))
	for id := range unredacted {
		if _, ok := redacted[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []store.Finding
	for _, id := range ids {
		was, is := unredacted[id], redacted[id]
		if slices.Equal(was, is) {
			continue
		}
		what := "the run"
		if id != "" {
			what = "scenario " + id
		}
		out = append(out, store.Finding{Code: CodeRedactionChangesVerdict, Severity: store.SeverityError, Scenario: id,
			Message: fmt.Sprintf("redaction changes the verdict of %s: %s; markers: %s", what, outcomeChange(was, is),
				strings.Join(r.suspects(id), ", "))})
	}
	return out
}

// outcomeChange says what differs between the unredacted outcome lines and the redacted ones.
func outcomeChange(was, is []string) string {
	first := func(l []string) string {
		if len(l) == 0 {
			return "absent"
		}
		return l[0]
	}
	parts := []string{fmt.Sprintf("%q unredacted, %q as recorded", first(was), first(is))}
	rest := func(l []string) []string {
		if len(l) == 0 {
			return nil
		}
		return l[1:]
	}
	gone, added := lineDiff(rest(was), rest(is))
	if len(gone)+len(added) > 0 {
		parts = append(parts, fmt.Sprintf("checks unredacted %q, as recorded %q", gone, added))
	}
	return strings.Join(parts, "; ")
}

// lineDiff lists the lines only in a and only in b.
func lineDiff(a, b []string) (onlyA, onlyB []string) {
	for _, l := range a {
		if !slices.Contains(b, l) {
			onlyA = append(onlyA, l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB
}

// suspects lists the markers that replaced something in the scenario's evidence (its
// evidence object and observation payloads), or every marker found anywhere when the
// scenario's evidence holds none (or for the run).
func (r *recording) suspects(id string) []string {
	var held []store.Digest
	for _, ref := range r.m.Scenarios {
		if ref.ScenarioID == id && ref.Evidence != nil {
			held = append(held, ref.Evidence.Digest)
		}
	}
	var in, found []string
	if r.m.Redaction != nil {
		for _, v := range r.m.Redaction.Values {
			if v.Occurrences == 0 {
				continue
			}
			found = append(found, v.Marker)
			if slices.ContainsFunc(v.Blobs, func(d store.Digest) bool { return slices.Contains(held, d) || r.payloadOf(id, d) }) {
				in = append(in, v.Marker)
			}
		}
	}
	if len(in) > 0 {
		return in
	}
	if len(found) > 0 {
		return found
	}
	return r.hooks.current().Markers()
}

// payloadOf reports whether d is the payload of an observation of scenario id.
func (r *recording) payloadOf(id string, d store.Digest) bool {
	return slices.Contains(r.payloads[id], d)
}
