package provider

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/formats/httpexchange"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Sentinel errors of Load.
var (
	// ErrNoExchanges: the bundle holds no recorded exchange (it was not recorded live).
	ErrNoExchanges = errclass.New(errclass.Input, "provider: the bundle holds no recorded exchanges")
	// ErrTooLarge: the bundle's exchanges exceed Options.MaxMemory.
	ErrTooLarge = errclass.New(errclass.Input, "provider: the bundle's exchanges exceed the memory limit")
)

// DefaultMaxMemory bounds the exchanges a server holds when Options.MaxMemory is not set.
const DefaultMaxMemory = 1 << 30

// Options shape a server.
type Options struct {
	// MaxMemory bounds the total size of the bundle's exchanges, as stored
	// (DefaultMaxMemory when ≤ 0).
	MaxMemory int64
	// Log, when set, receives one line for every call no recorded exchange answers, one call
	// at a time.
	Log io.Writer
}

// Store is what Load reads: the manifest and the exchange blobs.
type Store interface {
	store.ObjectGetter
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Server answers a runner's calls from the exchanges of one bundle. It is safe for concurrent
// use.
type Server struct {
	bundle     store.Digest
	sequences  map[matchKey]*sequence
	recorded   map[string][]*answer // by side, in manifest order: the requests errors list
	maxRequest int64                // the largest recorded request body
	log        io.Writer

	mu    sync.Mutex
	stats Stats
}

// Stats count what a server answered.
type Stats struct {
	// Exchanges are the recorded exchanges by side.
	Exchanges map[string]int
	// Answered calls got a recorded answer (Repeated of them one already given), Failed a 502
	// for an exchange that cannot be replayed, Refused a 404.
	Answered, Repeated, Failed, Refused int
}

// matchKey is what makes two requests equal (doc.go, Matching).
type matchKey struct {
	side, method, target string
	body                 [sha256.Size]byte
}

// sequence is the recorded answers to one request, in manifest order; next is the one the
// next call gets.
type sequence struct {
	answers []*answer
	next    int
}

// answer is one recorded exchange as the server replays it.
type answer struct {
	source         string // the manifest path
	side           string
	method, target string
	requestStart   string // the beginning of the request body, for errors
	status         int
	header         http.Header
	length         bool // the answer had a Content-Length (else it was chunked)
	body           []byte
	problem        string // why it cannot be replayed (a 502), or ""
}

// Load reads the exchanges of bundle from s. The server needs s no more once it returns.
func Load(ctx context.Context, s Store, bundle store.Digest, opts Options) (*Server, error) {
	m, err := store.LoadManifest(ctx, s, bundle)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxMemory
	if limit <= 0 {
		limit = DefaultMaxMemory
	}
	sources, err := recordedOrder(ctx, s, m)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, src := range sources {
		total += src.Blob.Size
	}
	switch {
	case len(sources) == 0:
		return nil, fmt.Errorf("%w: bundle %s (recorded by %q); serve provider replays bundles of record proxy", ErrNoExchanges, bundle, m.Recorder.Source)
	case total > limit:
		return nil, fmt.Errorf("%w: bundle %s: %d exchanges of %d bytes, more than the limit of %d bytes", ErrTooLarge, bundle, len(sources), total, limit)
	}
	srv := &Server{bundle: bundle, sequences: map[matchKey]*sequence{}, recorded: map[string][]*answer{}, log: opts.Log,
		stats: Stats{Exchanges: map[string]int{}}}
	for _, src := range sources {
		a, key, size, err := loadAnswer(ctx, s, src, limit)
		if err != nil {
			return nil, err
		}
		seq := srv.sequences[key]
		if seq == nil {
			seq = &sequence{}
			srv.sequences[key] = seq
		}
		seq.answers = append(seq.answers, a)
		srv.recorded[a.side] = append(srv.recorded[a.side], a)
		srv.maxRequest = max(srv.maxRequest, size)
		srv.stats.Exchanges[a.side]++
	}
	return srv, nil
}

// recordedOrder lists the bundle's exchanges in the order they were recorded: the order of
// arrival its wire log keeps (store.WireLog), or the manifest's order for a bundle without
// one.
func recordedOrder(ctx context.Context, s store.ObjectGetter, m *store.RunManifest) ([]store.SourceFile, error) {
	var sources []store.SourceFile
	for _, src := range m.Sources {
		if src.Blob.MediaType == store.MediaTypeHTTPExchange {
			sources = append(sources, src)
		}
	}
	wl, err := store.LoadWireLog(ctx, s, m)
	if err != nil || wl == nil {
		return sources, err
	}
	seq := map[string]int{}
	for _, c := range wl.Calls {
		seq[c.Source] = c.Seq
	}
	// Exchanges the wire log does not name keep their manifest order, after the others.
	slices.SortStableFunc(sources, func(a, b store.SourceFile) int {
		return cmp.Compare(orderOf(seq, a.Path), orderOf(seq, b.Path))
	})
	return sources, nil
}

func orderOf(seq map[string]int, path string) int {
	if n, ok := seq[path]; ok {
		return n
	}
	return math.MaxInt
}

// loadAnswer reads one exchange: its answer, its match key and the size of its request body.
func loadAnswer(ctx context.Context, s Store, src store.SourceFile, limit int64) (*answer, matchKey, int64, error) {
	name := src.Path + " (" + src.Blob.Digest.String() + ")"
	data, err := readBlob(ctx, s, src.Blob.Digest, name, limit)
	if err != nil {
		return nil, matchKey{}, 0, err
	}
	ex, err := httpexchange.Read(name, data, httpexchange.Limits{MaxBytes: limit})
	if err != nil {
		return nil, matchKey{}, 0, err
	}
	reqBody, err := ex.Request.BodyBytes()
	if err != nil {
		return nil, matchKey{}, 0, err
	}
	a := &answer{source: src.Path, side: ex.Side, method: ex.Request.Method, target: ex.Request.Target, requestStart: bodyStart(reqBody)}
	switch resp := ex.Response; {
	case ex.Error != "":
		a.problem = fmt.Sprintf("the recorded %s call failed: %s", ex.Side, ex.Error)
	case resp.Truncated:
		a.problem = "its recorded answer was truncated at the recording limit, so it cannot be replayed byte for byte"
	default:
		a.status, a.header, a.length = resp.Status, replayedHeader(resp.Headers), hasHeader(resp.Headers, "Content-Length")
		if a.body, err = resp.BodyBytes(); err != nil {
			return nil, matchKey{}, 0, err
		}
	}
	key := matchKey{side: ex.Side, method: ex.Request.Method, target: ex.Request.Target, body: bodyKey(reqBody)}
	return a, key, int64(len(reqBody)), nil
}

func readBlob(ctx context.Context, s Store, d store.Digest, name string, limit int64) ([]byte, error) {
	rc, _, err := s.OpenBlob(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

// replayedHeader is a recorded answer's header as replayed: less hop-by-hop ones and
// Content-Length, which the server sets from the body it sends (see answerLength); no Date is
// added.
func replayedHeader(pairs [][2]string) http.Header {
	h := http.Header{"Date": nil}
	for _, p := range pairs {
		if httpexchange.HopByHop(p[0]) || http.CanonicalHeaderKey(p[0]) == "Content-Length" {
			continue
		}
		h[p[0]] = append(h[p[0]], p[1])
	}
	return h
}

func hasHeader(pairs [][2]string, name string) bool {
	return slices.ContainsFunc(pairs, func(p [2]string) bool { return http.CanonicalHeaderKey(p[0]) == name })
}

// bodyKey is the digest under which a request body is matched: of its RFC 8785 canonical form
// when it is JSON the canonical encoder can write, else of its bytes. Equal bytes always give
// the same key, and so do JSON bodies equal but for member order and whitespace.
func bodyKey(b []byte) [sha256.Size]byte {
	if n, err := doc.ParseJSON("request body", b, doc.Limits{MaxBytes: int64(len(b)) + 1, MaxStringBytes: len(b) + 1}); err == nil {
		if c, err := doc.Canonical(n); err == nil {
			return sha256.Sum256(append([]byte("json\x00"), c...))
		}
	}
	return sha256.Sum256(append([]byte("bytes\x00"), b...))
}

// bodyStart is the beginning of a request body as an error shows it.
func bodyStart(b []byte) string {
	const show = 160
	switch {
	case !utf8.Valid(b):
		return strconv.Itoa(len(b)) + " bytes, not text"
	case len(b) <= show:
		return string(b)
	}
	cut := show
	for !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// Bundle is the digest of the bundle the server replays.
func (s *Server) Bundle() store.Digest { return s.bundle }

// Stats returns what the server answered so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Exchanges = maps.Clone(s.stats.Exchanges)
	return st
}

// ProviderHandler answers the runner's calls to the provider.
func (s *Server) ProviderHandler() http.Handler { return s.handler(store.SideProvider) }

// AgentHandler answers the runner's calls to the agent adapter.
func (s *Server) AgentHandler() http.Handler { return s.handler(store.SideAgent) }
