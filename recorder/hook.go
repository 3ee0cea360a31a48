package recorder

import (
	"bytes"
	"io"
	"sync"

	"github.com/oasis-replay/oasis-replay/recorder/redact"
)

// Hook sees every recorded byte stream and string before it is persisted (go-vcr's
// BeforeSaveHook): blobs (payloads, reports, artifacts, exchanges) through Reader, and the
// strings of structured objects (transcripts, arguments, findings, annotations) through String.
// A hook must be deterministic: the same input gives the same output, or recording the same
// evidence twice would give two bundles.
type Hook interface {
	Reader(r io.Reader) io.Reader
	String(s string) string
}

// Concealer is implemented by hooks that hide values. The recorder asks it about every literal
// a recorded scenario registers for value containment (Core §3.5.5): hiding one would hide a
// leak from the evaluator, which is worth a warning.
type Concealer interface {
	Conceals(literal string) (marker string, ok bool)
}

var _ interface {
	Hook
	Concealer
} = (*redact.Redactor)(nil)

// hooks applies the redactor of a recording, extended with the credentials it discovers, and
// then the caller's hooks.
type hooks struct {
	mu       sync.Mutex
	redactor *redact.Redactor
	extra    []Hook
	frozen   bool // learns nothing: the unredacted twin of the verdict check
}

func newHooks(r *redact.Redactor, extra []Hook) *hooks {
	if r == nil {
		r, _ = redact.New(nil, nil) // no key, no values: cannot fail
	}
	return &hooks{redactor: r, extra: extra}
}

// minCredentialLength is the shortest credential found in the input that is redacted: a
// shorter value ("none", "true") is not a credential anyone could use, and redacting it
// everywhere would wreck the recording.
const minCredentialLength = 8

// learn adds credentials found in the input (a run configuration's token, credentials a
// provider minted for the agent, a bearer token) to the values redacted from now on.
func (h *hooks) learn(values ...string) {
	if h.frozen {
		return
	}
	var keep []string
	for _, v := range values {
		if len(v) >= minCredentialLength {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if next, err := h.redactor.With(keep...); err == nil {
		h.redactor = next
	}
}

func (h *hooks) current() *redact.Redactor {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.redactor
}

// pass is one use of the hooks whose output is stored as one blob or object. It counts what
// the redactor replaced, so that the manifest can say where each value was found
// (recording.stored).
type pass struct {
	h     *hooks
	found redact.Tally
}

func (h *hooks) pass() *pass { return &pass{h: h} }

func (p *pass) redactor() *redact.Redactor { return p.h.current().WithTally(&p.found) }

func (p *pass) reader(r io.Reader) io.Reader {
	r = p.redactor().Reader(r)
	for _, x := range p.h.extra {
		r = x.Reader(r)
	}
	return r
}

func (p *pass) bytes(b []byte) []byte {
	b = p.redactor().Bytes(b)
	for _, x := range p.h.extra {
		b, _ = io.ReadAll(x.Reader(bytes.NewReader(b))) // a bytes.Reader never fails
	}
	return b
}

func (p *pass) str(s string) string {
	s = p.redactor().String(s)
	for _, x := range p.h.extra {
		s = x.String(s)
	}
	return s
}

// conceals asks the redactor and every hook that can tell whether literal would be hidden.
func (h *hooks) conceals(literal string) (string, bool) {
	if m, ok := h.current().Conceals(literal); ok {
		return m, true
	}
	for _, x := range h.extra {
		if c, ok := x.(Concealer); ok {
			if m, ok := c.Conceals(literal); ok {
				return m, true
			}
		}
	}
	return "", false
}
