// Package otlpreceiver is an OTLP/HTTP trace receiver for the duration of a recording: it
// listens on the loopback interface, accepts POST /v1/traces in the protobuf and JSON
// encodings, spools every body byte-exact to a directory in arrival order, and answers with an
// empty export response. It decodes nothing: the bodies are evidence, read later by
// formats/otlp.
package otlpreceiver

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MaxBody bounds one request body; larger bodies are refused with 413 and recorded as such.
const MaxBody = 64 << 20

// Media types of OTLP/HTTP bodies.
const (
	Protobuf = "application/x-protobuf"
	JSON     = "application/json"
)

// Body is one received request body.
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
	// Rejected counts requests refused (wrong method, type, or too large).
	rejected int
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
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		r.reject(w, http.StatusRequestEntityTooLarge, "body too large")
		return
	}
	if err != nil {
		r.reject(w, http.StatusBadRequest, err.Error())
		return
	}
	r.mu.Lock()
	path := filepath.Join(r.dir, fmt.Sprintf("otlp-%06d", len(r.bodies)+1))
	err = os.WriteFile(path, body, 0o600)
	if err == nil {
		r.bodies = append(r.bodies, Body{Path: path, MediaType: mt})
	}
	r.mu.Unlock()
	if err != nil {
		http.Error(w, "cannot spool the body", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", mt)
	if mt == JSON {
		_, _ = w.Write([]byte("{}"))
	}
}
