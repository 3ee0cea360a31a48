package recorder

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// detectWindow is how much of an audit log auditlog.DetectFormat looks at.
const detectWindow = 64 << 10

// recordAuditFile stores an audit log in one pass: the file is read once, through the hooks,
// and what the hooks give is hashed, cut into chunks and compressed by the store while the
// evaluator's own audit-log reader checks every entry of the same bytes on another goroutine,
// so that what is stored is exactly what was checked and the evaluator can read all of it.
// A log that fails the check fails the store's write, which then undoes what it wrote (see
// store.Store.PutBlob): the store is left as it was. Memory is bounded by the reader's entry
// cap and the blocks in flight, whatever the size of the log.
func (r *recording) recordAuditFile(ctx context.Context, path string) (store.Descriptor, error) {
	f, err := inputfile.Open(ctx, path)
	if err != nil {
		return store.Descriptor{}, &InputError{File: path, Msg: "cannot read the audit log", Err: err}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, detectWindow)
	head, err := br.Peek(detectWindow)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return store.Descriptor{}, &InputError{File: path, Msg: "cannot read the audit log", Err: err}
	}
	mediaType, err := auditlog.DetectFormat(head)
	if err != nil {
		return store.Descriptor{}, &InputError{File: path, Line: 1, Msg: err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	check := newStreamCheck(ctx, mediaType)
	hooked := r.hooks.pass()
	d, n, err := r.s.PutBlob(ctx, &checkedReader{src: hooked.reader(br), check: check})
	if err == nil {
		err = check.wait() // nil: the store only finishes a write the check passed
	}
	if checkErr := check.failed(); checkErr != nil && ctx.Err() == nil {
		return store.Descriptor{}, auditInputError(path, mediaType, checkErr)
	}
	if err != nil {
		// The store failed (no space, a cancelled context) before the check could finish:
		// what the check saw was cut short, so its verdict is not asked for.
		cancel()
		check.wait()
		return store.Descriptor{}, fmt.Errorf("recorder: store the audit log %s: %w", path, err)
	}
	r.stored(d, hooked)
	return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, nil
}

// streamCheck runs the evaluator's audit-log reader over the blocks it is given, beside the
// store's write (checkLog spreads JSON lines over the cores).
type streamCheck struct {
	blocks chan []byte
	free   chan []byte
	ended  sync.Once
	done   chan struct{}
	err    error // set before done is closed
}

// The check is handed copies of what the store reads in blocks of at most checkBlock bytes,
// and may lag checkQueue blocks behind the store's write: enough to even out the two, little
// enough to keep memory small (the store's writer holds its own chunks).
const (
	checkBlock = 256 << 10
	checkQueue = 16
)

func newStreamCheck(ctx context.Context, mediaType string) *streamCheck {
	c := &streamCheck{blocks: make(chan []byte, checkQueue), free: make(chan []byte, checkQueue+1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = checkLog(&blockReader{ctx: ctx, c: c}, mediaType)
		if c.err == nil {
			c.err = ctx.Err()
		}
		for range c.blocks { // unblock a writer after an early failure
		}
	}()
	return c
}

// failed returns the check's error once it has stopped, and nil while it runs.
func (c *streamCheck) failed() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// send queues a copy of p for the check.
func (c *streamCheck) send(p []byte) {
	for len(p) > 0 {
		n := min(len(p), checkBlock)
		var b []byte
		select {
		case b = <-c.free:
		default:
			b = make([]byte, 0, checkBlock)
		}
		c.blocks <- append(b[:0], p[:n]...)
		p = p[n:]
	}
}

// wait ends the input and returns the check's verdict.
func (c *streamCheck) wait() error {
	c.ended.Do(func() { close(c.blocks) })
	<-c.done
	return c.err
}

// blockReader is the check's side of the queue.
type blockReader struct {
	ctx context.Context
	c   *streamCheck
	cur []byte
	off int
}

func (r *blockReader) Read(p []byte) (int, error) {
	for r.off == len(r.cur) {
		if r.cur != nil {
			select {
			case r.c.free <- r.cur:
			default:
			}
		}
		var ok bool
		select {
		case r.cur, ok = <-r.c.blocks:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
		if !ok {
			r.cur = nil
			return 0, io.EOF
		}
		r.off = 0
	}
	n := copy(p, r.cur[r.off:])
	r.off += n
	return n, nil
}

// checkedReader is what the store reads: the hooked file, every block of which is queued for
// the check. It ends with the check's error instead of io.EOF when the check fails, so that a
// malformed log fails the store's write.
type checkedReader struct {
	src   io.Reader
	check *streamCheck
}

func (r *checkedReader) Read(p []byte) (int, error) {
	if err := r.check.failed(); err != nil {
		return 0, err
	}
	n, err := r.src.Read(p)
	if n > 0 {
		r.check.send(p[:n])
	}
	if errors.Is(err, io.EOF) {
		if checkErr := r.check.wait(); checkErr != nil {
			return n, checkErr
		}
	}
	return n, err
}

// checkLog reads an audit log as the evaluator's reader does (auditlog.ScanWith with the default
// options), keeping nothing, and returns the error such a scan returns. A JSON-lines log is
// checked in blocks of whole lines on GOMAXPROCS goroutines: its lines are read independently
// of each other, and the error of the first bad block is the one a scan in order meets first.
func checkLog(r io.Reader, mediaType string) error {
	workers := runtime.GOMAXPROCS(0)
	if mediaType != store.MediaTypeK8sAuditEvents || workers == 1 {
		_, err := auditlog.ScanWith(r, mediaType, auditlog.Options{}, func(*auditlog.Entry) error { return nil })
		return err
	}
	c := &blockCheck{jobs: make(chan numberedBlock, workers), free: make(chan []byte, 2*workers+1), failedAt: -1}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(c.work)
	}
	c.read(auditlog.NewLineBlocks(r))
	close(c.jobs)
	wg.Wait()
	return c.err
}

// blockCheck is the state of checkLog on a JSON-lines log.
type blockCheck struct {
	jobs chan numberedBlock
	free chan []byte // block buffers the workers are done with

	mu       sync.Mutex
	failedAt int // the first block found bad, -1 while none is
	err      error
}

// numberedBlock is the seq-th block of a log.
type numberedBlock struct {
	seq int
	auditlog.LineBlock
}

// read hands the blocks to the workers until the log ends or a block is found bad; a failure
// of the reading itself counts as a bad block after the last one read.
func (c *blockCheck) read(blocks *auditlog.LineBlocks) {
	for seq := 0; !c.failedBefore(seq); seq++ {
		var buf []byte
		select {
		case buf = <-c.free:
		default:
			buf = make([]byte, 0, lineBlockSize)
		}
		blk, last, err := blocks.Next(buf)
		if err != nil {
			c.fail(seq, err)
			return
		}
		c.jobs <- numberedBlock{seq: seq, LineBlock: blk}
		if last {
			return
		}
	}
}

// lineBlockSize is the size of the blocks a JSON-lines log is checked in.
const lineBlockSize = 1 << 20

// work checks blocks, skipping those after a bad one.
func (c *blockCheck) work() {
	for job := range c.jobs {
		if !c.failedBefore(job.seq) {
			if err := job.Check(); err != nil {
				c.fail(job.seq, err)
			}
		}
		select {
		case c.free <- job.Data:
		default:
		}
	}
}

// failedBefore reports whether a block before seq was found bad.
func (c *blockCheck) failedBefore(seq int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failedAt >= 0 && c.failedAt < seq
}

// fail records the error of block seq, unless an earlier block's is recorded.
func (c *blockCheck) fail(seq int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failedAt < 0 || seq < c.failedAt {
		c.failedAt, c.err = seq, err
	}
}

// auditInputError turns an audit-log reader error into an InputError naming file and line.
func auditInputError(path, mediaType string, err error) error {
	form := "JSON lines of audit Events"
	if mediaType == store.MediaTypeK8sAuditEventList {
		form = "an audit EventList"
	}
	var syn *auditlog.SyntaxError
	if errors.As(err, &syn) {
		return &InputError{File: path, Line: syn.Line, Field: syn.Field, Msg: fmt.Sprintf("not %s: %s (byte %d)", form, syn.Msg, syn.Offset), Err: err}
	}
	return &InputError{File: path, Msg: "not " + form, Err: err}
}

// displayName is how a file given on the command line is named inside a bundle: its base
// name, so that where the file was stored never reaches a digest.
func displayName(path string) string { return filepath.Base(path) }
