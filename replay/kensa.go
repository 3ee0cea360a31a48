package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/oasis-replay/oasis-replay/attest"
	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// KensaBundle is a Kensa run bundle loaded for evaluation.
type KensaBundle struct {
	Digest   store.Digest
	Manifest *store.KensaRun
	Evidence *ekensa.Evidence
	// Definition is the scenario's definition tree as a receipt names it: the tree object's
	// kind, the scenario id, the definition's version and its digest.
	Definition attest.Definition
	// Exit is how the agent's process ended, as recorded: whether it timed out or was killed by
	// a signal is said there only (Kensa's result says "exited with code -1"). Never evaluated.
	Exit store.KensaExit
	// release gives back the share of the trace budget the run's trace took (EachKensa).
	release func()
}

// KensaResult is the evaluation of a Kensa bundle, with its receipt.
type KensaResult struct {
	Result    *ekensa.Result
	Canonical []byte
	Verdict   store.Digest
	Receipt   Receipt
	// Predicate is the signable form of Receipt (package attest).
	Predicate attest.Predicate
}

// BlobReader reads blobs and objects; every store.Store is one.
type BlobReader interface {
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
}

// ObjectsGetter is a store that reads many objects in one call, each with less work than a
// GetObject of its own (store/badgerstore: one lookup instead of two; store/memstore): what
// GetObject returns for each of ds, in order, the first failure being the error. A
// KensaReader uses it when its store has it.
type ObjectsGetter interface {
	GetObjects(ctx context.Context, ds []store.Digest) ([][]byte, error)
}

// ReadOrderer is a store that knows in which order many blobs and objects are read at least
// cost: the indices of ds in that order (store/badgerstore: what it packed together, together,
// in the order it packed it). EachKensa loads runs in that order when its store has it.
type ReadOrderer interface {
	ReadOrder(ctx context.Context, ds []store.Digest) ([]int, error)
}

// LoadKensa reads the bundle d of a Kensa run and everything its evaluation needs.
func LoadKensa(ctx context.Context, s BlobReader, d store.Digest) (*KensaBundle, error) {
	return NewKensaReader(s).Load(ctx, d)
}

// KensaReader loads Kensa bundles one after the other or concurrently, reading and parsing
// once what runs share: a definition (scenario, judge spec) by its tree digest, and small
// blobs (inputs, rows, outputs, at most kensaCacheBlob bytes) by digest, up to
// kensaCacheBytes in all. What it returns is what LoadKensa returns; bundles share the parsed
// scenario, which nothing modifies.
type KensaReader struct {
	s  BlobReader
	mu sync.Mutex
	// defs holds parsed definitions by tree digest; blobs small blobs by digest.
	defs   map[store.Digest]*kensaDefinition
	blobs  map[store.Digest][]byte
	values map[store.Digest]pyvalue.Value
	cached int
	// traces, when set, bounds the trace bytes decoded at once by the runs loaded concurrently.
	traces *traceBudget
}

// Bounds of KensaReader's blob cache.
const (
	kensaCacheBlob  = 64 << 10
	kensaCacheBytes = 64 << 20
)

// NewKensaReader returns a reader of the Kensa bundles of s.
func NewKensaReader(s BlobReader) *KensaReader {
	return &KensaReader{s: s, defs: map[store.Digest]*kensaDefinition{}, blobs: map[store.Digest][]byte{}, values: map[store.Digest]pyvalue.Value{}}
}

// kensaDefinition is a parsed definition tree.
type kensaDefinition struct {
	files      map[string]store.Descriptor
	definition attest.Definition
	scenarios  map[string]*fkensa.Scenario
	judges     map[string]*fkensa.JudgeSpec
}

// Load reads the bundle d of a Kensa run and everything its evaluation needs.
func (r *KensaReader) Load(ctx context.Context, d store.Digest) (*KensaBundle, error) {
	mbs, errs := r.objects(ctx, []store.Digest{d})
	if errs[0] != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, errs[0])
	}
	m, err := decodeKensaRun(d, mbs[0])
	if err != nil {
		return nil, err
	}
	ebs, errs := r.objects(ctx, []store.Digest{m.Evidence})
	return r.loadRun(ctx, d, m, ebs[0], errs[0])
}

// objects reads the objects ds names: in one call when the store is an ObjectsGetter, one by
// one when it is not or when that call fails, so that each failure is the object's own,
// worded as GetObject words it.
func (r *KensaReader) objects(ctx context.Context, ds []store.Digest) ([][]byte, []error) {
	errs := make([]error, len(ds))
	if g, ok := r.s.(ObjectsGetter); ok {
		if bs, err := g.GetObjects(ctx, ds); err == nil {
			return bs, errs
		}
	}
	bs := make([][]byte, len(ds))
	for i, d := range ds {
		bs[i], errs[i] = r.s.GetObject(ctx, d)
	}
	return bs, errs
}

func decodeKensaRun(d store.Digest, mb []byte) (*store.KensaRun, error) {
	var m store.KensaRun
	if err := store.Decode(mb, &m); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, err)
	}
	return &m, nil
}

// loadRun reads what the evaluation of the run m, the manifest of bundle d, needs beside its
// evidence object (eb, or the error reading it gave).
func (r *KensaReader) loadRun(ctx context.Context, d store.Digest, m *store.KensaRun, eb []byte, readErr error) (*KensaBundle, error) {
	l := kensaLoader{ctx: ctx, r: r}
	ev, def, err := l.evidence(m, eb, readErr)
	if err != nil {
		l.done()
		return nil, fmt.Errorf("bundle %s (%s): %w", d.Short(), m.Scenario, err)
	}
	ev.Digest = m.Evidence
	return &KensaBundle{Digest: d, Manifest: m, Evidence: ev, Definition: def.definition, Exit: l.exit, release: l.release}, nil
}

// KensaClaimed reads the result Kensa recorded for the run m (an imported run), nil when it
// recorded none (a run of kensa run): what audit compares. Replaying does not read it.
func KensaClaimed(ctx context.Context, s BlobReader, m *store.KensaRun) (*pyvalue.Value, error) {
	if m.Claimed == nil {
		return nil, nil
	}
	l := kensaLoader{ctx: ctx, r: NewKensaReader(s)}
	raw, err := l.blob(*m.Claimed)
	if err != nil {
		return nil, err
	}
	v, err := pyvalue.Loads("claimed result", raw)
	if err != nil {
		return nil, fmt.Errorf("run %s of %s: claimed result: %w", m.RunID, m.Scenario, err)
	}
	return &v, nil
}

// kensaBatch is how many bundles an EachKensa worker loads together: their manifests in one
// store call, then their evidence objects in another.
const kensaBatch = 32

// EachKensa loads every sealed bundle of a Kensa run in s whose manifest want accepts (every
// one when want is nil) with one KensaReader, calls fn with each, and returns what fn
// returned, in the bundles' digest order. Bundles are loaded in the order the store reads
// them at least cost (ReadOrderer; digest order for a store without one), in batches
// (kensaBatch) on a few workers per processor (reads wait on the store as much as they
// compute); fn is called concurrently. The error returned is that of the first bundle in
// digest order that failed, so that neither the results nor the error depend on the order of
// loading or of the workers.
func EachKensa[T any](ctx context.Context, s store.Store, want func(*store.KensaRun) bool, fn func(b *KensaBundle) (T, error)) ([]T, error) {
	return EachKensaWhere(ctx, s, nil, want, fn)
}

// EachKensaWhere is EachKensa over the sealed bundles whose digest keep accepts (every one when
// keep is nil), decided before anything is read: a shard of the runs (kensa replay --shard)
// reads only its own.
func EachKensaWhere[T any](ctx context.Context, s store.Store, keep func(store.Digest) bool, want func(*store.KensaRun) bool, fn func(b *KensaBundle) (T, error)) ([]T, error) {
	bundles, err := store.SealedBundles(ctx, s)
	if err != nil {
		return nil, err
	}
	if keep != nil {
		bundles = slices.DeleteFunc(bundles, func(d store.Digest) bool { return !keep(d) })
	}
	order, err := readOrder(ctx, s, bundles)
	if err != nil {
		return nil, err
	}
	reader := NewKensaReader(s)
	reader.traces = newTraceBudget() // runs are loaded concurrently: their traces share a budget
	results := make([]*T, len(bundles))
	errs := make([]error, len(bundles))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(4*runtime.GOMAXPROCS(0), max((len(bundles)+kensaBatch-1)/kensaBatch, 1)) {
		wg.Go(func() {
			for start := range next {
				batch := order[start:min(start+kensaBatch, len(order))]
				eachKensa(ctx, reader, bundles, batch, want, fn, results, errs)
			}
		})
	}
	for start := 0; start < len(bundles); start += kensaBatch {
		if ctx.Err() != nil {
			break
		}
		next <- start
	}
	close(next)
	wg.Wait()
	out := make([]T, 0, len(bundles))
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if results[i] != nil {
			out = append(out, *results[i])
		}
	}
	return out, ctx.Err()
}

// kensaRunKind is how a Kensa run's canonical manifest states its kind.
var kensaRunKind = []byte(`"kind":"` + string(store.KindKensaRun) + `"`)

// readOrder is the order in which s reads bundles at least cost, as indices of bundles.
func readOrder(ctx context.Context, s store.Store, bundles []store.Digest) ([]int, error) {
	if o, ok := s.(ReadOrderer); ok {
		return o.ReadOrder(ctx, bundles)
	}
	order := make([]int, len(bundles))
	for i := range order {
		order[i] = i
	}
	return order, nil
}

// eachKensa calls fn with each bundle bundles[i] of batch that is a Kensa run want accepts,
// setting results[i] or errs[i]; another kind of bundle, or a run not wanted, keeps a nil
// result and its evidence is not read. The manifests of the batch are read in one call, then
// the evidence objects of the runs wanted in another.
func eachKensa[T any](ctx context.Context, r *KensaReader, bundles []store.Digest, batch []int, want func(*store.KensaRun) bool, fn func(*KensaBundle) (T, error), results []*T, errs []error) {
	ds := make([]store.Digest, len(batch))
	for k, i := range batch {
		ds[k] = bundles[i]
	}
	mbs, readErrs := r.objects(ctx, ds)
	runs := make([]*store.KensaRun, len(ds))
	var evidence []store.Digest
	for k, d := range ds {
		i := batch[k]
		if readErrs[k] != nil {
			errs[i] = fmt.Errorf("bundle %s: %w", d, readErrs[k])
			continue
		}
		if runs[k], errs[i] = wantedKensaRun(d, mbs[k], want); runs[k] != nil {
			evidence = append(evidence, runs[k].Evidence)
		}
	}
	ebs, readErrs := r.objects(ctx, evidence)
	for k, m := range runs {
		if m == nil {
			continue
		}
		i := batch[k]
		b, err := r.loadRun(ctx, ds[k], m, ebs[0], readErrs[0])
		ebs, readErrs = ebs[1:], readErrs[1:]
		if err != nil {
			errs[i] = err
			continue
		}
		v, err := fn(b)
		b.done()
		results[i], errs[i] = &v, err
	}
}

// wantedKensaRun decodes mb, the manifest of bundle d, when it is a Kensa run want accepts;
// nil for another kind of bundle or a run not wanted.
func wantedKensaRun(d store.Digest, mb []byte, want func(*store.KensaRun) bool) (*store.KensaRun, error) {
	// A manifest is canonical JSON: a Kensa run's holds its kind member spelled this way, and
	// one without it is another kind of bundle, skipped without decoding.
	if !bytes.Contains(mb, kensaRunKind) {
		return nil, nil
	}
	m, err := decodeKensaRun(d, mb)
	if err != nil {
		if h, herr := store.PeekHeader(mb); herr == nil && h.Kind != store.KindKensaRun {
			return nil, nil // another kind whose manifest happens to hold the text
		}
		return nil, err
	}
	if want != nil && !want(m) {
		return nil, nil
	}
	return m, nil
}

// Evaluate derives the run's verdict and its receipt: the bundle, its definition tree, this
// evaluator (ekensa.Info) and the verdict.
func (b *KensaBundle) Evaluate() (*KensaResult, error) {
	res, err := b.Verdict()
	if err != nil {
		return nil, err
	}
	res.Receipt, err = EncodeReceipt(store.Receipt{Bundle: b.Digest, BundleKind: store.KindKensaRun,
		Profile: b.Manifest.DefinitionTree, Evaluator: ekensa.Info(), Verdict: res.Verdict})
	if err != nil {
		return nil, err
	}
	res.Predicate = res.Receipt.Predicate(b.Definition)
	return res, nil
}

// Verdict derives the run's verdict alone: Evaluate without the receipt.
func (b *KensaBundle) Verdict() (*KensaResult, error) {
	r := ekensa.Evaluate(b.Evidence)
	canonical, digest, err := r.Encode()
	if err != nil {
		return nil, fmt.Errorf("replay: verdict of %s: %w", b.Digest.Short(), err)
	}
	return &KensaResult{Result: r, Canonical: canonical, Verdict: digest}, nil
}

// RepeatKensa evaluates the Kensa bundle d runs times and proves that every evaluation gives
// the first one's verdict byte for byte, or reports the first that does not. Every run after
// the first loads the bundle again from s — scenario, dataset row, trace and judgement parsed
// anew — under GOMAXPROCS 1, 2, 4, 8 in turn, so that nothing but the stored evidence reaches
// the verdict. It returns the first evaluation and the divergence (nil when every run
// reproduced it).
func RepeatKensa(ctx context.Context, s BlobReader, d store.Digest, runs int) (*KensaBundle, *KensaResult, *Divergence, error) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var first *KensaResult
	var firstBundle *KensaBundle
	var baseline Setting
	for k := 1; k <= max(runs, 1); k++ {
		set := Setting{Run: k, GOMAXPROCS: procsCycle[(k-1)%len(procsCycle)], Workers: 1}
		runtime.GOMAXPROCS(set.GOMAXPROCS)
		b, err := LoadKensa(ctx, s, d)
		var res *KensaResult
		if err == nil {
			res, err = b.Evaluate()
		}
		switch {
		case k == 1 && err != nil:
			return nil, nil, nil, err
		case k == 1:
			firstBundle, first, baseline = b, res, set
		case err != nil:
			return firstBundle, first, &Divergence{Baseline: baseline, Setting: set, Want: first.Verdict, Err: err}, nil
		case !bytes.Equal(res.Canonical, first.Canonical):
			dv := &Divergence{Baseline: baseline, Setting: set, Want: first.Verdict, Got: res.Verdict}
			dv.Differences, dv.Truncated, dv.Err = verdictDiff(first.Canonical, res.Canonical)
			if len(dv.Differences) > 0 {
				dv.Field = dv.Differences[0].Path
			}
			return firstBundle, first, dv, nil
		}
	}
	return firstBundle, first, nil, nil
}

type kensaLoader struct {
	ctx context.Context
	r   *KensaReader
	// exit is the exit the evidence records, once read.
	exit store.KensaExit
	// release gives back the share of r.traces the run's trace holds; nil when none.
	release func()
}

// maxEvidenceBlob bounds what replay reads into memory from one blob.
const maxEvidenceBlob = 1 << 30

// sharedBlob reads a blob that runs share (a definition's file, an input, a dataset row, an
// output), from the reader's cache when it holds it. Cached bytes are shared: callers only
// read them.
func (l *kensaLoader) sharedBlob(desc store.Descriptor) ([]byte, error) {
	r := l.r
	r.mu.Lock()
	b, ok := r.blobs[desc.Digest]
	r.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := l.blob(desc)
	if err == nil && len(b) <= kensaCacheBlob {
		r.mu.Lock()
		if r.cached+len(b) <= kensaCacheBytes {
			r.blobs[desc.Digest] = b
			r.cached += len(b)
		}
		r.mu.Unlock()
	}
	return b, err
}

// blob reads a blob that is a run's own (its trace, Kensa's result, its judgement): read once,
// never cached, so that re-checking many runs does not keep them all in memory.
func (l *kensaLoader) blob(desc store.Descriptor) ([]byte, error) {
	rc, size, err := l.r.s.OpenBlob(l.ctx, desc.Digest)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if size > maxEvidenceBlob {
		return nil, fmt.Errorf("blob %s: %d bytes, more than replay reads (%d)", desc.Digest, size, maxEvidenceBlob)
	}
	b := make([]byte, 0, size+1) // +1: the read that finds the end
	if b, err = readAll(rc, b); err != nil {
		return nil, fmt.Errorf("blob %s: %w", desc.Digest, err)
	}
	return b, nil
}

// readAll reads r to its end into b, which has room for what r holds.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // more than the store said: grow
		}
	}
}

// json reads a JSON blob (an input, a dataset row) as Python reads it, parsing each small one
// once per reader: values are shared, and nothing modifies them.
func (l *kensaLoader) json(desc *store.Descriptor) (pyvalue.Value, error) {
	if desc == nil {
		return pyvalue.Value{}, nil
	}
	l.r.mu.Lock()
	v, ok := l.r.values[desc.Digest]
	l.r.mu.Unlock()
	if ok {
		return v, nil
	}
	b, err := l.sharedBlob(*desc)
	if err != nil {
		return pyvalue.Value{}, err
	}
	if v, err = pyvalue.Loads(desc.Digest.String(), b); err != nil {
		return pyvalue.Value{}, err
	}
	if len(b) <= kensaCacheBlob {
		l.r.mu.Lock()
		l.r.values[desc.Digest] = v
		l.r.mu.Unlock()
	}
	return v, nil
}

// evidence decodes eb, the evidence object of the run (or reports readErr, the failure to read
// it), and reads the rest of what the run's evaluation needs.
func (l *kensaLoader) evidence(run *store.KensaRun, eb []byte, readErr error) (*ekensa.Evidence, *kensaDefinition, error) {
	if readErr != nil {
		return nil, nil, fmt.Errorf("evidence: %w", readErr)
	}
	m, err := store.DecodeKensaEvidence(eb, run)
	if err != nil {
		return nil, nil, err
	}
	l.exit = m.Exit
	def, err := l.definition(m.Definition)
	if err != nil {
		return nil, nil, err
	}
	sc, err := def.scenario(l, m.ScenarioFile)
	if err != nil {
		return nil, nil, err
	}
	ev := &ekensa.Evidence{Scenario: sc, Case: m.Case, ExitCode: m.Exit.Code, RunError: m.Exit.Error}
	if sc.Judge != nil {
		if ev.JudgeSpec, err = def.judge(l, "judges/"+*sc.Judge+".yaml"); err != nil {
			return nil, nil, err
		}
	}
	return ev, def, l.runEvidence(ev, m)
}

// definition reads and decodes the definition tree d, once per reader.
func (l *kensaLoader) definition(d store.Digest) (*kensaDefinition, error) {
	l.r.mu.Lock()
	def, ok := l.r.defs[d]
	l.r.mu.Unlock()
	if ok {
		return def, nil
	}
	tb, err := l.r.s.GetObject(l.ctx, d)
	if err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	tree, err := store.DecodeProfileTree(tb)
	if err != nil {
		return nil, err
	}
	def = &kensaDefinition{files: map[string]store.Descriptor{}, scenarios: map[string]*fkensa.Scenario{}, judges: map[string]*fkensa.JudgeSpec{},
		definition: attest.Definition{Kind: string(store.KindProfileTree), ID: tree.ProfileID, Version: tree.Version, Digest: d}}
	for _, e := range tree.Entries {
		def.files[e.Path] = e.Blob
	}
	l.r.mu.Lock()
	if prev, ok := l.r.defs[d]; ok {
		def = prev // another goroutine was first
	} else {
		l.r.defs[d] = def
	}
	l.r.mu.Unlock()
	return def, nil
}

// file reads the file at path of the definition.
func (def *kensaDefinition) file(l *kensaLoader, path string) ([]byte, error) {
	desc, ok := def.files[path]
	if !ok {
		return nil, fmt.Errorf("definition has no %s", path)
	}
	return l.sharedBlob(desc)
}

// scenario parses the scenario file at path, once per definition.
func (def *kensaDefinition) scenario(l *kensaLoader, path string) (*fkensa.Scenario, error) {
	return parseOnce(l, def, def.scenarios, path, fkensa.ParseScenario)
}

// judge parses the judge spec at path, once per definition.
func (def *kensaDefinition) judge(l *kensaLoader, path string) (*fkensa.JudgeSpec, error) {
	return parseOnce(l, def, def.judges, path, fkensa.ParseJudgeSpec)
}

// parseOnce parses the definition's file at path with parse, or returns what an earlier call
// parsed.
func parseOnce[T any](l *kensaLoader, def *kensaDefinition, parsed map[string]*T, path string, parse func(string, []byte) (*T, error)) (*T, error) {
	l.r.mu.Lock()
	v, ok := parsed[path]
	l.r.mu.Unlock()
	if ok {
		return v, nil
	}
	data, err := def.file(l, path)
	if err != nil {
		return nil, err
	}
	if v, err = parse(path, data); err != nil {
		return nil, err
	}
	l.r.mu.Lock()
	parsed[path] = v
	l.r.mu.Unlock()
	return v, nil
}

// runEvidence reads what is the run's own: input, row, output, trace and judgement.
func (l *kensaLoader) runEvidence(ev *ekensa.Evidence, m *store.KensaEvidence) error {
	var err error
	if ev.Input, err = l.json(m.Input); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	if ev.Row, err = l.json(m.DatasetRow); err != nil {
		return fmt.Errorf("dataset row: %w", err)
	}
	// Only the ends Kensa keeps (fkensa.RunStdout, RunStderr) are read into memory.
	if ev.Stdout, err = l.tail(m.Stdout, fkensa.RunStdoutRunes); err != nil {
		return err
	}
	if ev.Stderr, err = l.tail(m.Stderr, fkensa.RunStderrRunes); err != nil {
		return err
	}
	ev.TracePath = m.TracePath
	if m.Trace != nil {
		if err := l.trace(ev, *m.Trace); err != nil {
			return err
		}
	} else if ev.TracePath != "" {
		ev.HasTrace, ev.TraceError = true, "the trace file could not be read when the run was recorded"
	}
	if m.Judgement != nil {
		if ev.Judgement, err = l.judgement(*m.Judgement); err != nil {
			return err
		}
	}
	return nil
}

func (l *kensaLoader) judgement(desc store.Descriptor) (*ekensa.Judgement, error) {
	b, err := l.r.s.GetObject(l.ctx, desc.Digest)
	if err != nil {
		return nil, fmt.Errorf("judgement: %w", err)
	}
	var j store.KensaJudgement
	if err := store.Decode(b, &j); err != nil {
		return nil, err
	}
	var prompt []byte
	if j.Prompt != nil {
		if prompt, err = l.blob(*j.Prompt); err != nil {
			return nil, err
		}
	}
	answer, err := l.blob(j.Answer)
	if err != nil {
		return nil, err
	}
	return ekensa.RecordedJudgement(&j, prompt, answer), nil
}
