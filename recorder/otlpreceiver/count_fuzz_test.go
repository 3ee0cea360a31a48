package otlpreceiver

import (
	"bytes"
	"errors"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The counter reads OTLP protobuf without decoding it; pdata, which decodes what the receiver
// keeps, is its reference: whatever the bytes, the counter neither panics nor hangs, and where
// pdata decodes the body and the counter finds it well formed, both see the same spans.
func FuzzCountProtobuf(f *testing.F) {
	var m ptrace.ProtoMarshaler
	for _, td := range []ptrace.Traces{traces(0, 0, 0), traces(1, 0, 0), traces(3, 4, 2), traces(2, 1, 8)} {
		b, err := m.MarshalTraces(td)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := countProtobuf(bytes.NewReader(body), NewBudget(Limits{}).Left())
		if err != nil {
			if !errors.Is(err, errMalformed) && !errors.Is(err, errPast) && !errors.Is(err, ErrLimit) {
				t.Fatalf("count: unexpected error %v", err)
			}
			return
		}
		var u ptrace.ProtoUnmarshaler
		td, err := u.UnmarshalTraces(body)
		if err != nil {
			return
		}
		if int64(td.SpanCount()) != c.Spans {
			t.Fatalf("counted %d spans, pdata decodes %d", c.Spans, td.SpanCount())
		}
	})
}
