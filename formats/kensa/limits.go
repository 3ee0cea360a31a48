package kensa

// Limits of a trace in Kensa's model, as kensa run writes one and replay reads one: a trace
// past them is not decoded (replay records why), so that re-checking a stored run costs
// bounded memory whatever its agent sent. See docs/decisions.md, "Span limits of a run".
const (
	// MaxTraceBytes is the document limit (doc.DefaultLimits.MaxBytes), the size of the
	// largest trace file kensa import reads.
	MaxTraceBytes = 32 << 20
	// MaxTraceSpans is the most spans a trace holds: kensa run records at most 20,000 a run
	// (recorder/otlpreceiver.MaxRunSpans); Kensa's own traces, imported, may hold more. Decoding
	// 50,000 spans of nothing but their fields (a trace of 16 MiB) allocates about 65 MiB.
	MaxTraceSpans = 50_000
)
