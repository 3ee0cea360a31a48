package otlpreceiver

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Messages of an OTLP trace export (opentelemetry-proto, trace/v1 and common/v1) that hold
// other messages, and the fields holding them: what countProtobuf walks. Every other field is
// skipped unread.
type msgKind uint8

const (
	kTraces msgKind = iota + 1 // ExportTraceServiceRequest, TracesData
	kResourceSpans
	kResource
	kScopeSpans
	kScope
	kSpan
	kEvent
	kLink
	kKeyValue
	kAnyValue
	kArrayValue
	kKeyValueList
)

var msgFields = map[msgKind]map[uint64]msgKind{
	kTraces:        {1: kResourceSpans},
	kResourceSpans: {1: kResource, 2: kScopeSpans, 1000: kScopeSpans}, // 1000: deprecated scope spans
	kResource:      {1: kKeyValue},
	kScopeSpans:    {1: kScope, 2: kSpan},
	kScope:         {3: kKeyValue},
	kSpan:          {9: kKeyValue, 11: kEvent, 13: kLink},
	kEvent:         {3: kKeyValue},
	kLink:          {4: kKeyValue},
	kKeyValue:      {2: kAnyValue},
	kAnyValue:      {5: kArrayValue, 6: kKeyValueList},
	kArrayValue:    {1: kAnyValue},
	kKeyValueList:  {1: kKeyValue},
}

// errPast stops a count that passed what was left of the budget: Budget.Add then names the
// limit.
var errPast = errors.New("past the limit")

// errMalformed is a body that is not what its media type says: it is kept, and decoding it
// later reports why. What it held before the fault is counted.
var errMalformed = errors.New("malformed")

// countProtobuf counts the spans and values of an OTLP trace export in the protobuf encoding,
// reading it once, without decoding it: each message that holds others (a span, an event, a
// link, an attribute, a value, …) is a value. It stops with errPast as soon as the count
// passes left (with ErrLimit when values nest past MaxNesting), and returns what it counted so far with an
// error wrapping errMalformed when the body is not valid protobuf: a decoder reading it
// allocates no more than that before it fails.
func countProtobuf(r io.Reader, left Count) (Count, error) {
	p := &pbCounter{r: bufio.NewReaderSize(r, 64<<10), left: left}
	err := p.message(kTraces, -1, 0)
	return p.c, err
}

type pbCounter struct {
	r    *bufio.Reader
	off  int64
	c    Count
	left Count
}

func (p *pbCounter) malformed(format string, args ...any) error {
	return fmt.Errorf("%w: protobuf: byte %d: %s", errMalformed, p.off, fmt.Sprintf(format, args...))
}

func (p *pbCounter) varint() (uint64, error) {
	v, err := binary.ReadUvarint(p)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return 0, p.malformed("cut short in a varint")
	}
	return 0, p.malformed("varint too long")
}

// ReadByte reads the next byte, counting it in off (binary.ReadUvarint reads through it).
func (p *pbCounter) ReadByte() (byte, error) {
	b, err := p.r.ReadByte()
	if err == nil {
		p.off++
	}
	return b, err
}

func (p *pbCounter) skip(n uint64) error {
	got, _ := p.r.Discard(int(min(n, 1<<40)))
	p.off += int64(got)
	if uint64(got) != n {
		return p.malformed("cut short: %d bytes missing", n-uint64(got))
	}
	return nil
}

// message walks a message of kind, n bytes long (-1: to the end of the stream), depth messages
// deep.
func (p *pbCounter) message(kind msgKind, n int64, depth int) error {
	if depth > MaxNesting {
		return overNesting()
	}
	end := p.off + n
	for n < 0 || p.off < end {
		if n < 0 {
			if _, err := p.r.Peek(1); err == io.EOF {
				return nil
			}
		}
		tag, err := p.varint()
		if err != nil {
			return err
		}
		field, wire := tag>>3, tag&7
		if field == 0 {
			return p.malformed("field number 0")
		}
		if err := p.field(kind, field, wire, depth); err != nil {
			return err
		}
		if n >= 0 && p.off > end {
			return p.malformed("a field runs past the end of its message")
		}
	}
	return nil
}

func (p *pbCounter) field(kind msgKind, field, wire uint64, depth int) error {
	switch wire {
	case 0:
		_, err := p.varint()
		return err
	case 1:
		return p.skip(8)
	case 5:
		return p.skip(4)
	case 3:
		return p.group(field, depth)
	case 2:
	default:
		return p.malformed("wire type %d", wire)
	}
	size, err := p.varint()
	if err != nil {
		return err
	}
	if size > 1<<40 {
		return p.malformed("length %d", size)
	}
	sub, ok := msgFields[kind][field]
	if !ok {
		return p.skip(size)
	}
	p.c.Values++
	if sub == kSpan {
		p.c.Spans++
	}
	if p.c.Spans > p.left.Spans || p.c.Values > p.left.Values {
		return errPast
	}
	if sub == kAnyValue {
		depth++ // values nest in values (a list or a map of them); the rest of the tree is fixed
	}
	return p.message(sub, int64(size), depth)
}

// group skips a group (a deprecated encoding the decoders still accept) up to its end tag.
func (p *pbCounter) group(field uint64, depth int) error {
	if depth > MaxNesting {
		return overNesting()
	}
	for {
		tag, err := p.varint()
		if err != nil {
			return err
		}
		f, wire := tag>>3, tag&7
		if wire == 4 {
			if f != field {
				return p.malformed("group %d ended as %d", field, f)
			}
			return nil
		}
		if err := p.field(0, f, wire, depth+1); err != nil {
			return err
		}
	}
}

// maxJSONNesting is MaxNesting in OTLP/JSON, where each value nesting in another takes three
// levels ({"arrayValue": {"values": [...]}}), under the export's own levels.
const maxJSONNesting = 3*MaxNesting + 16

// countJSON counts the spans and values of an OTLP trace export in the JSON encoding (or of a
// stream of JSON values, one span each, as a JSONL span file holds them when lines is set),
// reading it once as tokens: every JSON value is a value, each element of a "spans" array (or
// each top-level value, with lines) a span. It stops with errPast as soon as the count passes
// left (ErrLimit past MaxNesting), and returns an error wrapping errMalformed when the body is not JSON.
func countJSON(r io.Reader, left Count, lines bool) (Count, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	var c Count
	// Each open container: whether it is an object (its next token a key) and, for an array,
	// whether its elements are spans.
	type open struct{ object, key, spans bool }
	var stack []open
	spansKey := false // the key just read is "spans"
	for {
		tok, err := dec.Token()
		if err == io.EOF && len(stack) == 0 {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("%w: json: byte %d: %v", errMalformed, dec.InputOffset(), err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].key = true
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
			spansKey = tok == "spans"
			stack[n-1].key = false
			continue
		}
		c.Values++
		if n := len(stack); (n == 0 && lines) || (n > 0 && stack[n-1].spans) {
			c.Spans++
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
		if d, ok := tok.(json.Delim); ok {
			if len(stack) >= maxJSONNesting {
				return c, overNesting()
			}
			stack = append(stack, open{object: d == '{', key: d == '{', spans: d == '[' && spansKey})
		}
		spansKey = false
		if c.Spans > left.Spans || c.Values > left.Values {
			return c, errPast
		}
	}
}
