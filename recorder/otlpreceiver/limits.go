package otlpreceiver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrLimit: a run's spans passed one of the limits of a run (Limits); the body that passed it
// is refused with 413, and so is every later one.
var ErrLimit = errclass.New(errclass.Input, "otlpreceiver: span limit passed")

// Limits of one run's spans, over every span source of the run (the OTLP bodies, decompressed,
// and the exporter's JSONL file). They bound what decoding the run costs: memory grows with the
// values decoded (a value is a span, an event, a link, an attribute, an attribute's value, one
// element of a list or map), so they are counted as the bodies arrive, before anything is
// decoded, and a run past one of them is recorded as an error run naming it. See
// docs/decisions.md, "Span limits of a run".
const (
	// MaxRunBytes bounds the span bytes of a run: the document limit (a Kensa trace file
	// larger than this is refused by kensa import, doc.DefaultLimits.MaxBytes).
	MaxRunBytes = 32 << 20
	// MaxRunSpans bounds the spans of a run: 20,000 is a span every 15 ms through Kensa's
	// default timeout of 300 s, ten times what an agent instrumented down to each HTTP call
	// sends in that time.
	MaxRunSpans = 20_000
	// MaxRunValues bounds the values of a run: the document limit (doc.DefaultLimits.MaxNodes),
	// 26 values a span at MaxRunSpans.
	MaxRunValues = 524_288
	// MaxNesting bounds how deep values nest (a list in a map in a list …): formats/otlp reads
	// no deeper, and a decoder recursing through a body of nothing but nesting would take a
	// stack of gigabytes.
	MaxNesting = 64
)

// Limits are the limits of one run; the zero value is the defaults above.
type Limits struct {
	Bytes, Spans, Values int64
}

func (l Limits) resolve() Limits {
	if l.Bytes <= 0 {
		l.Bytes = MaxRunBytes
	}
	if l.Spans <= 0 {
		l.Spans = MaxRunSpans
	}
	if l.Values <= 0 {
		l.Values = MaxRunValues
	}
	return l
}

// Count is what a span source holds.
type Count struct {
	Bytes, Spans, Values int64
}

// Budget counts a run's span sources against its limits. It may be shared by goroutines.
type Budget struct {
	lim  Limits
	mu   sync.Mutex
	used Count
	err  error // the first limit passed
}

// NewBudget returns an empty budget under lim (zero fields: the defaults).
func NewBudget(lim Limits) *Budget { return &Budget{lim: lim.resolve()} }

// Left is what the run may still take.
func (b *Budget) Left() Count {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Count{Bytes: b.lim.Bytes - b.used.Bytes, Spans: b.lim.Spans - b.used.Spans, Values: b.lim.Values - b.used.Values}
}

// Used is what the run took.
func (b *Budget) Used() Count {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Add counts c, or fails with ErrLimit naming the first limit it passes (and keeps failing).
func (b *Budget) Add(c Count) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	switch {
	case b.used.Bytes+c.Bytes > b.lim.Bytes:
		b.err = overBytes(b.lim.Bytes)
	case b.used.Spans+c.Spans > b.lim.Spans:
		b.err = overSpans(b.lim.Spans)
	case b.used.Values+c.Values > b.lim.Values:
		b.err = overValues(b.lim.Values)
	default:
		b.used.Bytes += c.Bytes
		b.used.Spans += c.Spans
		b.used.Values += c.Values
	}
	return b.err
}

// Fail records err (an ErrLimit) as the limit passed, unless one was already.
func (b *Budget) Fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
	}
}

// Err is the first limit passed, nil while none was.
func (b *Budget) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func overBytes(n int64) error {
	return fmt.Errorf("%w: more than %d span bytes per run (%d MiB, MaxRunBytes)", ErrLimit, n, n>>20)
}

func overSpans(n int64) error {
	return fmt.Errorf("%w: more than %d spans per run (MaxRunSpans)", ErrLimit, n)
}

func overValues(n int64) error {
	return fmt.Errorf("%w: more than %d span values per run (spans, events, links, attributes and their values; MaxRunValues)", ErrLimit, n)
}

func overNesting() error {
	return fmt.Errorf("%w: values nested more than %d deep (MaxNesting)", ErrLimit, MaxNesting)
}

// Formats of a span source, for Budget.AddFile.
const (
	FormatProtobuf = iota // an OTLP export, protobuf
	FormatJSON            // an OTLP export, JSON
	FormatJSONL           // JSON lines, a span each (Kensa's JSONL exporter)
)

// AddFile counts the span source in path, read once without decoding it, and adds it to the
// budget: ErrLimit when it passes a limit. A source that is not what its format says is
// counted up to its fault, which decoding it reports later.
func (b *Budget) AddFile(path string, format int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := b.Add(Count{Bytes: st.Size()}); err != nil {
		return err
	}
	c, err := b.count(f, format)
	c.Bytes = 0
	if addErr := b.Add(c); addErr != nil {
		return addErr
	}
	if errors.Is(err, ErrLimit) {
		b.Fail(err)
		return err
	}
	return nil
}

// count counts what r holds in format against what is left of the budget.
func (b *Budget) count(r io.Reader, format int) (Count, error) {
	left := b.Left()
	if format == FormatProtobuf {
		return countProtobuf(r, left)
	}
	return countJSON(r, left, format == FormatJSONL)
}
