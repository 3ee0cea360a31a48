package kensa

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefinitionVersion names the scenario format a definition tree pins.
const DefinitionVersion = "kensa-v0.7.0"

// Definition is the files that define a scenario, by their path in the tree: the scenario
// ("scenarios/<file>"), its judge spec ("judges/<name>.yaml"), its dataset
// ("scenarios/<dataset>") and the price table ("prices.json").
type Definition struct {
	Scenario     *fkensa.Scenario
	ScenarioPath string
	Files        map[string][]byte
}

// Record is one run, in memory, before it is sealed.
type Record struct {
	Definition *Definition
	RunID      string
	Case       int
	// Input is the agent's input; HasInput is false when there was none.
	Input    pyvalue.Value
	HasInput bool
	Row      *fkensa.Row
	Argv     []string
	Exit     store.KensaExit
	Stdout   Captured
	Stderr   Captured
	// Trace is the trace in Kensa's model; nil when no spans were captured. TraceFile, when
	// set, holds it instead (kensa run): a run's trace is not held in memory while it waits to
	// be sealed.
	Trace     []byte
	TraceFile string
	// TracePath is the trace's path as Kensa recorded it (imports).
	TracePath   string
	SpanSources []Source
	Judgement   *store.KensaJudgement
	// JudgePrompt and JudgeAnswer are the bytes the judgement refers to.
	JudgePrompt, JudgeAnswer []byte
	JudgeAnswerType          string
	Claimed, ClaimedRun      []byte
	NonScoring               map[string]string
	Findings                 []store.Finding
	Annotations              map[string]string
	// Status is what the evaluation of the record gives (kensa run); Interrupted is set when
	// the run was cut short by the end of kensa run's context: such a run is not sealed.
	Status      string
	Interrupted bool
	// spool is the directory a kensa run record's captured files are in, removed once sealed.
	spool string
}

// Captured is a captured stream: the kept bytes (in memory, or in a spool file when Path is
// set, so that a run's output never has to fit in memory) and how many were written.
type Captured struct {
	Data      []byte
	Path      string
	Total     int64
	Truncated bool
}

// open returns the kept bytes as a reader.
func (c Captured) open() (io.ReadCloser, error) {
	if c.Path == "" {
		return io.NopCloser(bytes.NewReader(c.Data)), nil
	}
	return os.Open(c.Path)
}

// Source is one raw span input: its bytes in Data, or in the spool file File (kensa run).
type Source struct {
	Path      string
	MediaType string
	Data      []byte
	File      string
}

// Annotation keys of Kensa runs.
const (
	// AnnotationRepeat is the repeat number of a run made by kensa run --runs.
	AnnotationRepeat = "kensa.repeat"
	// AnnotationTag is the --tag of a kensa run.
	AnnotationTag = "kensa.tag"
)

// Writer is the part of the store sealing needs.
type Writer = store.Store

// SealAll writes the evidence of every record and seals them as store.SealAll does: one sync
// for all, the bundle refs in one write when the store allows, so that each bundle is sealed
// complete or not at all. tags, when not nil, names each record's tags; a tag named by several
// records is the last one's. It returns the bundle ids in the order of records.
func SealAll(ctx context.Context, s Writer, records []*Record, version string, tags func(*Record) []string) ([]store.Digest, error) {
	ms := make([]store.Manifest, len(records))
	last := map[string]int{}
	var order []string
	trees := map[*Definition]store.Digest{} // runs of one scenario share its definition tree
	for i, r := range records {
		m, err := prepare(ctx, s, r, version, trees)
		if err != nil {
			return nil, err
		}
		ms[i] = m
		if tags == nil {
			continue
		}
		for _, t := range tags(r) {
			name, err := store.TagRefName(t)
			if err != nil {
				return nil, err
			}
			if _, seen := last[name]; !seen {
				order = append(order, name)
			}
			last[name] = i
		}
	}
	var extra []store.Ref
	for _, name := range order {
		_, desc, err := store.Encode(ms[last[name]])
		if err != nil {
			return nil, err
		}
		extra = append(extra, store.Ref{Name: name, Digest: desc.Digest})
	}
	return store.SealAll(ctx, s, ms, extra)
}

// prepare writes r's evidence (blobs, then objects) and returns the manifest to seal. trees
// holds the definition trees already stored by this sealing, by definition.
func prepare(ctx context.Context, s Writer, r *Record, version string, trees map[*Definition]store.Digest) (*store.KensaRun, error) {
	w := &writer{ctx: ctx, s: s, trees: trees}
	ev := w.evidence(r)
	m := &store.KensaRun{
		Recorder:       store.RecorderInfo{Name: "oasis-replay", Version: version, Source: store.SourceKensaImport},
		DefinitionTree: ev.Definition, ScenarioFile: ev.ScenarioFile, Scenario: ev.Scenario, Case: ev.Case,
		RunID: r.RunID, NonScoring: r.NonScoring, Findings: r.Findings, Annotations: r.Annotations,
	}
	if r.Claimed == nil {
		m.Recorder.Source = store.SourceKensaRun
	}
	if d := w.object(ev); d != nil {
		m.Evidence = d.Digest
	}
	if r.Claimed != nil {
		m.Claimed = w.blobPtr(r.Claimed, store.MediaTypeKensaResult)
	}
	if r.ClaimedRun != nil {
		m.ClaimedRun = w.blobPtr(r.ClaimedRun, store.MediaTypeKensaScenarioRun)
	}
	if w.err != nil {
		return nil, fmt.Errorf("kensa: record %s run %s: %w", m.Scenario, r.RunID, w.err)
	}
	return m, nil
}

// evidence stores the blobs of r's evidence and returns its evidence object, not yet stored.
func (w *writer) evidence(r *Record) *store.KensaEvidence {
	ev := &store.KensaEvidence{
		Definition: w.tree(r.Definition), ScenarioFile: r.Definition.ScenarioPath, Scenario: r.Definition.Scenario.ID,
		Case: r.Case, Argv: r.Argv, Exit: r.Exit, TracePath: r.TracePath,
	}
	if r.HasInput {
		ev.Input = w.blobPtr([]byte(pyvalue.Dumps(r.Input)), store.MediaTypeJSON)
	}
	if r.Row != nil {
		ev.DatasetRow = w.blobPtr([]byte(pyvalue.Dumps(r.Row.Value)), store.MediaTypeJSON)
	}
	ev.Stdout, ev.Stderr = w.output(r.Stdout), w.output(r.Stderr)
	if r.TraceFile != "" {
		ev.Trace = w.file(r.TraceFile, store.MediaTypeKensaTrace)
	} else if r.Trace != nil {
		ev.Trace = w.blobPtr(r.Trace, store.MediaTypeKensaTrace)
	}
	for _, src := range r.SpanSources {
		if src.File != "" {
			ev.SpanSources = append(ev.SpanSources, store.SourceFile{Path: src.Path, Blob: *w.file(src.File, src.MediaType)})
			continue
		}
		ev.SpanSources = append(ev.SpanSources, store.SourceFile{Path: src.Path, Blob: w.blob(src.Data, src.MediaType)})
	}
	if r.Judgement != nil {
		j := *r.Judgement
		if r.JudgePrompt != nil {
			j.Prompt = w.blobPtr(r.JudgePrompt, store.MediaTypeText)
		}
		j.Answer = w.blob(r.JudgeAnswer, r.JudgeAnswerType)
		ev.Judgement = w.object(&j)
	}
	return ev
}

// writer stores blobs and objects, keeping the first error.
type writer struct {
	ctx context.Context
	s   store.Store
	err error
	// trees caches the digests of definition trees stored (nil: none).
	trees map[*Definition]store.Digest
}

func (w *writer) blob(b []byte, mediaType string) store.Descriptor {
	return w.put(io.NopCloser(bytes.NewReader(b)), nil, mediaType)
}

// file stores the spooled file at path as one blob, streamed.
func (w *writer) file(path, mediaType string) *store.Descriptor {
	f, err := os.Open(path)
	d := w.put(f, err, mediaType)
	return &d
}

// put stores what rc holds (opening it failed with err) as one blob.
func (w *writer) put(rc io.ReadCloser, err error, mediaType string) store.Descriptor {
	if err != nil {
		w.err = cmp.Or(w.err, err)
		return store.Descriptor{}
	}
	defer rc.Close()
	if w.err != nil {
		return store.Descriptor{}
	}
	d, n, err := w.s.PutBlob(w.ctx, rc)
	w.err = err
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}
}

func (w *writer) blobPtr(b []byte, mediaType string) *store.Descriptor {
	d := w.blob(b, mediaType)
	return &d
}

func (w *writer) output(c Captured) *store.Output {
	rc, err := c.open()
	return &store.Output{Blob: w.put(rc, err, store.MediaTypeText), Total: c.Total, Truncated: c.Truncated}
}

func (w *writer) object(obj store.Object) *store.Descriptor {
	if w.err != nil {
		return nil
	}
	b, _, err := store.Encode(obj)
	if err != nil {
		w.err = err
		return nil
	}
	d, err := w.s.PutObject(w.ctx, b)
	w.err = err
	return &d
}

func (w *writer) tree(def *Definition) store.Digest {
	if d, ok := w.trees[def]; ok {
		return d
	}
	d := w.storeTree(def)
	if w.trees != nil && w.err == nil {
		w.trees[def] = d
	}
	return d
}

func (w *writer) storeTree(def *Definition) store.Digest {
	t := &store.ProfileTree{ProfileID: def.Scenario.ID, Version: DefinitionVersion}
	for _, path := range slices.Sorted(maps.Keys(def.Files)) {
		t.Entries = append(t.Entries, store.TreeEntry{Path: path, Blob: w.blob(def.Files[path], mediaTypeOf(path))})
	}
	if d := w.object(t); d != nil {
		return d.Digest
	}
	return store.Digest{}
}

func mediaTypeOf(path string) string {
	switch {
	case path == PricesPath:
		return store.MediaTypeKensaPrices
	case bytes.HasSuffix([]byte(path), []byte(".yaml")), bytes.HasSuffix([]byte(path), []byte(".yml")):
		return store.MediaTypeYAML
	}
	return store.MediaTypeOctetStream
}

// PricesPath is the price table's path in a definition tree.
const PricesPath = "prices.json"

// tail is fkensa.RunTail of the kept bytes, reading only as much of a spooled stream's end as
// it takes: whatever the size of the stream, the result is the one the whole text gives.
func (c Captured) tail(n int) (string, error) {
	if c.Path == "" {
		return fkensa.RunTail(string(c.Data), n), nil
	}
	f, err := os.Open(c.Path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := st.Size()
	for window := int64(16 * n); ; window *= 4 {
		window = min(window, size)
		buf := make([]byte, window)
		if _, err := f.ReadAt(buf, size-window); err != nil && err != io.EOF {
			return "", err
		}
		// Kensa reads the output in text mode: universal newlines (pyNewlines).
		text := strings.TrimRightFunc(pyNewlines(string(buf)), pyIsSpace)
		// The window may start inside a character, whose bytes count as up to three: more than
		// n+3 characters hold the last n whole ones.
		if window == size || utf8.RuneCountInString(text) > n+3 {
			if window == size {
				return fkensa.RunTail(pyNewlines(string(buf)), n), nil
			}
			return fkensa.RunTail(text, n), nil
		}
	}
}
