package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// ProblemKind classifies what Check found wrong.
type ProblemKind string

// Problem kinds, from the most to the least severe.
const (
	// ProblemCorrupt: content does not hash to its digest, or its record cannot be decoded.
	ProblemCorrupt ProblemKind = "corrupt"
	// ProblemMissingChunk: a chunk list names a chunk that is not in the store.
	ProblemMissingChunk ProblemKind = "missing-chunk"
	// ProblemInvalidObject: a structured object that does not decode or breaks its schema.
	ProblemInvalidObject ProblemKind = "invalid-object"
	// ProblemMissingReference: an object or a ref points at content that is not in the store.
	ProblemMissingReference ProblemKind = "missing-reference"
	// ProblemBadDescriptor: a reference states a size or kind the stored content does not have.
	ProblemBadDescriptor ProblemKind = "bad-descriptor"
	// ProblemBadRef: a ref points at the wrong kind of object, or its name disagrees with it.
	ProblemBadRef ProblemKind = "bad-ref"
)

// Problem is one inconsistency found by Check.
type Problem struct {
	// Digest is the blob, object or chunk at fault: the corrupt one, or the referrer of a
	// missing or mismatched reference. Zero for a problem of a ref.
	Digest Digest
	// Ref is the ref at fault, for problems of refs.
	Ref     string
	Kind    ProblemKind
	Message string
}

// String renders a problem on one line.
func (p Problem) String() string {
	at := p.Digest.String()
	if p.Ref != "" {
		at = "ref " + p.Ref
	}
	return fmt.Sprintf("%s: %s: %s", at, p.Kind, p.Message)
}

func compareProblems(a, b Problem) int {
	return cmpOr(bytes.Compare(a.Digest[:], b.Digest[:]), strings.Compare(a.Ref, b.Ref),
		strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.Message, b.Message))
}

func cmpOr(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

// CheckOptions tune Check.
type CheckOptions struct {
	// Workers verify entries in parallel (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called after each verified entry, from one goroutine at a time.
	Progress func(CheckProgress)
}

// CheckProgress is the running state of a check.
type CheckProgress struct {
	EntriesDone, EntriesTotal int
	BytesDone, BytesTotal     int64
}

// CheckReport is what Check verified and found.
type CheckReport struct {
	Blobs        int // raw blobs, inline or chunked
	ChunkedBlobs int // raw blobs and objects stored as a chunk list
	Objects      int // structured objects
	Chunks       int // chunks in the store, orphans included
	Refs         int
	// BytesChecked counts the uncompressed bytes read back and hashed: the content of every
	// blob and object that could be read.
	BytesChecked int64
	// OrphanChunks counts chunks that no chunk list names, which only an interrupted write
	// leaves. A chunk can only be verified through a list that names it, so they are garbage
	// for GC, not verified; a store that implements ChunkDecoder has their records decoded,
	// and a record that does not decode is a Problem.
	OrphanChunks int
	// DanglingGarbage counts references from objects that no ref reaches to content that is
	// missing or does not match: what an interrupted write or a failed import leaves behind
	// (an archive may carry an object before the blobs it names). They are garbage for GC, not
	// damage; the same reference from reachable content is a Problem.
	DanglingGarbage int
	// Garbage is what GC removes, decided by the same function (FindGarbage): every blob,
	// object and chunk no ref reaches, such as what a failed or interrupted recording wrote.
	// Nil when a reachable object cannot be read: then what it refers to, and so what is
	// garbage, cannot be known (a Problem names the object).
	Garbage *Garbage
	// Problems is sorted by digest, ref, kind and message, so two checks of the same store
	// report identically.
	Problems []Problem
}

// OK reports whether the check found no problem.
func (r *CheckReport) OK() bool { return len(r.Problems) == 0 }

// ChunkDecoder is implemented by stores that can decode one chunk's record on its own. A
// store may name chunks by keys that commit to more than the chunk's bytes (the Badger store's
// keys commit to the whole prefix of the blob), so a chunk is verified only while a blob that
// lists it is read; Check decodes the chunks no list names to report damaged records.
type ChunkDecoder interface {
	// DecodeChunk decodes (decompresses) the chunk d and returns the length of its content.
	// A damaged record is an error wrapping ErrCorrupt that names d.
	DecodeChunk(ctx context.Context, d Digest) (int64, error)
}

// Check verifies a whole store, like fsck: every blob and object is read back and re-hashed
// (the store's readers verify digests, and a chunked blob's chunks as they are read), every
// structured object is decoded and its references are checked for presence, size and kind,
// every chunk list must be complete, and every ref must point at present content of the kind
// its namespace implies. Unreferenced content is not a problem: it is garbage for GC, and so
// are chunks no chunk list names (see CheckReport.OrphanChunks).
//
// Entries are verified by Workers goroutines; the report does not depend on their order. The
// error is for failures of the check itself (a cancelled context, an unreadable store); what is
// wrong with the content is in the report.
func Check(ctx context.Context, s Store, opts CheckOptions) (*CheckReport, error) {
	inv, err := takeInventory(ctx, s)
	if err != nil {
		return nil, err
	}
	c := &checker{s: s, inv: inv, opts: opts, report: &CheckReport{}}
	c.checkChunkLists()
	if err := c.verifyAll(ctx); err != nil {
		return nil, err
	}
	if err := c.checkRefs(ctx); err != nil {
		return nil, err
	}
	g, err := FindGarbage(ctx, s)
	switch {
	case err == nil:
		c.report.Garbage = g
		listingProblems, err := checkListings(ctx, s, g.sealed)
		if err != nil {
			return nil, err
		}
		c.report.Problems = append(c.report.Problems, listingProblems...)
	case !isContentError(err):
		return nil, err
	}
	c.classifyReferenceProblems()
	slices.SortFunc(c.report.Problems, compareProblems)
	return c.report, nil
}

// classifyReferenceProblems keeps the reference problems of content some ref reaches and
// counts those of garbage objects as garbage (see CheckReport.DanglingGarbage). When garbage
// is unknown, every reference problem is a problem.
func (c *checker) classifyReferenceProblems() {
	garbage := map[Digest]bool{}
	if g := c.report.Garbage; g != nil {
		for _, e := range g.Objects {
			garbage[e.Digest] = true
		}
	}
	for _, p := range c.referenceProblems {
		if garbage[p.Digest] {
			c.report.DanglingGarbage++
		} else {
			c.report.Problems = append(c.report.Problems, p)
		}
	}
}

// inventory is every entry of a store, from one Walk.
type inventory struct {
	contents []Entry // blobs and objects, in digest order
	byDigest map[Digest]Entry
	chunks   map[Digest]Entry
	// listed holds the chunks some chunk list names.
	listed map[Digest]bool
}

func takeInventory(ctx context.Context, s Store) (*inventory, error) {
	inv := &inventory{byDigest: map[Digest]Entry{}, chunks: map[Digest]Entry{}, listed: map[Digest]bool{}}
	err := s.Walk(ctx, func(e Entry) error {
		if e.Chunk {
			inv.chunks[e.Digest] = e
			return nil
		}
		inv.contents = append(inv.contents, e)
		inv.byDigest[e.Digest] = e
		for _, c := range e.Chunks {
			inv.listed[c] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: check: walk: %w", err)
	}
	return inv, nil
}

type checker struct {
	s      Store
	inv    *inventory
	opts   CheckOptions
	mu     sync.Mutex // guards report and progress
	report *CheckReport
	done   CheckProgress
	// incomplete holds blobs with a missing chunk: reading them would only repeat that.
	incomplete map[Digest]bool
	// referenceProblems holds the problems of objects' references, which count only for
	// content a ref reaches (guarded by mu).
	referenceProblems []Problem
}

func (c *checker) add(p Problem) {
	c.mu.Lock()
	c.report.Problems = append(c.report.Problems, p)
	c.mu.Unlock()
}

// checkChunkLists reports chunk lists that name absent chunks.
func (c *checker) checkChunkLists() {
	c.incomplete = map[Digest]bool{}
	for _, e := range c.inv.contents {
		for i, ch := range e.Chunks {
			if _, ok := c.inv.chunks[ch]; !ok {
				c.incomplete[e.Digest] = true
				c.add(Problem{Digest: e.Digest, Kind: ProblemMissingChunk,
					Message: fmt.Sprintf("chunk %d of %d, %s, is not in the store", i+1, len(e.Chunks), ch)})
			}
		}
	}
}

// job is one entry to verify.
type job struct {
	entry Entry
	chunk bool // an orphan chunk, decoded through ChunkDecoder
}

// verifyAll verifies every blob and object, then decodes every orphan chunk, on Workers
// goroutines.
func (c *checker) verifyAll(ctx context.Context) error {
	jobs := make([]job, 0, len(c.inv.contents))
	for _, e := range c.inv.contents {
		jobs = append(jobs, job{entry: e})
		c.done.BytesTotal += e.Size
	}
	_, canDecode := c.s.(ChunkDecoder)
	for _, e := range sortedEntries(c.inv.chunks) {
		if c.inv.listed[e.Digest] {
			continue
		}
		c.report.OrphanChunks++
		if canDecode {
			jobs = append(jobs, job{entry: e, chunk: true})
			c.done.BytesTotal += e.Size
		}
	}
	c.report.Chunks = len(c.inv.chunks)
	c.done.EntriesTotal = len(jobs)
	return runJobs(ctx, c.opts.Workers, jobs, c.verify)
}

// runJobs calls fn on every job from workers goroutines and returns the first error.
func runJobs(ctx context.Context, workers int, jobs []job, fn func(context.Context, job, []byte) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for j := range next {
				if err := fn(ctx, j, buf); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// verify reads one entry back and checks what it refers to. Content errors become problems;
// other errors (a cancelled context, a closed store) stop the check.
func (c *checker) verify(ctx context.Context, j job, buf []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e := j.entry
	var n int64
	var err error
	switch {
	case j.chunk:
		// Decoded, not hashed: it does not count in BytesChecked.
		_, err = c.s.(ChunkDecoder).DecodeChunk(ctx, e.Digest)
	case c.incomplete[e.Digest]:
		// Already reported as missing chunks; reading it would only fail on them again.
	case e.Kind != "":
		n, err = c.verifyObject(ctx, e)
	default:
		n, err = readAll(buf, func() (io.ReadCloser, int64, error) { return c.s.OpenBlob(ctx, e.Digest) })
	}
	if err != nil {
		if !isContentError(err) {
			return err
		}
		c.add(problemOf(e.Digest, err))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case j.chunk:
	case e.Kind != "":
		c.report.Objects++
	default:
		c.report.Blobs++
	}
	if len(e.Chunks) > 0 {
		c.report.ChunkedBlobs++
	}
	c.report.BytesChecked += n
	c.done.EntriesDone++
	c.done.BytesDone += e.Size
	if c.opts.Progress != nil {
		c.opts.Progress(c.done)
	}
	return nil
}

// readAll reads a verifying reader to its end and returns how many bytes it gave. The reader
// checks the digests; the bytes themselves are not needed.
func readAll(buf []byte, open func() (io.ReadCloser, int64, error)) (int64, error) {
	r, _, err := open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var total int64
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// verifyObject reads, decodes and follows one structured object's references.
func (c *checker) verifyObject(ctx context.Context, e Entry) (int64, error) {
	b, err := c.s.GetObject(ctx, e.Digest)
	if err != nil {
		return 0, err
	}
	kind, refs, err := ReferencesOf(b)
	if err != nil {
		return int64(len(b)), err
	}
	if kind != e.Kind {
		return int64(len(b)), fmt.Errorf("%w: stored as a %s but the object is a %s", ErrCorrupt, e.Kind, kind)
	}
	var problems []Problem
	for _, ref := range refs {
		target, ok := c.inv.byDigest[ref.Digest]
		if !ok {
			problems = append(problems, Problem{Digest: e.Digest, Kind: ProblemMissingReference,
				Message: fmt.Sprintf("%s refers to %s (%s), which is not in the store", describe(e), ref.Digest, ref.MediaType)})
			continue
		}
		if msg := descriptorMismatch(ref, target); msg != "" {
			problems = append(problems, Problem{Digest: e.Digest, Kind: ProblemBadDescriptor,
				Message: fmt.Sprintf("%s refers to %s %s", describe(e), ref.Digest, msg)})
		}
	}
	c.mu.Lock()
	c.referenceProblems = append(c.referenceProblems, problems...)
	c.mu.Unlock()
	return int64(len(b)), nil
}

// isContentError reports whether err is about the content (a problem to report) rather than
// about the check (a reason to stop).
func isContentError(err error) bool {
	for _, target := range []error{ErrCorrupt, ErrNotFound, ErrInvalidObject, ErrUnknownKind,
		ErrUnsupportedVersion, ErrNotCanonical, ErrTooLarge, ErrMissingReference, ErrInvalidDigest} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func problemOf(d Digest, err error) Problem {
	kind := ProblemCorrupt
	if errors.Is(err, ErrInvalidObject) || errors.Is(err, ErrUnknownKind) || errors.Is(err, ErrUnsupportedVersion) ||
		errors.Is(err, ErrNotCanonical) || errors.Is(err, ErrTooLarge) {
		kind = ProblemInvalidObject
	}
	return Problem{Digest: d, Kind: kind, Message: err.Error()}
}

// refTargetProblem says what is wrong when a ref of namespace ns points at an object of kind k,
// or "" when that is right (or the namespace sets no rule): bundles and tags name bundle
// manifests of any kind, profiles name profile trees, receipts name receipts.
func refTargetProblem(ns string, k Kind) string {
	switch ns {
	case RefBundlePrefix, RefTagPrefix:
		if !IsManifestKind(k) {
			return "a bundle manifest"
		}
	case RefProfilePrefix:
		if k != KindProfileTree {
			return "a " + string(KindProfileTree)
		}
	case RefReceiptPrefix:
		if k != KindReceipt {
			return "a " + string(KindReceipt)
		}
	}
	return ""
}

// checkRefs checks that every ref points at present content of the right kind, and that refs
// named after a digest point at that digest.
func (c *checker) checkRefs(ctx context.Context) error {
	refs, err := c.s.ListRefs(ctx, "")
	if err != nil {
		return fmt.Errorf("store: check: list refs: %w", err)
	}
	c.report.Refs = len(refs)
	for _, r := range refs {
		if err := ValidateRefName(r.Name); err != nil {
			c.add(Problem{Ref: r.Name, Kind: ProblemBadRef, Message: err.Error()})
		}
		if named, ok := DigestOfRef(r.Name); ok && named != r.Digest {
			c.add(Problem{Ref: r.Name, Kind: ProblemBadRef, Message: fmt.Sprintf("points at %s, not at the digest in its name", r.Digest)})
		}
		target, ok := c.inv.byDigest[r.Digest]
		if !ok {
			c.add(Problem{Ref: r.Name, Kind: ProblemMissingReference, Message: fmt.Sprintf("points at %s, which is not in the store", r.Digest)})
			continue
		}
		if want := refTargetProblem(refNamespace(r.Name), target.Kind); want != "" {
			c.add(Problem{Ref: r.Name, Kind: ProblemBadRef, Message: fmt.Sprintf("points at %s, a %s rather than %s", r.Digest, kindName(target.Kind), want)})
		}
	}
	return nil
}

func kindName(k Kind) string {
	if k == "" {
		return "raw blob"
	}
	return string(k)
}

func sortedEntries(m map[Digest]Entry) []Entry {
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	return out
}
