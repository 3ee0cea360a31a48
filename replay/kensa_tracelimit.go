package replay

import (
	"bytes"
	"fmt"

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
