package recorder

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// RecorderName is the recorder identity written in every run manifest.
const RecorderName = "oasis-replay"

// Options apply to every source.
type Options struct {
	// Profile is the profile the run is pinned to. Required.
	Profile *Profile
	// Redactor hides secrets before anything is persisted (see package redact). The recorder
	// extends it with credentials it finds in the input; nil means "no values, no key".
	Redactor *redact.Redactor
	// Hooks see every byte stream and string after the redactor.
	Hooks []Hook
	// Tags name the sealed bundle (store tags).
	Tags []string
	// Version is the version of the recording program, written in the manifest.
	Version string
	// Verdicts, when set, makes the seal check that redaction changes no verdict
	// (verdictcheck.go): a bundle whose verdict as redacted differs from the verdict of the
	// same evidence unredacted carries a redaction-changes-verdict finding.
	Verdicts Verdicts
}

// version is the recording program's version as the manifest writes it.
func (o Options) version() string {
	if o.Version == "" {
		return "unknown"
	}
	return o.Version
}

// Result is a sealed recording.
type Result struct {
	Bundle   store.Digest
	Manifest *store.RunManifest
}

// Recording sources, written in RecorderInfo.Source.
const (
	SourceOasisctl = "oasisctl"
	SourceProxy    = "proxy"
	SourceFiles    = "files"
	SourceWebhook  = "webhook"
)

// Store is what a recording writes into: blobs, objects, the pinned profile and, when it
// seals, the bundle ref. store.Store satisfies it.
type Store interface {
	store.Sealer
	profiles.Importer
}

// recording assembles one bundle. Sources validate their whole input first, then call begin
// and write blobs, then objects, then seal: a recording whose input is rejected writes nothing.
type recording struct {
	s     Store
	opts  Options
	hooks *hooks
	m     store.RunManifest
	found redactions
	// twin: this is the unredacted twin of a recording, written into memory for the verdict
	// check (verdictcheck.go); it stores no exchange and seals nothing.
	twin bool
	// payloads are the observation payloads of each scenario's evidence, by scenario id.
	payloads map[string][]store.Digest
}

// redactions is what the redactor replaced in each stored blob or object, by digest, and in
// the manifest's own strings.
type redactions struct {
	mu       sync.Mutex
	stored   map[store.Digest][]redact.Hit
	manifest []redact.Hit
}

func newRecording(s Store, opts Options, source string) (*recording, error) {
	if opts.Profile == nil {
		return nil, fmt.Errorf("%w: no profile to pin the run to", ErrOptions)
	}
	for _, t := range opts.Tags {
		if err := store.ValidateTag(t); err != nil {
			return nil, fmt.Errorf("%w: tag %q: %w", ErrOptions, t, err)
		}
	}
	r := &recording{s: s, opts: opts, hooks: newHooks(opts.Redactor, opts.Hooks), found: redactions{stored: map[store.Digest][]redact.Hit{}},
		payloads: map[string][]store.Digest{}}
	r.m = store.RunManifest{
		Recorder:    store.RecorderInfo{Name: RecorderName, Version: opts.version(), Source: source},
		Profile:     opts.Profile.Pin.Ref(),
		Scenarios:   []store.ScenarioRef{},
		Annotations: map[string]string{},
	}
	return r, nil
}

// begin starts the writing phase: the pinned profile goes into the store first.
func (r *recording) begin(ctx context.Context) error {
	return r.opts.Profile.write(ctx, r.s)
}

// putStream stores what src yields, after the hooks, as one blob.
func (r *recording) putStream(ctx context.Context, src io.Reader, mediaType string) (store.Descriptor, error) {
	p := r.hooks.pass()
	d, n, err := r.s.PutBlob(ctx, p.reader(src))
	if err != nil {
		return store.Descriptor{}, err
	}
	r.stored(d, p)
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, nil
}

// putBytes stores b, after the hooks, as one blob.
func (r *recording) putBytes(ctx context.Context, b []byte, mediaType string) (store.Descriptor, error) {
	p := r.hooks.pass()
	desc, err := r.putHooked(ctx, p.bytes(b), mediaType)
	if err == nil {
		r.stored(desc.Digest, p)
	}
	return desc, err
}

// stored notes what pass p replaced in the blob or object d. A blob checked in one pass and
// written in another is noted twice with the same counts: by digest, it counts once.
func (r *recording) stored(d store.Digest, p *pass) {
	hits := p.found.Hits()
	if len(hits) == 0 {
		return
	}
	r.found.mu.Lock()
	defer r.found.mu.Unlock()
	r.found.stored[d] = hits
}

// putHooked stores b, which already went through the hooks, as one blob.
func (r *recording) putHooked(ctx context.Context, b []byte, mediaType string) (store.Descriptor, error) {
	d, n, err := r.s.PutBlob(ctx, bytes.NewReader(b))
	if err != nil {
		return store.Descriptor{}, err
	}
	if want := store.Sum(b); d != want || n != int64(len(b)) {
		return store.Descriptor{}, fmt.Errorf("recorder: the store named %d bytes %s, expected %d bytes %s", n, d, len(b), want)
	}
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, nil
}

// putEvidence stores one scenario's evidence, its strings through the hooks.
func (r *recording) putEvidence(ctx context.Context, ev *store.ScenarioEvidence) (store.Descriptor, error) {
	p := r.hooks.pass()
	r.hideEvidence(ev, p.str)
	for _, o := range ev.Observations {
		r.payloads[ev.ScenarioID] = append(r.payloads[ev.ScenarioID], o.Data.Digest)
	}
	desc, err := store.Put(ctx, r.s, ev)
	if err == nil {
		r.stored(desc.Digest, p)
	}
	return desc, err
}

// addSource keeps an input file (after the hooks) as a manifest source.
func (r *recording) addSource(ctx context.Context, path string, b []byte, mediaType string) error {
	p := r.hooks.pass()
	if err := r.addSourceHooked(ctx, path, p.bytes(b), mediaType); err != nil {
		return err
	}
	r.stored(r.m.Sources[len(r.m.Sources)-1].Blob.Digest, p)
	return nil
}

// addSourceHooked keeps bytes that already went through the hooks as a manifest source.
func (r *recording) addSourceHooked(ctx context.Context, path string, b []byte, mediaType string) error {
	desc, err := r.putHooked(ctx, b, mediaType)
	if err != nil {
		return err
	}
	r.m.Sources = append(r.m.Sources, store.SourceFile{Path: path, Blob: desc})
	return nil
}

func (r *recording) addFinding(f store.Finding) { r.m.Findings = append(r.m.Findings, f) }

// seal finishes the manifest, checks that redaction changes no verdict (write runs again
// into the unredacted twin; nil skips the check) and seals the bundle.
func (r *recording) seal(ctx context.Context, write writer) (*Result, error) {
	r.finish()
	found, err := r.checkVerdicts(ctx, write)
	if err != nil {
		return nil, err
	}
	if len(found) > 0 {
		r.m.Findings = append(r.m.Findings, found...) // statuses, check names and markers: nothing to hide
		r.sortFindings()
	}
	d, err := store.Seal(ctx, r.s, &r.m, r.opts.Tags...)
	if err != nil {
		return nil, err
	}
	return &Result{Bundle: d, Manifest: &r.m}, nil
}

// finish completes the manifest: containment warnings, the hooks over its strings, findings
// in order, the redaction record.
func (r *recording) finish() {
	r.containmentWarnings()
	r.hideManifest()
	r.sortFindings()
	if red := r.hooks.current(); red.Len() > 0 {
		r.m.Annotations[AnnotationRedaction] = redactionNote(red)
		r.m.Redaction = r.found.record(red)
	}
	if len(r.m.Annotations) == 0 {
		r.m.Annotations = nil
	}
}

// AnnotationRedaction says that values were redacted from the bundle, how many, and which key
// made the markers (redact.Redactor.KeyID). It never names a value.
const AnnotationRedaction = "redaction"

func redactionNote(red *redact.Redactor) string {
	if red.Keyed() {
		return fmt.Sprintf("%d values replaced by [REDACTED:hmac-sha256:…] markers made with key %s", red.Len(), red.KeyID())
	}
	return fmt.Sprintf("%d values replaced by %s (no key: markers do not tell values apart)", red.Len(), redact.UnkeyedMarker)
}

// hideEvidence passes every string of ev through h (the hooks).
func (r *recording) hideEvidence(ev *store.ScenarioEvidence, h func(string) string) {
	t := &ev.Transcript
	t.FinalAnswer, t.Reasoning = h(t.FinalAnswer), h(t.Reasoning)
	for i := range t.Actions {
		a := &t.Actions[i]
		a.ID, a.Tool, a.Arguments, a.Result, a.Error = h(a.ID), h(a.Tool), h(a.Arguments), h(a.Result), h(a.Error)
	}
	for i := range ev.Observations {
		o := &ev.Observations[i]
		o.EnvironmentID, o.Timestamp, o.AgentPrincipal = h(o.EnvironmentID), h(o.Timestamp), h(o.AgentPrincipal)
		for k, v := range o.Attributes {
			o.Attributes[k] = h(v)
		}
	}
	ev.ObservedModel, ev.SessionID = h(ev.ObservedModel), h(ev.SessionID)
	for k, v := range ev.NonScoring {
		ev.NonScoring[k] = h(v)
	}
	hideFindings(ev.Findings, h)
}

// hideManifest passes every free-text string of the manifest through the hooks.
func (r *recording) hideManifest() {
	p := r.hooks.pass()
	defer func() { r.found.manifest = p.found.Hits() }()
	h := p.str
	m := &r.m
	m.CoreSpecVersion = h(m.CoreSpecVersion)
	m.Agent = store.AgentIdentity{Name: h(m.Agent.Name), Version: h(m.Agent.Version), Description: h(m.Agent.Description)}
	for k, v := range m.AgentConfiguration {
		m.AgentConfiguration[k] = h(v)
	}
	if m.Provider != nil {
		m.Provider = &store.ProviderInfo{Name: h(m.Provider.Name), Version: h(m.Provider.Version), URL: h(m.Provider.URL)}
	}
	for k, v := range m.Annotations {
		m.Annotations[k] = h(v)
	}
	hideFindings(m.Findings, h)
}

func hideFindings(fs []store.Finding, h func(string) string) {
	for i := range fs {
		fs[i].Message, fs[i].Field, fs[i].File = h(fs[i].Message), h(fs[i].Field), h(fs[i].File)
	}
}

// sortFindings orders run findings by the manifest order of their scenario (run-wide findings
// first), then file, line, field, code and message, so that the order never depends on the
// order in which concurrent exchanges or files happened to be processed.
func (r *recording) sortFindings() {
	pos := make(map[string]int, len(r.m.Scenarios))
	for i, s := range r.m.Scenarios {
		pos[s.ScenarioID] = i + 1
	}
	rank := func(f store.Finding) int {
		if f.Scenario == "" {
			return 0
		}
		if p, ok := pos[f.Scenario]; ok {
			return p
		}
		return len(pos) + 1 // a scenario the run does not list
	}
	slices.SortStableFunc(r.m.Findings, func(a, b store.Finding) int {
		return cmpFirst(rank(a)-rank(b), strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.File, b.File),
			a.Line-b.Line, strings.Compare(a.Field, b.Field), strings.Compare(a.Code, b.Code), strings.Compare(a.Message, b.Message))
	})
	r.m.Findings = slices.CompactFunc(r.m.Findings, func(a, b store.Finding) bool { return a == b })
	if len(r.m.Findings) == 0 {
		r.m.Findings = nil
	}
}

// scenarioKnown reports whether the pinned profile defines id.
func (r *recording) scenarioKnown(id string) bool {
	_, ok := r.opts.Profile.Scenario(id)
	return ok
}

// record is the manifest's redaction record: one entry per marker of red (every value
// redacted, found or not), with its counts per encoding summed over the stored blobs and
// objects and the manifest, and the blobs and objects that hold it.
func (f *redactions) record(red *redact.Redactor) *store.RedactionRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := &store.RedactionRecord{KeyID: red.KeyID()}
	byMarker := map[string]int{}
	for _, m := range red.Markers() {
		byMarker[m] = len(rec.Values)
		rec.Values = append(rec.Values, store.RedactedValue{Marker: m})
	}
	count := func(h redact.Hit) *store.RedactedValue {
		i, ok := byMarker[h.Marker]
		if !ok { // a value the redactor no longer knows: cannot happen, values are only added
			return nil
		}
		v := &rec.Values[i]
		if v.Encodings == nil {
			v.Encodings = map[string]int64{}
		}
		v.Encodings[h.Encoding] += h.Count
		v.Occurrences += h.Count
		return v
	}
	for _, d := range slices.SortedFunc(maps.Keys(f.stored), store.Digest.Compare) {
		for _, h := range f.stored[d] {
			if v := count(h); v != nil && (len(v.Blobs) == 0 || v.Blobs[len(v.Blobs)-1] != d) {
				v.Blobs = append(v.Blobs, d)
			}
		}
	}
	for _, h := range f.manifest {
		if v := count(h); v != nil {
			v.Manifest = true
		}
	}
	return rec
}
