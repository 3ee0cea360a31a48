// Package otlpreceiver is an OTLP/HTTP trace receiver for the duration of a recording: it
// listens on the loopback interface, accepts POST /v1/traces in the protobuf and JSON
// encodings, spools every body to a directory in arrival order, and answers with an empty
// export response. It decodes nothing: the bodies are evidence, read later by formats/otlp.
//
// # Content encodings
//
// Many exporters compress their bodies with gzip by default (OTLP/HTTP, "Content-Encoding:
// gzip"). A gzip body is decompressed as it arrives and the decompressed message is what is
// spooled: the compression is the transport's, like chunking, and the span source kept is the
// OTLP message itself. Decompression stops at MaxBody bytes (a body that would decompress to
// more is refused with 413, so a small zip bomb cannot fill the disk or the memory); any other
// encoding than gzip or identity is refused with 415, naming the encodings accepted.
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
)

// MaxBody bounds one request body, as sent and once decompressed; larger bodies are refused
// with 413 and counted as refused.
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

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	dir    string
	ln     net.Listener
	srv    *http.Server
	mu     sync.Mutex
	bodies []Body
	// next numbers the spool files; rejected counts requests refused (wrong method, type,
	// encoding, or too large).
	next, rejected int
}

// Start listens on 127.0.0.1 on a free port and spools bodies into dir.
func Start(dir string) (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("otlpreceiver: %w", err)
	}
	r := &Receiver{dir: dir, ln: ln}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Endpoint is the base URL for OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver and returns the bodies received, in arrival order, and how many
// requests were refused.
func (r *Receiver) Close() ([]Body, int) {
	_ = r.srv.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Body(nil), r.bodies...), r.rejected
}

func (r *Receiver) reject(w http.ResponseWriter, status int, msg string) {
	r.mu.Lock()
	r.rejected++
	r.mu.Unlock()
	http.Error(w, msg, status)
}

// errTooLarge is a body past MaxBody, as sent or decompressed.
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
	r.mu.Lock()
	r.next++
	path := filepath.Join(r.dir, fmt.Sprintf("otlp-%06d", r.next))
	r.mu.Unlock()
	switch err := spool(path, http.MaxBytesReader(w, req.Body, MaxBody), encoding == "gzip"); {
	case errors.Is(err, errTooLarge):
		r.reject(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body too large: more than %d bytes as sent or decompressed", MaxBody))
		return
	case errors.Is(err, errSpool):
		http.Error(w, "cannot spool the body", http.StatusInternalServerError)
		return
	case err != nil:
		r.reject(w, http.StatusBadRequest, err.Error())
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

// errSpool is a failure to write the spool file: the receiver's fault, not the body's.
var errSpool = errors.New("cannot spool")

// spool writes the body, decompressed when gzipped is set, to path, at most MaxBody bytes of
// it; nothing is left at path when it fails.
func spool(path string, body io.Reader, gzipped bool) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %v", errSpool, err)
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
			return readError("gzip body", err)
		}
		defer zr.Close()
		src = zr
	}
	n, err := io.Copy(f, io.LimitReader(src, MaxBody+1))
	switch {
	case err != nil:
		return readError("body", err)
	case n > MaxBody:
		return errTooLarge
	}
	return nil
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
