package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"
)

// DefaultMaxBody bounds a request body when a server is not told otherwise.
const DefaultMaxBody = 1 << 20

// Run serves handler on l until ctx ends, then shuts down gracefully (in-flight requests get
// ShutdownGrace to finish). It returns nil after a shutdown asked for by ctx.
func Run(ctx context.Context, l net.Listener, handler http.Handler) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ShutdownGrace is how long in-flight requests get when a server stops.
const ShutdownGrace = 5 * time.Second

// APIError is an error as the servers answer it: {"error": {"code", "message", "field", "id"}}
// with an HTTP status. Field, when not empty, names the member of the request that is wrong (a
// path such as "variation_types[1]" or "input_context.event"). RetryAfter, when positive, is
// sent as the Retry-After header (seconds), with a 503 the client may retry.
type APIError struct {
	Status     int
	Code       string
	Message    string
	Field      string
	RetryAfter int
	// ID names an internal error in the server's log: 500s carry one, and 503s whose store
	// cannot be opened.
	ID string
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an APIError.
func Errorf(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an APIError of a bad request member: a 400 naming field.
func FieldErrorf(field, code, format string, args ...any) *APIError {
	e := Errorf(http.StatusBadRequest, code, format, args...)
	e.Field = field
	return e
}

// WriteJSON answers v as JSON with status. A value that cannot be encoded is returned as an
// error before anything is written, so that the caller's Handler answers it as a 500.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("serve: encode the answer: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
	return nil
}

// InternalMessage is the whole message of a 500: what went wrong inside the server (a file
// path, a store key, a library's words) is for the operator, who finds it in the server's log
// under the answer's error id, never for the client.
const InternalMessage = "an internal error occurred; the server's log holds its details under this error id"

// WriteError answers err as a JSON error. An error that is not an *APIError is a 500 carrying
// a new error id and InternalMessage only: its text goes to the request's log (WithLog) with
// the id, and nowhere else.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var e *APIError
	if !errors.As(err, &e) {
		e = &APIError{Status: http.StatusInternalServerError, Code: "internal", Message: InternalMessage, ID: newErrorID()}
		logOf(r)("error %s: %s %s: %v", e.ID, r.Method, r.URL.Path, err)
	}
	fields := map[string]string{"code": e.Code, "message": e.Message}
	if e.Field != "" {
		fields["field"] = e.Field
	}
	if e.ID != "" {
		fields["id"] = e.ID
	}
	body := map[string]any{"error": fields}
	b, _ := json.Marshal(body)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(b, '\n'))
}

// newErrorID names one internal error: random, since it only pairs an answer with a log line
// (it reaches no verdict or digest).
func newErrorID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "err-" + hex.EncodeToString(b)
}

// Logf writes one line of a server's log.
type Logf func(format string, args ...any)

type logKey struct{}

// WithLog gives the requests of next the log their internal errors are written to.
func WithLog(next http.Handler, logf Logf) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), logKey{}, logf)))
	})
}

// logOf is the request's log: WithLog's, else the standard logger (stderr).
func logOf(r *http.Request) Logf { return logFrom(r.Context()) }

// logFrom is the log of a request's context, else the standard logger (stderr).
func logFrom(ctx context.Context) Logf {
	if l, ok := ctx.Value(logKey{}).(Logf); ok && l != nil {
		return l
	}
	return log.Printf
}

// ReadBody reads a request body of at most max bytes: more is a 413, an empty body a 400.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, Errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the request body is larger than %d bytes", max)
	case err != nil:
		return nil, Errorf(http.StatusBadRequest, "bad_body", "reading the request body: %v", err)
	case len(b) == 0:
		return nil, Errorf(http.StatusBadRequest, "empty_body", "the request body is empty")
	}
	return b, nil
}

// Handler adapts a function that returns an error into an http.Handler that answers the error
// as JSON.
type Handler func(w http.ResponseWriter, r *http.Request) error

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}
