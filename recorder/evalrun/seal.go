package evalrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// durationKey names a run's duration, in milliseconds, among its manifest's non-scoring data.
const durationKey = "duration_ms"

// finished is a run whose reply is captured and waits to be sealed.
type finished struct {
	job   *Job
	reply *Reply
}

// discard deletes the files a reply spooled.
func (f finished) discard() {
	f.reply.Answer.remove()
	if f.reply.Stderr != nil {
		f.reply.Stderr.remove()
	}
}

// sealer seals finished runs in batches, opening the store only for the time of a batch.
type sealer struct {
	opts     Options
	in       chan finished
	pending  []finished
	recorded []Recorded
}

// newSealer returns a sealer for up to jobs runs. Its input holds every run, so a runner never
// waits for a batch being sealed.
func newSealer(opts Options, jobs int) *sealer {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 2 * time.Second
	}
	if opts.FlushSize <= 0 {
		opts.FlushSize = 256
	}
	return &sealer{opts: opts, in: make(chan finished, max(jobs, 1))}
}

// loop collects finished runs and seals them when FlushSize wait, FlushEvery after the first
// of a batch finished, and at the end. A batch that cannot be sealed (the store is in use) is
// kept and tried again; at the end it is tried until it succeeds or fails three times.
func (s *sealer) loop() error {
	var timer <-chan time.Time
	var lastErr error
	for {
		select {
		case f, ok := <-s.in:
			if !ok {
				return s.drain(lastErr)
			}
			s.pending = append(s.pending, f)
			if timer == nil {
				timer = time.After(s.opts.FlushEvery)
			}
			if len(s.pending) < s.opts.FlushSize {
				continue
			}
		case <-timer:
		}
		timer = nil
		if lastErr = s.flush(); lastErr != nil && len(s.pending) > 0 {
			timer = time.After(s.opts.FlushEvery)
		}
	}
}

func (s *sealer) drain(lastErr error) error {
	for try := 0; len(s.pending) > 0; try++ {
		if try == 3 {
			for _, f := range s.pending {
				f.discard()
			}
			return fmt.Errorf("evalrun: %d finished runs could not be sealed: %w", len(s.pending), lastErr)
		}
		if try > 0 {
			time.Sleep(s.opts.FlushEvery)
		}
		lastErr = s.flush()
	}
	return nil
}

// flush seals every pending run. It runs on a context that is not cancelled with the command:
// an interrupt stops new runs, never the sealing of finished ones.
func (s *sealer) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	ctx := context.Background()
	st, closeStore, err := s.opts.Open(ctx)
	if err != nil {
		return err
	}
	sealed, err := s.sealBatch(ctx, st)
	if closeErr := closeStore(); err == nil && closeErr != nil {
		err = closeErr
	}
	s.recorded = append(s.recorded, sealed...)
	done := len(sealed)
	for _, f := range s.pending[:done] {
		f.discard()
	}
	s.pending = s.pending[done:]
	if s.opts.Progress != nil && done > 0 {
		jobs := make([]*Job, done)
		for i, r := range sealed {
			jobs[i] = r.Job
		}
		s.opts.Progress.Sealed(jobs)
	}
	return err
}

// sealBatch seals every pending run, all or none: the runs' blobs and definitions, the new
// state of the index of every cell they belong to, what Options.Verdicts stores, then the
// manifests with one sync and every bundle ref, index ref and verdict ref in one durable write
// (store.SealAll).
func (s *sealer) sealBatch(ctx context.Context, st store.Store) ([]Recorded, error) {
	out := make([]Recorded, 0, len(s.pending))
	manifests := make([]store.Manifest, 0, len(s.pending))
	trees := map[string]store.Digest{}
	for _, f := range s.pending {
		m, err := s.manifest(ctx, st, f, trees)
		if err != nil {
			return nil, err
		}
		_, desc, err := store.Encode(m)
		if err != nil {
			return nil, err
		}
		out = append(out, Recorded{Job: f.job, Bundle: desc.Digest, Manifest: m})
		manifests = append(manifests, m)
	}
	refs, err := updateCells(ctx, st, out)
	if err != nil {
		return nil, err
	}
	if s.opts.Verdicts != nil {
		verdicts, err := s.opts.Verdicts(ctx, st, out)
		if err != nil {
			return nil, err
		}
		refs = append(refs, verdicts...)
	}
	if _, err := store.SealAll(ctx, st, manifests, refs); err != nil {
		return nil, err
	}
	return out, nil
}

// manifest stores what a finished run refers to and returns its manifest, not yet stored.
func (s *sealer) manifest(ctx context.Context, st store.Store, f finished, trees map[string]store.Digest) (*store.EvalRun, error) {
	j := f.job
	tree, err := putDefinition(ctx, st, j.Definition, trees)
	if err != nil {
		return nil, err
	}
	request, err := putBytes(ctx, st, j.Request, store.MediaTypeEvalRequest)
	if err != nil {
		return nil, err
	}
	answer, err := putFile(ctx, st, f.reply.Answer, store.MediaTypeOctetStream)
	if err != nil {
		return nil, err
	}
	m := &store.EvalRun{
		Recorder:  s.opts.Recorder,
		Tree:      tree,
		Scenario:  j.Scenario,
		Variation: j.Variation,
		Agent:     s.opts.Agent.Identity(),
		Endpoint:  s.opts.Agent.Endpoint(),
		Key:       j.Key,
		Run:       j.Run,
		Request:   request,
		Answer:    answer,
		Outcome:   f.reply.Outcome,
		Settings:  s.opts.Limits.Settings(),
		NonScoring: map[string]string{
			durationKey: strconv.FormatInt(f.reply.Duration.Milliseconds(), 10),
		},
	}
	if f.reply.Stderr != nil {
		d, err := putFile(ctx, st, *f.reply.Stderr, store.MediaTypeOctetStream)
		if err != nil {
			return nil, err
		}
		m.Stderr = &d
	}
	return m, nil
}

// PutDefinition stores a definition as a profile tree and returns the tree's digest.
func PutDefinition(ctx context.Context, st store.Store, def Definition) (store.Digest, error) {
	return putDefinition(ctx, st, def, map[string]store.Digest{})
}

// putDefinition stores a run's profile tree, once per batch for runs sharing one.
func putDefinition(ctx context.Context, st store.Store, def Definition, seen map[string]store.Digest) (store.Digest, error) {
	tree := &store.ProfileTree{ProfileID: def.ID, Version: def.Version}
	for _, f := range def.Files {
		d := store.Descriptor{MediaType: f.MediaType, Digest: store.Sum(f.Content), Size: int64(len(f.Content))}
		tree.Entries = append(tree.Entries, store.TreeEntry{Path: f.Path, Blob: d})
	}
	slices.SortFunc(tree.Entries, func(a, b store.TreeEntry) int { return strings.Compare(a.Path, b.Path) })
	b, desc, err := store.Encode(tree)
	if err != nil {
		return store.Digest{}, err
	}
	if d, ok := seen[string(b)]; ok {
		return d, nil
	}
	for _, f := range def.Files {
		if _, err := putBytes(ctx, st, f.Content, f.MediaType); err != nil {
			return store.Digest{}, err
		}
	}
	if _, err := st.PutObject(ctx, b); err != nil {
		return store.Digest{}, fmt.Errorf("evalrun: store definition: %w", err)
	}
	seen[string(b)] = desc.Digest
	return desc.Digest, nil
}

func putBytes(ctx context.Context, st store.Store, b []byte, mediaType string) (store.Descriptor, error) {
	d, n, err := st.PutBlob(ctx, bytes.NewReader(b))
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("evalrun: store blob: %w", err)
	}
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, nil
}

// putFile stores a captured stream and checks that the store read what was captured.
func putFile(ctx context.Context, st store.Store, sp Spooled, mediaType string) (store.Descriptor, error) {
	var r io.Reader = bytes.NewReader(sp.Data)
	if sp.Path != "" {
		f, err := os.Open(sp.Path)
		if err != nil {
			return store.Descriptor{}, fmt.Errorf("evalrun: spooled output: %w", err)
		}
		defer f.Close()
		r = f
	}
	d, n, err := st.PutBlob(ctx, r)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("evalrun: store %s: %w", sp.Path, err)
	}
	if store.Digest(sp.SHA256) != d || n != sp.Size {
		return store.Descriptor{}, fmt.Errorf("evalrun: captured output %s changed before it was stored", sp.Path)
	}
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, nil
}

// updateCells stores the new index of every cell the runs belong to (the run numbers sealed
// now replace the ones recorded before) and returns the refs that will name them, to be set
// with the runs' bundle refs.
func updateCells(ctx context.Context, st store.Store, runs []Recorded) ([]store.Ref, error) {
	byKey := map[store.Digest][]Recorded{}
	var keys []store.Digest
	for _, r := range runs {
		if _, ok := byKey[r.Job.Key]; !ok {
			keys = append(keys, r.Job.Key)
		}
		byKey[r.Job.Key] = append(byKey[r.Job.Key], r)
	}
	refs := make([]store.Ref, 0, len(keys))
	for _, k := range keys {
		runs := byKey[k]
		cell, err := LoadCell(ctx, st, k)
		if err != nil {
			return nil, err
		}
		if cell == nil {
			cell = &store.EvalCellRuns{Key: k, Scenario: runs[0].Job.Scenario.ID, Variation: runs[0].Job.Variation.ID}
		}
		for _, r := range runs {
			setSlot(cell, r.Job.Run, r.Bundle, func(store.Digest) bool { return true })
		}
		desc, err := store.Put(ctx, st, cell)
		if err != nil {
			return nil, fmt.Errorf("evalrun: store cell index: %w", err)
		}
		refs = append(refs, store.Ref{Name: store.EvalCellRefName(k), Digest: desc.Digest})
	}
	return refs, nil
}

// setSlot puts bundle d in the slot of run number run of cell, its runs kept in run order; a
// slot already held is given to d when replace says so of its bundle. It reports whether the
// cell changed.
func setSlot(cell *store.EvalCellRuns, run int, d store.Digest, replace func(held store.Digest) bool) bool {
	slot := store.EvalRunSlot{Run: run, Bundle: store.Descriptor{MediaType: store.MediaTypeEvalRun, Digest: d}}
	i, found := slices.BinarySearchFunc(cell.Runs, run, func(s store.EvalRunSlot, run int) int { return s.Run - run })
	switch {
	case !found:
		cell.Runs = slices.Insert(cell.Runs, i, slot)
	case replace(cell.Runs[i].Bundle.Digest):
		cell.Runs[i] = slot
	default:
		return false
	}
	return true
}

// IndexRuns puts each eval run among bundles (runs pulled from a remote, recorded by the shards
// of a matrix) in its cell's index, as sealing a run does, and returns how many runs it found.
// Where two runs hold the same slot (the same cell and run number, recorded by two attempts of
// a shard), the one of the smaller digest is kept, so that the index, and the matrix sealed
// from it, do not depend on the order of the pulls.
func IndexRuns(ctx context.Context, st store.Store, bundles []store.Digest) (int, error) {
	byKey := map[store.Digest]map[int]store.Digest{}
	first := map[store.Digest]*store.EvalRun{}
	n := 0
	for _, d := range bundles {
		b, err := st.GetObject(ctx, d)
		if err != nil {
			return 0, fmt.Errorf("bundle %s: %w", d, err)
		}
		m, err := store.DecodeBundleManifest(b)
		if err != nil {
			return 0, fmt.Errorf("bundle %s: %w", d, err)
		}
		run, ok := m.(*store.EvalRun)
		if !ok {
			continue
		}
		n++
		if byKey[run.Key] == nil {
			byKey[run.Key], first[run.Key] = map[int]store.Digest{}, run
		}
		if held, ok := byKey[run.Key][run.Run]; !ok || d.Compare(held) < 0 {
			byKey[run.Key][run.Run] = d
		}
	}
	keys := make([]store.Digest, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, store.Digest.Compare)
	for _, k := range keys {
		cell, err := LoadCell(ctx, st, k)
		if err != nil {
			return 0, err
		}
		if cell == nil {
			cell = &store.EvalCellRuns{Key: k, Scenario: first[k].Scenario.ID, Variation: first[k].Variation.ID}
		}
		changed := false
		for run, d := range byKey[k] {
			if setSlot(cell, run, d, func(held store.Digest) bool { return d.Compare(held) < 0 }) {
				changed = true
			}
		}
		if !changed {
			continue
		}
		desc, err := store.Put(ctx, st, cell)
		if err != nil {
			return 0, fmt.Errorf("evalrun: store cell index: %w", err)
		}
		if err := st.SetRef(ctx, store.EvalCellRefName(k), desc.Digest); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// CellReader is what LoadCell reads through.
type CellReader interface {
	GetRef(ctx context.Context, name string) (store.Digest, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
}

// LoadCell returns the index of the runs recorded for cell key k, or nil when there is none.
func LoadCell(ctx context.Context, st CellReader, k store.Digest) (*store.EvalCellRuns, error) {
	d, err := st.GetRef(ctx, store.EvalCellRefName(k))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := st.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("cell index %s: %w", d.Short(), err)
	}
	var cell store.EvalCellRuns
	if err := store.Decode(b, &cell); err != nil {
		return nil, fmt.Errorf("cell index %s: %w", d.Short(), err)
	}
	return &cell, nil
}
