package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultMaxProxyBody is the recording limit of one request or response body. Responses are
// forwarded whole whatever their size; beyond the limit only the beginning is recorded.
const DefaultMaxProxyBody = 64 << 20

// DefaultMaxRead is the largest answer the proxy reads (parses) when it seals: larger answers
// are recorded whole in their exchange, with a finding, but not interpreted. It bounds the
// memory sealing takes (DESIGN §7: a live recording stays within 64 MiB whatever the body
// sizes).
const DefaultMaxRead = 4 << 20

// Proxy sides.
const (
	sideProvider = store.SideProvider
	sideAgent    = store.SideAgent
)

// ProxyOptions are the options of a proxy recording.
type ProxyOptions struct {
	Options
	LiveOptions
	// Provider and Agent are the base URLs of the real environment provider and agent adapter.
	Provider, Agent string
	// MaxBody is the recording limit of one body (DefaultMaxProxyBody when ≤ 0). A request body
	// beyond it is refused with 413; a response body beyond it is forwarded whole, recorded
	// truncated, and not read.
	MaxBody int64
	// MaxRead is the largest request or answer read when sealing (DefaultMaxRead when ≤ 0).
	MaxRead int64
	// Tier is the claimed tier; 0 takes the tier of the runner's provision requests.
	Tier int
	// Timestamp is when the run happened (RFC 3339), if known.
	Timestamp string
	// Transport reaches the upstreams; nil is a transport without compression, environment
	// proxies or timeouts of its own (the runner's timeouts apply: cancelling a request to the
	// proxy cancels the upstream call).
	Transport http.RoundTripper
}

// Proxy records the OASIS wire traffic of a live run: the runner talks to two loopback
// listeners, which forward every call to the real provider and agent adapter and return each
// response unchanged. Every exchange is journaled as it passes (see doc.go, Live recording);
// Seal turns the journal into a bundle.
type Proxy struct {
	l        *live
	opts     ProxyOptions
	upstream map[string]*url.URL
	client   *http.Client
}

// NewProxy checks the options and starts the recording's journal in opts.Journals. The store
// is not needed until Seal.
func NewProxy(ctx context.Context, opts ProxyOptions) (*Proxy, error) {
	if err := checkOptions(opts.Options); err != nil {
		return nil, err
	}
	p := &Proxy{opts: opts, upstream: map[string]*url.URL{}}
	for side, raw := range map[string]string{sideProvider: opts.Provider, sideAgent: opts.Agent} {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: %s URL %q is not an http(s) URL", ErrOptions, side, raw)
		}
		p.upstream[side] = u
	}
	if opts.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err != nil {
			return nil, fmt.Errorf("%w: timestamp %q is not RFC 3339", ErrOptions, opts.Timestamp)
		}
	}
	if p.opts.MaxBody <= 0 {
		p.opts.MaxBody = DefaultMaxProxyBody
	}
	if p.opts.MaxRead <= 0 {
		p.opts.MaxRead = DefaultMaxRead
	}
	lo, err := opts.LiveOptions.resolved(DefaultMaxExchanges)
	if err != nil {
		return nil, err
	}
	transport := opts.Transport
	if transport == nil {
		transport = &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: lo.MaxExchanges, IdleConnTimeout: 90 * time.Second}
	}
	p.client = &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	h := &liveHeader{Format: journalFormat, Source: SourceProxy, Version: opts.version(), Tags: opts.Tags,
		Profile: opts.Profile.Pin.Ref(), Redaction: pinRedaction(opts.Redactor),
		Proxy: &proxySettings{MaxBody: p.opts.MaxBody, MaxRead: p.opts.MaxRead, Tier: opts.Tier, Timestamp: opts.Timestamp}}
	if p.l, err = startLive(ctx, lo, h, opts.Profile); err != nil {
		return nil, err
	}
	return p, nil
}

// Journal is the directory of the recording's journal.
func (p *Proxy) Journal() string { return p.l.w.Dir() }

// ProviderHandler serves the runner's calls to the provider.
func (p *Proxy) ProviderHandler() http.Handler { return p.handler(sideProvider) }

// AgentHandler serves the runner's calls to the agent adapter.
func (p *Proxy) AgentHandler() http.Handler { return p.handler(sideAgent) }

// Serve runs both listeners until ctx is done (SIGINT, SIGTERM), no request has been in
// flight for the idle timeout, or the journal fails; exchanges still running after the grace
// period are cut. The recording is then ready to Seal. A failed listener or journal is
// returned; what the journal holds can still be sealed.
func (p *Proxy) Serve(ctx context.Context, provider, agent net.Listener) error {
	return p.l.serve(ctx, map[net.Listener]http.Handler{provider: p.ProviderHandler(), agent: p.AgentHandler()})
}

// Seal stops the recording if it still runs (later calls get 503; calls in flight finish
// within the grace period or are cut), seals the journal into s and removes the journal. If
// sealing fails, the journal stays on disk for RecoverJournal.
func (p *Proxy) Seal(ctx context.Context, s Store) (*Sealed, error) {
	return p.l.seal(ctx, s, SealOptions{Redactor: p.opts.Redactor, Hooks: p.opts.Hooks, Verdicts: p.opts.Verdicts})
}

// Close stops the recording without sealing it: the journal stays on disk for
// RecoverJournal.
func (p *Proxy) Close() error { return p.l.close() }

func (p *Proxy) handler(side string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		head := capturedHead{Side: side, Method: req.Method, Target: req.URL.RequestURI(), Headers: headerPairs(req.Header)}
		x, leave, ok := p.l.enter(rw, req, head)
		if !ok {
			http.Error(rw, "oasis-replay proxy: the recording is closed", http.StatusServiceUnavailable)
			return
		}
		defer leave()
		p.exchange(x, side, rw, req)
	})
}

// exchange journals and forwards one call: the request body is journaled whole before it is
// forwarded (it is forwarded from the journal), then the response streams back to the runner
// while it is journaled. The exchange is journaled complete before the last piece of the
// response reaches the runner, so a runner that got a whole answer always finds its exchange
// in the recording.
func (p *Proxy) exchange(x *liveExchange, side string, rw http.ResponseWriter, req *http.Request) {
	body := x.bodyRecorder(partRequest, p.opts.MaxBody)
	defer body.release()
	_, err := io.Copy(body, io.LimitReader(x.bodyIn(req.Body), p.opts.MaxBody+1))
	x.bodyDone()
	if err == nil {
		err = body.Flush()
	}
	if err != nil {
		p.refuse(x, rw, err)
		return
	}
	if err := x.record(recArrived, capturedArrival{Size: body.size, Truncated: body.truncated}); err != nil {
		p.refuse(x, rw, err)
		return
	}
	if body.truncated {
		if x.end(capturedEnd{Error: errTooLargeToForward}) == nil {
			http.Error(rw, fmt.Sprintf("oasis-replay proxy: request body larger than the recording limit of %d bytes", p.opts.MaxBody), http.StatusRequestEntityTooLarge)
		}
		return
	}
	in := &journalBody{records: body.records, size: body.size}
	resp, err := p.forward(x, side, req, in)
	if err != nil {
		if x.wasCut() {
			x.cutShort("cut when the recording stopped, waiting for the upstream")
			abortCall()
		}
		failure := upstreamError(err)
		if x.end(capturedEnd{Error: failure}) == nil {
			http.Error(rw, "oasis-replay proxy: upstream "+side+": "+failure, http.StatusBadGateway)
		}
		return
	}
	defer resp.Body.Close()
	if err := x.record(recResponse, capturedResponse{Status: resp.StatusCode, Headers: headerPairs(resp.Header)}); err != nil {
		p.refuse(x, rw, err)
		return
	}
	for name, values := range resp.Header {
		if !slices.Contains(hopHeaders, http.CanonicalHeaderKey(name)) {
			rw.Header()[name] = values
		}
	}
	rw.WriteHeader(resp.StatusCode)
	p.relay(x, rw, resp.Body)
}

// abortCall drops the runner's connection without an answer. A cut call must not look
// answered: returning from the handler would let net/http send an empty 200 (or end a
// chunked body cleanly), which a runner would take as the upstream's answer.
func abortCall() {
	panic(http.ErrAbortHandler)
}

// errTooLargeToForward is the failure recorded for a request body beyond the recording limit.
const errTooLargeToForward = "request body larger than the recording limit; not forwarded"

// refuse answers a call that cannot be recorded: a request that did not arrive whole (cut,
// nothing forwarded) or a journal that failed.
func (p *Proxy) refuse(x *liveExchange, rw http.ResponseWriter, err error) {
	if jerr := p.l.journalErr(); jerr != nil {
		http.Error(rw, "oasis-replay proxy: the recording failed: "+jerr.Error(), http.StatusServiceUnavailable)
		return
	}
	reason := readProblem(err)
	x.cutShort(reason)
	status := http.StatusBadRequest
	if errors.Is(err, os.ErrDeadlineExceeded) {
		status = http.StatusRequestTimeout
	}
	http.Error(rw, "oasis-replay proxy: "+reason, status)
}

// relay streams the response to the runner while journaling it (up to the recording limit),
// holding back the last piece until the exchange is journaled complete.
func (p *Proxy) relay(x *liveExchange, rw http.ResponseWriter, upstream io.Reader) {
	rec := x.bodyRecorder(partResponse, p.opts.MaxBody)
	defer rec.release()
	cur, held := getBuf(), getBuf()
	defer putBuf(cur)
	defer putBuf(held)
	heldLen, clientGone := -1, false
	var failure string
	for {
		n, err := upstream.Read(*cur)
		if n > 0 {
			if _, jerr := rec.Write((*cur)[:n]); jerr != nil {
				return // the journal failed: the recording stops, and the call is not answered
			}
			if heldLen >= 0 && !clientGone {
				clientGone = x.writeOut(rw, (*held)[:heldLen]) != nil
			}
			cur, held, heldLen = held, cur, n
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			failure = upstreamError(err)
			break
		}
	}
	if x.wasCut() {
		x.cutShort("cut when the recording stopped, in the middle of the response")
		abortCall()
	}
	if rec.Flush() != nil || x.end(capturedEnd{Error: failure, Size: rec.size, Truncated: rec.truncated}) != nil {
		return
	}
	if heldLen >= 0 && !clientGone {
		_ = x.writeOut(rw, (*held)[:heldLen])
	}
}

// forward sends the call upstream: same method, path, query, headers (less hop-by-hop ones
// and Accept-Encoding, so that bodies come back readable) and body, read from the journal.
func (p *Proxy) forward(x *liveExchange, side string, req *http.Request, body *journalBody) (*http.Response, error) {
	base := p.upstream[side]
	target := *base
	target.Path = upstreamPath(base.Path, req.URL.Path)
	target.RawPath = ""
	target.RawQuery = req.URL.RawQuery
	var rd io.Reader = http.NoBody
	if body.size > 0 {
		rd = body.reader(p.l.w)
	}
	out, err := http.NewRequestWithContext(x.ctx, req.Method, target.String(), rd)
	if err != nil {
		return nil, err
	}
	out.ContentLength = body.size
	for name, values := range req.Header {
		c := http.CanonicalHeaderKey(name)
		if !slices.Contains(hopHeaders, c) && c != "Accept-Encoding" {
			out.Header[name] = values
		}
	}
	return p.client.Do(out)
}

// upstreamPath maps a path the runner called on the proxy to the upstream's: "/" is the
// upstream base URL itself (the runner POSTs tasks to the agent URL as configured), anything
// else is appended to the base path.
func upstreamPath(base, path string) string {
	if path == "/" || path == "" {
		if base == "" {
			return "/"
		}
		return base
	}
	return strings.TrimSuffix(base, "/") + path
}

// checkOptions checks the options every source takes, as newRecording does, for the live
// sources, which start before any store is open.
func checkOptions(opts Options) error {
	_, err := newRecording(nil, opts, "")
	return err
}
