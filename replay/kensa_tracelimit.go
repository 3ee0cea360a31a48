package replay

import (
	"bytes"
	"fmt"
	"sync"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// traceTooLarge says why a run's trace is not decoded, "" when it may be: past
// fkensa.MaxTraceBytes (known from its descriptor, before it is read) or fkensa.MaxTraceSpans
// lines (raw, once read; nil: not read yet). Decoding a trace costs memory in proportion to
// its spans and values, so a run whose agent sent more than a recorder keeps is re-checked as a
// run whose trace could not be read, naming the limit, in bounded memory.
func traceTooLarge(desc store.Descriptor, raw []byte) string {
	if desc.Size > fkensa.MaxTraceBytes {
		return fmt.Sprintf("the trace is %d bytes, more than replay decodes (%d MiB, MaxTraceBytes)", desc.Size, fkensa.MaxTraceBytes>>20)
	}
	if raw != nil {
		if n := bytes.Count(raw, []byte{'\n'}); n > fkensa.MaxTraceSpans {
			return fmt.Sprintf("the trace has %d lines, more than the %d spans replay decodes (MaxTraceSpans)", n, fkensa.MaxTraceSpans)
		}
	}
	return ""
}

// trace reads and decodes the run's trace into ev, unless it is past the limits.
func (l *kensaLoader) trace(ev *ekensa.Evidence, desc store.Descriptor) error {
	ev.HasTrace = true
	if ev.TraceError = traceTooLarge(desc, nil); ev.TraceError != "" {
		return nil
	}
	if l.r.traces != nil {
		l.release = l.r.traces.acquire(desc.Size)
	}
	raw, err := l.blob(desc)
	if err != nil {
		return err
	}
	name := ev.TracePath
	if name == "" {
		name = "trace"
	}
	if ev.TraceError = traceTooLarge(desc, raw); ev.TraceError != "" {
		return nil
	}
	if ev.Spans, err = fkensa.ReadTrace(name, raw); err != nil {
		ev.TraceError = err.Error()
	}
	return nil
}

// done gives back what the loader holds of the trace budget.
func (l *kensaLoader) done() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
}

// done gives back what the run holds of the trace budget, once it was evaluated.
func (b *KensaBundle) done() {
	if b.release != nil {
		b.release()
		b.release = nil
	}
}

// traceBudget bounds the bytes of the traces decoded at once by runs loaded concurrently
// (EachKensa's workers, a few per processor): their spans live until each run is evaluated, and
// a trace of MaxTraceBytes decodes to several times that, so without it memory would grow with
// the processors. Traces of up to MaxTraceBytes in all are decoded at once; a run waits for its
// share, a trace is never larger than the whole (traceTooLarge refuses it first).
type traceBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	left int64
}

func newTraceBudget() *traceBudget {
	b := &traceBudget{left: fkensa.MaxTraceBytes}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n bytes (at most the whole budget) are free, takes them, and returns
// the function giving them back.
func (b *traceBudget) acquire(n int64) func() {
	n = min(max(n, 0), fkensa.MaxTraceBytes)
	b.mu.Lock()
	for b.left < n {
		b.cond.Wait()
	}
	b.left -= n
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.left += n
		b.mu.Unlock()
		b.cond.Broadcast()
	}
}
