package httpexchange

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrMalformed: the blob is not an exchange of the shape doc.go describes.
var ErrMalformed = errclass.New(errclass.Input, "httpexchange: malformed exchange")

// Exchange is one recorded HTTP exchange (see doc.go). The field names and tags are the
// format.
type Exchange struct {
	// Side is store.SideProvider or store.SideAgent.
	Side     string   `json:"side"`
	Request  Message  `json:"request"`
	Response *Message `json:"response,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// Message is a recorded request (Method, Target) or response (Status).
type Message struct {
	Method     string      `json:"method,omitempty"`
	Target     string      `json:"target,omitempty"`
	Status     int         `json:"status,omitempty"`
	Headers    [][2]string `json:"headers"`
	Body       string      `json:"body,omitempty"`
	BodyBase64 string      `json:"body_base64,omitempty"`
	Truncated  bool        `json:"truncated,omitempty"`
}

// HopHeaders are the hop-by-hop headers (RFC 9110 §7.6.1): never forwarded, never replayed.
var HopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// HopByHop reports whether a header is hop-by-hop.
func HopByHop(name string) bool {
	return slices.Contains(HopHeaders, http.CanonicalHeaderKey(name))
}

// Limits bound one exchange. The zero value takes DefaultMaxBytes.
type Limits struct {
	// MaxBytes is the largest exchange read, in bytes of its encoding.
	MaxBytes int64
}

// DefaultMaxBytes is room for the recorder's default recording limit (64 MiB a body) with
// both bodies in base64.
const DefaultMaxBytes = 192 << 20

// Read reads the exchange in data; name (the blob's path or digest) is named in errors.
func Read(name string, data []byte, lim Limits) (*Exchange, error) {
	max := lim.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s: %d bytes, more than the limit of %d", ErrMalformed, name, len(data), max)
	}
	n, err := doc.ParseJSON(name, data, doc.Limits{MaxBytes: max, MaxStringBytes: int(max)})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	var ex Exchange
	if err := doc.Decode(n, &ex); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := ex.check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
	}
	return &ex, nil
}

func (ex *Exchange) check() error {
	if ex.Side != store.SideProvider && ex.Side != store.SideAgent {
		return fmt.Errorf("side: want %q or %q, got %q", store.SideProvider, store.SideAgent, ex.Side)
	}
	r := &ex.Request
	switch {
	case r.Method == "":
		return fmt.Errorf("request.method: missing")
	case !strings.HasPrefix(r.Target, "/"):
		return fmt.Errorf("request.target: want a path (origin form), got %q", r.Target)
	case r.Status != 0:
		return fmt.Errorf("request.status: a request has no status")
	}
	if err := r.checkBody("request"); err != nil {
		return err
	}
	if ex.Response == nil {
		if ex.Error == "" {
			return fmt.Errorf("response: missing, and no error says why")
		}
		return nil
	}
	resp := ex.Response
	switch {
	case resp.Status < 100 || resp.Status > 999:
		return fmt.Errorf("response.status: want 100–999, got %d", resp.Status)
	case resp.Method != "" || resp.Target != "":
		return fmt.Errorf("response: a response has no method or target")
	}
	return resp.checkBody("response")
}

func (m *Message) checkBody(what string) error {
	if m.Body != "" && m.BodyBase64 != "" {
		return fmt.Errorf("%s: body and body_base64 both given", what)
	}
	if _, err := base64.StdEncoding.DecodeString(m.BodyBase64); err != nil {
		return fmt.Errorf("%s.body_base64: %v", what, err)
	}
	for i, h := range m.Headers {
		if h[0] == "" {
			return fmt.Errorf("%s.headers[%d]: empty name", what, i)
		}
	}
	return nil
}

// BodyBytes is the message's body as recorded: the text, or the base64 decoded (which Read
// has checked).
func (m *Message) BodyBytes() ([]byte, error) {
	if m.BodyBase64 == "" {
		return []byte(m.Body), nil
	}
	b, err := base64.StdEncoding.DecodeString(m.BodyBase64)
	if err != nil {
		return nil, fmt.Errorf("%w: body_base64: %v", ErrMalformed, err)
	}
	return b, nil
}
