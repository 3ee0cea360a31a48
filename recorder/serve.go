package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/journal"
)

// Defaults of LiveOptions.
const (
	// DefaultIdle is how long a live recording waits without any request before it stops.
	DefaultIdle = 30 * time.Second
	// DefaultGrace is how long a stopping recording lets exchanges in flight finish before
	// it cuts them.
	DefaultGrace = 10 * time.Second
	// DefaultMaxExchanges is how many exchanges the proxy serves at once; more wait for a
	// slot.
	DefaultMaxExchanges = 16
	// DefaultWebhookExchanges is how many POSTs the webhook reads at once: each holds up to
	// one audit event in memory while it is checked.
	DefaultWebhookExchanges = 4
	// DefaultHeaderTimeout bounds the reading of a request's line and headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyIdleTimeout is the longest a request body may pause, and the longest the
	// client may take to accept a piece of the response.
	DefaultBodyIdleTimeout = 30 * time.Second
	// DefaultRequestTimeout bounds the reading of a whole request body, however steadily it
	// trickles in.
	DefaultRequestTimeout = 2 * time.Minute
)

// LiveOptions are the options every live recording (proxy, webhook) takes.
type LiveOptions struct {
	// Journals is the directory the recording's journal is created in (Journals/<id>/).
	// Required.
	Journals string
	// Idle stops the recording when no request has been in flight for this long.
	Idle time.Duration
	// Grace is how long exchanges in flight may finish once the recording stops; those still
	// running are then cut, reported, and not sealed.
	Grace time.Duration
	// MaxExchanges caps the exchanges served at once (the webhook's POSTs read at once).
	MaxExchanges int
	// HeaderTimeout, BodyIdleTimeout and RequestTimeout time out slow clients: the request
	// line and headers, a pause in a body (or in taking the response), and a whole request.
	HeaderTimeout, BodyIdleTimeout, RequestTimeout time.Duration
}

func (o LiveOptions) resolved(maxExchanges int) (LiveOptions, error) {
	if o.Journals == "" {
		return o, fmt.Errorf("%w: no directory for the recording's journal", ErrOptions)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Idle, DefaultIdle)
	def(&o.Grace, DefaultGrace)
	def(&o.HeaderTimeout, DefaultHeaderTimeout)
	def(&o.BodyIdleTimeout, DefaultBodyIdleTimeout)
	def(&o.RequestTimeout, DefaultRequestTimeout)
	if o.MaxExchanges <= 0 {
		o.MaxExchanges = maxExchanges
	}
	return o, nil
}

// live is what the proxy and the webhook share while they record: the journal, the exchange
// slots, the activity that decides when the recording is idle, and the stop.
type live struct {
	opts  LiveOptions
	w     *journal.Writer
	act   *activity
	slots chan struct{}

	stopping chan struct{} // closed when the recording stops taking exchanges
	stopOnce sync.Once

	mu       sync.Mutex
	next     uint64                   // number of the next exchange
	inFlight map[uint64]*liveExchange // exchanges begun and not finished
	cut      bool                     // exchanges in flight were cut
	failed   chan struct{}            // closed on the first journal error
	failErr  error
	finished *journal.Journal // the journal once writing ended
	sealed   bool             // Seal or Close was called
}

// startLive creates the journal and writes what sealing it needs first: the header and the
// profile's files, synced.
func startLive(ctx context.Context, opts LiveOptions, h *liveHeader, profile *Profile) (*live, error) {
	files, err := profile.profileFiles(ctx)
	if err != nil {
		return nil, err
	}
	w, err := journal.Create(opts.Journals)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(h)
	if err == nil {
		_, err = w.Append(recHeader, head)
	}
	for _, e := range profile.Tree.Entries {
		if err == nil {
			_, err = w.Append(recFile, fileRecord(e.Path, files[e.Path])...)
		}
	}
	if err == nil {
		err = w.Sync()
	}
	if err != nil {
		w.Abandon()
		if j, openErr := journal.Open(w.Dir()); openErr == nil {
			j.Remove()
		}
		return nil, err
	}
	return &live{opts: opts, w: w, act: newActivity(), slots: make(chan struct{}, opts.MaxExchanges),
		stopping: make(chan struct{}), inFlight: map[uint64]*liveExchange{}, failed: make(chan struct{})}, nil
}

// liveExchange is one exchange being journaled.
type liveExchange struct {
	l        *live
	id       uint64
	rc       *http.ResponseController
	ctx      context.Context // the exchange's upstream work; cancelled when it is cut
	cancel   context.CancelFunc
	deadline time.Time // when the request must have arrived
	done     bool
	cut      atomic.Bool // cut when the recording stopped
}

// wasCut reports whether the recording's stop cut the exchange.
func (x *liveExchange) wasCut() bool { return x.cut.Load() }

// enter admits a request: it waits for a free slot (while the recording runs) and returns
// the exchange, journaled as begun with head, and a func that ends it. ok is false when the
// recording stopped or the client went away before a slot freed: nothing was journaled.
func (l *live) enter(rw http.ResponseWriter, req *http.Request, head any) (x *liveExchange, leave func(), ok bool) {
	done, ok := l.act.begin()
	if !ok {
		return nil, nil, false
	}
	select {
	case l.slots <- struct{}{}:
	case <-l.stopping:
		done()
		return nil, nil, false
	case <-req.Context().Done():
		done()
		return nil, nil, false
	}
	release := func() { <-l.slots; done() }
	select {
	case <-l.stopping: // both were ready: stopping wins
		release()
		return nil, nil, false
	default:
	}
	ctx, cancel := context.WithCancel(req.Context())
	l.mu.Lock()
	x = &liveExchange{l: l, id: l.next, rc: http.NewResponseController(rw), ctx: ctx, cancel: cancel,
		deadline: time.Now().Add(l.opts.RequestTimeout)}
	l.next++
	l.inFlight[x.id] = x
	cutAlready := l.cut
	l.mu.Unlock()
	leave = func() {
		l.mu.Lock()
		delete(l.inFlight, x.id)
		l.mu.Unlock()
		cancel()
		release()
	}
	if cutAlready {
		leave()
		return nil, nil, false
	}
	if err := x.record(recBegin, head); err != nil {
		leave()
		return nil, nil, false
	}
	return x, leave, true
}

// record journals one record of the exchange.
func (x *liveExchange) record(t journal.Type, v any) error {
	p, err := exchangeRecord(x.id, v)
	if err != nil {
		return err
	}
	if _, err := x.l.w.Append(t, p); err != nil {
		x.l.fail(err)
		return err
	}
	return nil
}

// end journals the exchange as complete and syncs the journal: from now on the exchange is
// sealed whatever happens to the process.
func (x *liveExchange) end(v any) error {
	if err := x.record(recEnd, v); err != nil {
		return err
	}
	x.done = true
	if err := x.l.w.Sync(); err != nil {
		x.l.fail(err)
		return err
	}
	return nil
}

// cutShort journals why the exchange stops here without being complete.
func (x *liveExchange) cutShort(reason string) {
	if !x.done {
		x.done = true
		_ = x.record(recCut, reason)
	}
}

// fail notes the first journal error: the recording stops.
func (l *live) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failErr == nil {
		l.failErr = err
		close(l.failed)
	}
}

// journalErr is the error that broke the journal, if any.
func (l *live) journalErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failErr
}

// bodyIn reads a request body within the slow-client timeouts: each read must bring bytes
// within BodyIdleTimeout, and the whole body must be in by the exchange's request deadline.
func (x *liveExchange) bodyIn(body io.Reader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		dl := time.Now().Add(x.l.opts.BodyIdleTimeout)
		if x.deadline.Before(dl) {
			dl = x.deadline
		}
		_ = x.rc.SetReadDeadline(dl)
		return body.Read(p)
	})
}

// bodyDone lifts the read deadline once the body is in: the server watches the connection
// for a close while the handler runs, and a deadline would read as one.
func (x *liveExchange) bodyDone() { _ = x.rc.SetReadDeadline(time.Time{}) }

// writeOut writes a piece of the response, which the client must take within
// BodyIdleTimeout.
func (x *liveExchange) writeOut(rw http.ResponseWriter, p []byte) error {
	_ = x.rc.SetWriteDeadline(time.Now().Add(x.l.opts.BodyIdleTimeout))
	_, err := rw.Write(p)
	return err
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// readProblem names why a request body could not be read, for the cut record.
func readProblem(err error) string {
	var maxErr *http.MaxBytesError
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "the request body did not arrive in time"
	case errors.As(err, &maxErr):
		return "the request body is larger than the limit"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the client closed the connection before the body was whole"
	}
	return "the request body cannot be read: " + upstreamError(err)
}

// stop makes the recording refuse new exchanges (503) and wakes those waiting for a slot.
func (l *live) stop() { l.stopOnce.Do(func() { close(l.stopping) }) }

// cutInFlight cuts every exchange in flight: their connections' deadlines pass at once and
// their upstream calls are cancelled, so their handlers return promptly.
func (l *live) cutInFlight() {
	l.mu.Lock()
	l.cut = true
	list := make([]*liveExchange, 0, len(l.inFlight))
	for _, x := range l.inFlight {
		list = append(list, x)
	}
	l.mu.Unlock()
	past := time.Unix(1, 0)
	for _, x := range list {
		x.cut.Store(true)
		_ = x.rc.SetReadDeadline(past)
		_ = x.rc.SetWriteDeadline(past)
		x.cancel()
	}
}

// finish stops the recording, lets exchanges in flight finish within the grace period, cuts
// the rest, and ends the journal's writing. It is idempotent.
func (l *live) finish() *journal.Journal {
	l.stop()
	done := make(chan struct{})
	go func() { l.act.closeAndWait(); close(done) }()
	grace := time.NewTimer(l.opts.Grace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		l.cutInFlight()
		<-done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.finished == nil {
		l.finished = l.w.Finish()
	}
	return l.finished
}

// seal stops the recording if it still runs, seals the journal into s and removes it; if
// sealing fails, the journal stays on disk for RecoverJournal.
func (l *live) seal(ctx context.Context, s Store, opts SealOptions) (*Sealed, error) {
	if err := l.markSealed(); err != nil {
		return nil, err
	}
	return sealFinished(ctx, s, l.finish(), opts)
}

// close stops the recording without sealing it: the journal stays on disk.
func (l *live) close() error {
	if err := l.markSealed(); err != nil {
		return nil
	}
	return l.finish().Close()
}

func (l *live) markSealed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sealed {
		return ErrClosed
	}
	l.sealed = true
	return nil
}

// serve serves each handler on its listener until ctx is done (SIGINT, SIGTERM), no request
// has been in flight for the idle timeout, a listener fails or the journal fails; then it
// stops accepting, lets exchanges in flight finish (at most the grace period), cuts the rest
// and returns. Connections are capped at four per exchange slot, so that clients waiting for
// a slot cost a socket each, no more.
func (l *live) serve(ctx context.Context, servers map[net.Listener]http.Handler) error {
	failed := make(chan error, len(servers))
	var running []*http.Server
	for ln, h := range servers {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: l.opts.HeaderTimeout, IdleTimeout: l.opts.Idle,
			MaxHeaderBytes: 256 << 10, ErrorLog: discardLog}
		running = append(running, srv)
		limited := newLimitListener(ln, 4*l.opts.MaxExchanges)
		go func() {
			if err := srv.Serve(limited); err != nil && !errors.Is(err, http.ErrServerClosed) {
				failed <- err
			}
		}()
	}
	tick := time.NewTicker(min(max(l.opts.Idle/10, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err = <-failed:
			break loop
		case <-l.failed:
			err = l.journalErr()
			break loop
		case <-tick.C:
			if l.act.idleFor() >= l.opts.Idle {
				break loop
			}
		}
	}
	l.stop()
	closing, stopClosing := context.WithCancel(context.Background())
	var shut sync.WaitGroup
	for _, srv := range running {
		shut.Go(func() { _ = srv.Shutdown(closing) }) // closes the listeners and idle connections now
	}
	l.finish()
	stopClosing()
	for _, srv := range running {
		_ = srv.Close()
	}
	shut.Wait()
	return err
}

// activity tracks requests of a live recording, for the idle timeout and the stop. Its clock
// decides only when a recording stops, never what a bundle contains.
type activity struct {
	mu       sync.Mutex
	inFlight int
	last     time.Time
	closed   bool // no request is admitted any more
	wg       sync.WaitGroup
}

func newActivity() *activity { return &activity{last: time.Now()} }

// begin marks a request in flight and returns the func that marks it done; ok is false once
// the activity is closed (so that no Add of the wait group races its Wait).
func (a *activity) begin() (done func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, false
	}
	a.inFlight++
	a.wg.Add(1)
	return func() {
		a.mu.Lock()
		a.inFlight--
		a.last = time.Now()
		a.mu.Unlock()
		a.wg.Done()
	}, true
}

// idleFor is how long no request has been in flight.
func (a *activity) idleFor() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 {
		return 0
	}
	return time.Since(a.last)
}

// closeAndWait admits no more requests and waits for those in flight.
func (a *activity) closeAndWait() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.wg.Wait()
}

// limitListener accepts at most n connections at a time; further clients wait in the
// kernel's accept queue.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func newLimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// discardLog swallows the HTTP server's own log lines (a client that hung up, a bad request
// line): a recorder reports what it records, not its clients' manners.
var discardLog = log.New(io.Discard, "", 0)
