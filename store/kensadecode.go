package store

import (
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// This file decodes the two objects of every Kensa run, KensaRun and KensaEvidence, from their
// canonical form without encoding/json: re-checking ten thousand runs spent a fifth of its
// time decoding them by reflection. The fast path reads only the exact canonical form
// (Marshal's: members in order, minimal escapes, integers) into a zero object, and gives up on
// anything else — a member it does not know, a null, a float, an escape Marshal does not
// write — leaving the bytes to encoding/json, which decodes them the same way or gives the
// error. TestDecodeAsBefore and FuzzDecode hold the two equal; TestCanonicalMembers holds each
// list of members to its type's json tags.

// canonicalDecoder is an object that reads its own canonical form.
type canonicalDecoder interface {
	decodeCanonical(r *canonReader)
}

// decodeCanonical decodes b into obj, a zero object with a canonical decoder, and reports
// whether it could; when it could not, obj is zero again.
func decodeCanonical(b []byte, obj Object) bool {
	c, ok := obj.(canonicalDecoder)
	if !ok || !reflect.ValueOf(obj).Elem().IsZero() {
		return false
	}
	r := canonReader{b: b, ok: true}
	c.decodeCanonical(&r)
	if r.ok && r.i == len(b) {
		return true
	}
	reflect.ValueOf(obj).Elem().SetZero()
	return false
}

// Members of each type in canonical order: their json names, sorted.
var (
	kensaRunMembers = []string{"annotations", "case", "claimed", "claimed_run", "definition", "evidence", "findings", "kind",
		"non_scoring", "recorder", "run_id", "scenario", "scenario_file", "schema_version"}
	kensaEvidenceMembers = []string{"argv", "case", "dataset_row", "definition", "exit", "input", "judgement", "kind", "scenario",
		"scenario_file", "schema_version", "span_sources", "stderr", "stdout", "trace", "trace_path"}
	descriptorMembers   = []string{"digest", "media_type", "size"}
	findingMembers      = []string{"code", "field", "file", "line", "message", "scenario", "severity"}
	recorderInfoMembers = []string{"name", "source", "version"}
	kensaExitMembers    = []string{"code", "error", "signal", "timed_out"}
	outputMembers       = []string{"blob", "total", "truncated"}
	sourceFileMembers   = []string{"blob", "path"}
)

func (m *KensaRun) decodeCanonical(r *canonReader) {
	r.object(kensaRunMembers, func(name string) {
		switch name {
		case "annotations":
			m.Annotations = r.stringMap()
		case "case":
			m.Case = r.int()
		case "claimed":
			m.Claimed = r.descriptorPtr()
		case "claimed_run":
			m.ClaimedRun = r.descriptorPtr()
		case "definition":
			m.DefinitionTree = r.digest()
		case "evidence":
			m.Evidence = r.digest()
		case "findings":
			m.Findings = []Finding{}
			r.array(func() { m.Findings = append(m.Findings, r.finding()) })
		case "kind":
			m.Kind = Kind(r.str())
		case "non_scoring":
			m.NonScoring = r.stringMap()
		case "recorder":
			r.object(recorderInfoMembers, func(name string) {
				switch name {
				case "name":
					m.Recorder.Name = r.str()
				case "source":
					m.Recorder.Source = r.str()
				case "version":
					m.Recorder.Version = r.str()
				}
			})
		case "run_id":
			m.RunID = r.str()
		case "scenario":
			m.Scenario = r.str()
		case "scenario_file":
			m.ScenarioFile = r.str()
		case "schema_version":
			m.SchemaVersion = r.int()
		}
	})
}

func (e *KensaEvidence) decodeCanonical(r *canonReader) {
	r.object(kensaEvidenceMembers, func(name string) {
		switch name {
		case "argv":
			e.Argv = []string{}
			r.array(func() { e.Argv = append(e.Argv, r.str()) })
		case "case":
			e.Case = r.int()
		case "dataset_row":
			e.DatasetRow = r.descriptorPtr()
		case "definition":
			e.Definition = r.digest()
		case "exit":
			r.object(kensaExitMembers, func(name string) {
				switch name {
				case "code":
					e.Exit.Code = r.int()
				case "error":
					e.Exit.Error = r.str()
				case "signal":
					e.Exit.Signal = r.str()
				case "timed_out":
					e.Exit.TimedOut = r.boolean()
				}
			})
		case "input":
			e.Input = r.descriptorPtr()
		case "judgement":
			e.Judgement = r.descriptorPtr()
		case "kind":
			e.Kind = Kind(r.str())
		case "scenario":
			e.Scenario = r.str()
		case "scenario_file":
			e.ScenarioFile = r.str()
		case "schema_version":
			e.SchemaVersion = r.int()
		case "span_sources":
			e.SpanSources = []SourceFile{}
			r.array(func() {
				var s SourceFile
				r.object(sourceFileMembers, func(name string) {
					if name == "blob" {
						s.Blob = r.descriptor()
					} else {
						s.Path = r.str()
					}
				})
				e.SpanSources = append(e.SpanSources, s)
			})
		case "stderr":
			e.Stderr = r.output()
		case "stdout":
			e.Stdout = r.output()
		case "trace":
			e.Trace = r.descriptorPtr()
		case "trace_path":
			e.TracePath = r.str()
		}
	})
}

// canonReader reads canonical JSON; ok turns false, for good, at the first byte it does not
// expect.
type canonReader struct {
	b  []byte
	i  int
	ok bool
}

func (r *canonReader) fail() {
	r.ok = false
	r.i = len(r.b) // nothing more is read
}

// eat reads c if it is next.
func (r *canonReader) eat(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads an object whose members are among names (sorted), in that order, calling
// member with each one's name with r on its value.
func (r *canonReader) object(names []string, member func(name string)) {
	if !r.eat('{') {
		r.fail()
		return
	}
	if r.eat('}') {
		return
	}
	next := 0
	for r.ok {
		key := r.str()
		for next < len(names) && names[next] != key {
			next++
		}
		if next == len(names) || !r.eat(':') {
			r.fail()
			return
		}
		member(names[next])
		next++
		if r.eat('}') {
			return
		}
		if !r.eat(',') {
			r.fail()
		}
	}
}

// array reads an array, calling item with r on each element.
func (r *canonReader) array(item func()) {
	if !r.eat('[') {
		r.fail()
		return
	}
	if r.eat(']') {
		return
	}
	for r.ok {
		item()
		if r.eat(']') {
			return
		}
		if !r.eat(',') {
			r.fail()
		}
	}
}

// stringMap reads an object of strings, its names in canonical order.
func (r *canonReader) stringMap() map[string]string {
	m := map[string]string{}
	if !r.eat('{') {
		r.fail()
		return m
	}
	if r.eat('}') {
		return m
	}
	prev := ""
	for r.ok {
		key := r.str()
		if len(m) > 0 && doc.CompareKeys(prev, key) >= 0 || !r.eat(':') {
			r.fail()
			return m
		}
		m[key], prev = r.str(), key
		if r.eat('}') {
			return m
		}
		if !r.eat(',') {
			r.fail()
		}
	}
	return m
}

func (r *canonReader) descriptor() Descriptor {
	var d Descriptor
	r.object(descriptorMembers, func(name string) {
		switch name {
		case "digest":
			d.Digest = r.digest()
		case "media_type":
			d.MediaType = r.str()
		case "size":
			d.Size = int64(r.int())
		}
	})
	return d
}

func (r *canonReader) descriptorPtr() *Descriptor {
	d := r.descriptor()
	return &d
}

func (r *canonReader) output() *Output {
	o := &Output{}
	r.object(outputMembers, func(name string) {
		switch name {
		case "blob":
			o.Blob = r.descriptor()
		case "total":
			o.Total = int64(r.int())
		case "truncated":
			o.Truncated = r.boolean()
		}
	})
	return o
}

func (r *canonReader) finding() Finding {
	var f Finding
	r.object(findingMembers, func(name string) {
		switch name {
		case "code":
			f.Code = r.str()
		case "field":
			f.Field = r.str()
		case "file":
			f.File = r.str()
		case "line":
			f.Line = r.int()
		case "message":
			f.Message = r.str()
		case "scenario":
			f.Scenario = r.str()
		case "severity":
			f.Severity = r.str()
		}
	})
	return f
}

// digest reads a digest: "sha256:" and 64 lowercase hex digits, read in place, or for any
// other text what Digest.UnmarshalText makes of it.
func (r *canonReader) digest() Digest {
	var d Digest
	const quoted = len(`"`+DigestPrefix+`"`) + digestHexLen
	if b := r.b[r.i:]; len(b) >= quoted && string(b[:len(DigestPrefix)+1]) == `"`+DigestPrefix && b[quoted-1] == '"' {
		if lowerHex(d[:], b[len(DigestPrefix)+1:quoted-1]) {
			r.i += quoted
			return d
		}
	}
	if err := d.UnmarshalText([]byte(r.str())); err != nil {
		r.fail()
	}
	return d
}

// lowerHex decodes hex, lowercase digits only, into dst, which has room for it.
func lowerHex(dst, hex []byte) bool {
	for i := range dst {
		hi, lo := hexValue(hex[2*i]), hexValue(hex[2*i+1])
		if hi < 0 || lo < 0 {
			return false
		}
		dst[i] = byte(hi<<4 | lo)
	}
	return true
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	}
	return -1
}

func (r *canonReader) boolean() bool {
	for _, word := range []string{"true", "false"} {
		if r.i+len(word) <= len(r.b) && string(r.b[r.i:r.i+len(word)]) == word {
			r.i += len(word)
			return word == "true"
		}
	}
	r.fail()
	return false
}

// int reads an integer as Marshal writes one: 0, or digits without a leading zero, within
// ±(2^53-1).
func (r *canonReader) int() int {
	neg := r.eat('-')
	start, n := r.i, 0
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' && n <= maxSafeInteger {
		n = n*10 + int(r.b[r.i]-'0')
		r.i++
	}
	digits := r.i - start
	if digits == 0 || n > maxSafeInteger || r.b[start] == '0' && (digits > 1 || neg) {
		r.fail()
		return 0
	}
	if neg {
		return -n
	}
	return n
}

// str reads a string with the escapes Marshal writes ('"', '\\', and control characters)
// and no others.
func (r *canonReader) str() string {
	if !r.eat('"') {
		r.fail()
		return ""
	}
	start := r.i
	var out []byte // the unescaped bytes, once an escape is met
	from := start
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			r.i++
			if out == nil {
				return string(r.b[start : r.i-1])
			}
			return string(append(out, r.b[from:r.i-1]...))
		case c == '\\':
			e, n := canonicalEscape(r.b[r.i:])
			if n == 0 {
				r.fail()
				return ""
			}
			out = append(append(out, r.b[from:r.i]...), e)
			r.i += n
			from = r.i
		case c < 0x20:
			r.fail()
			return ""
		case c < 0x80:
			r.i++
		default:
			c, n := utf8.DecodeRune(r.b[r.i:])
			if c == utf8.RuneError && n <= 1 {
				r.fail()
				return ""
			}
			r.i += n
		}
	}
	r.fail()
	return ""
}

// canonicalEscape decodes an escape as the canonical form writes it: \" \\ \b \t \n \f \r, or
// \u00xx (lowercase) for another control character; n is 0 for any other.
func canonicalEscape(e []byte) (c byte, n int) {
	if len(e) < 2 {
		return 0, 0
	}
	switch e[1] {
	case '"', '\\':
		return e[1], 2
	case 'b':
		return '\b', 2
	case 't':
		return '\t', 2
	case 'n':
		return '\n', 2
	case 'f':
		return '\f', 2
	case 'r':
		return '\r', 2
	case 'u':
		const hex = "0123456789abcdef"
		if len(e) < 6 || string(e[2:4]) != "00" || e[4] != '0' && e[4] != '1' || strings.IndexByte(hex, e[5]) < 0 {
			return 0, 0
		}
		c := byte(e[4]-'0')<<4 | byte(strings.IndexByte(hex, e[5]))
		if c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r' {
			return 0, 0 // written with its short escape
		}
		return c, 6
	}
	return 0, 0
}
