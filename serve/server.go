package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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

// APIError is an error as the servers answer it: {"error": {"code", "message", "field"}} with
// an HTTP status. Field, when not empty, names the member of the request that is wrong (a path
// such as "variation_types[1]" or "input_context.event").
type APIError struct {
	Status  int
	Code    string
	Message string
	Field   string
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

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, Errorf(http.StatusInternalServerError, "internal", "encode the answer: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// WriteError answers err as a JSON error; an error that is not an *APIError is a 500 that does
// not leak its text beyond a generic message.
func WriteError(w http.ResponseWriter, err error) {
	var e *APIError
	if !errors.As(err, &e) {
		e = Errorf(http.StatusInternalServerError, "internal", "%v", err)
	}
	fields := map[string]string{"code": e.Code, "message": e.Message}
	if e.Field != "" {
		fields["field"] = e.Field
	}
	body := map[string]any{"error": fields}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(b, '\n'))
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
		WriteError(w, err)
	}
}
