package auditgen

import (
	"strconv"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// encoder appends JSON to a byte slice with explicit member order, which is how the apiserver
// writes audit events (struct field order, not sorted keys). It is hand-written because the
// generator must produce hundreds of MB/s for the store benchmarks.
type encoder struct {
	buf   []byte
	comma bool // a value was just written: the next member or element needs a separator
}

func (e *encoder) sep() {
	if e.comma {
		e.buf = append(e.buf, ',')
	}
	e.comma = false
}

func (e *encoder) key(k string) {
	e.sep()
	e.buf = doc.AppendString(e.buf, k)
	e.buf = append(e.buf, ':')
}

// open starts an object member (or, with k == "", an object value in an array).
func (e *encoder) open(k string) {
	if k == "" {
		e.sep()
	} else {
		e.key(k)
	}
	e.buf = append(e.buf, '{')
}

func (e *encoder) close() {
	e.buf = append(e.buf, '}')
	e.comma = true
}

func (e *encoder) openArray(k string) {
	e.key(k)
	e.buf = append(e.buf, '[')
}

func (e *encoder) closeArray() {
	e.buf = append(e.buf, ']')
	e.comma = true
}

func (e *encoder) str(k, v string) {
	e.key(k)
	e.buf = doc.AppendString(e.buf, v)
	e.comma = true
}

// elem writes a string element of an array.
func (e *encoder) elem(v string) {
	e.sep()
	e.buf = doc.AppendString(e.buf, v)
	e.comma = true
}

func (e *encoder) num(k string, v int64) {
	e.key(k)
	e.buf = strconv.AppendInt(e.buf, v, 10)
	e.comma = true
}

func (e *encoder) boolean(k string, v bool) {
	e.key(k)
	e.buf = strconv.AppendBool(e.buf, v)
	e.comma = true
}

func (e *encoder) null(k string) {
	e.key(k)
	e.buf = append(e.buf, "null"...)
	e.comma = true
}

// time writes an RFC 3339 timestamp with microseconds, as audit timestamps are written.
func (e *encoder) time(k string, micros int64) {
	e.key(k)
	e.buf = append(e.buf, '"')
	e.buf = epoch.Add(time.Duration(micros)*time.Microsecond).AppendFormat(e.buf, "2006-01-02T15:04:05.000000Z")
	e.buf = append(e.buf, '"')
	e.comma = true
}

// seconds writes a timestamp truncated to seconds, as object metadata timestamps are written.
func (e *encoder) seconds(k string, micros int64) {
	e.key(k)
	e.buf = append(e.buf, '"')
	e.buf = epoch.Add(time.Duration(micros)*time.Microsecond).AppendFormat(e.buf, "2006-01-02T15:04:05Z")
	e.buf = append(e.buf, '"')
	e.comma = true
}
