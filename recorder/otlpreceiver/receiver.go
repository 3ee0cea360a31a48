package otlpreceiver

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// MaxBody bounds one request body as sent; once decompressed, a body is bounded by what the
// run's budget has left (Limits: at most MaxRunBytes). Larger bodies are refused with 413.
const MaxBody = 64 << 20

// Media types of OTLP/HTTP bodies.
const (
	Protobuf = "application/x-protobuf"
	JSON     = "application/json"
)

// Body is one received request body, decompressed.
type Body struct {
	Path      string
	MediaType string
}

// Config configures a receiver.
type Config struct {
	// Budget counts the run's spans against its limits; nil: a budget of its own under the
	// default limits. The caller adds the run's other span sources to the same budget.
	Budget *Budget
	// Space admits every byte spooled; nil measures dir's file system (freespace.Margin).
	Space *freespace.Guard
}

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	dir    string
	ln     net.Listener
	srv    *http.Server
	budget *Budget
	space  *freespace.Guard
	// one admits one body at a time: each is counted against what the budget has left once the
	// bodies before it were counted.
	one      sync.Mutex
	closed   bool // under one: Close returned, no body is taken any more
	mu       sync.Mutex
	bodies   []Body
	spoolErr error
	// next numbers the spool files; rejected counts requests refused (wrong method, type,
	// encoding, too large, past a limit).
	next, rejected int
}

// Received is what a receiver received, once closed.
type Received struct {
	// Bodies are the bodies kept, in arrival order.
	Bodies []Body
	// Rejected counts the requests refused.
	Rejected int
	// SpoolErr is the first body that could not be spooled (the file system full to its
	// margin, or failing): the run cannot be recorded whole.
	SpoolErr error
}

// Start listens on 127.0.0.1 on a free port and spools bodies into dir.
func Start(dir string, cfg Config) (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("otlpreceiver: %w", err)
	}
	if cfg.Budget == nil {
		cfg.Budget = NewBudget(Limits{})
	}
	if cfg.Space == nil {
		cfg.Space = freespace.New(dir, nil)
	}
	r := &Receiver{dir: dir, ln: ln, budget: cfg.Budget, space: cfg.Space}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Endpoint is the base URL for OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver and returns what it received.
func (r *Receiver) Close() Received {
	_ = r.srv.Close()
	r.one.Lock() // a body being spooled is finished (its connection closed) or refused
	defer r.one.Unlock()
	r.closed = true
	r.mu.Lock()
	defer r.mu.Unlock()
	return Received{Bodies: append([]Body(nil), r.bodies...), Rejected: r.rejected, SpoolErr: r.spoolErr}
}

func (r *Receiver) reject(w http.ResponseWriter, status int, msg string) {
	r.mu.Lock()
	r.rejected++
	r.mu.Unlock()
	http.Error(w, msg, status)
}

// errTooLarge is a body past MaxBody as sent, or past what the budget has left decompressed.
var errTooLarge = errors.New("body too large")

// ServeHTTP accepts POST /v1/traces.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" {
		r.reject(w, http.StatusNotFound, "only /v1/traces is received")
		return
	}
	if req.Method != http.MethodPost {
		r.reject(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if mt != Protobuf && mt != JSON {
		r.reject(w, http.StatusUnsupportedMediaType, "want application/x-protobuf or application/json")
		return
	}
	encoding := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding")))
	if encoding != "" && encoding != "identity" && encoding != "gzip" {
		r.reject(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q is not supported: send gzip or identity", encoding))
		return
	}
	r.one.Lock()
	defer r.one.Unlock()
	if r.closed {
		r.reject(w, http.StatusServiceUnavailable, "the run is over")
		return
	}
	if err := r.budget.Err(); err != nil {
		r.reject(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	}
	r.mu.Lock()
	r.next++
	path := filepath.Join(r.dir, fmt.Sprintf("otlp-%06d", r.next))
	r.mu.Unlock()
	left := r.budget.Left().Bytes
	n, err := spool(path, http.MaxBytesReader(w, req.Body, MaxBody), encoding == "gzip", left, r.space)
	switch {
	case errors.Is(err, errTooLarge) && n > left:
		err = r.budget.Add(Count{Bytes: n})
		r.reject(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	case errors.Is(err, errTooLarge):
		r.reject(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body too large: more than %d bytes as sent", MaxBody))
		return
	case errors.Is(err, errSpool):
		r.mu.Lock()
		if r.spoolErr == nil {
			r.spoolErr = err
		}
		r.mu.Unlock()
		status := http.StatusInternalServerError
		if errors.Is(err, freespace.ErrNoSpace) {
			status = http.StatusInsufficientStorage
		}
		http.Error(w, "cannot spool the body", status)
		return
	case err != nil:
		r.reject(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := r.admit(path, mt, n); err != nil {
		_ = os.Remove(path)
		r.reject(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, Body{Path: path, MediaType: mt})
	r.mu.Unlock()
	w.Header().Set("Content-Type", mt)
	if mt == JSON {
		_, _ = w.Write([]byte("{}"))
	}
}

// admit counts the spooled body at path (n bytes) against the budget: ErrLimit when it passes a
// limit.
func (r *Receiver) admit(path, mediaType string, n int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	format := FormatProtobuf
	if mediaType == JSON {
		format = FormatJSON
	}
	c, err := r.budget.count(f, format)
	c.Bytes = n
	if addErr := r.budget.Add(c); addErr != nil {
		return addErr
	}
	if errors.Is(err, ErrLimit) {
		r.budget.Fail(err)
		return err
	}
	return nil
}

// errSpool is a failure to write the spool file: the receiver's fault, not the body's.
var errSpool = errors.New("cannot spool")

// spool writes the body, decompressed when gzipped is set, to path, at most limit bytes of it
// (errTooLarge past it, with the bytes read), each write admitted by space; nothing is left at
// path when it fails.
func spool(path string, body io.Reader, gzipped bool, limit int64, space *freespace.Guard) (n int64, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errSpool, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%w: %v", errSpool, cerr)
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	src := body
	if gzipped {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return 0, readError("gzip body", err)
		}
		defer zr.Close()
		src = zr
	}
	n, err = io.Copy(space.Writer(f), io.LimitReader(src, limit+1))
	switch {
	case errors.Is(err, freespace.ErrNoSpace):
		return n, fmt.Errorf("%w: %w", errSpool, err)
	case err != nil:
		return n, readError("body", err)
	case n > limit:
		return n, errTooLarge
	}
	return n, nil
}

// readError classes an error met reading the body: too large, or a body that cannot be read
// (a gzip stream that is not one, or cut short).
func readError(what string, err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("%w: %v", errSpool, err)
	}
	return fmt.Errorf("%s: %v", what, err)
}
