package recorder

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"slices"
	"sync"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder/journal"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// Record types of a live recording's journal (see doc.go, Live recording). Every exchange
// record starts with the exchange's number (uvarint), which is unique within the journal and
// never reaches a bundle.
const (
	recHeader   journal.Type = 'H' // liveHeader, JSON; the first record
	recFile     journal.Type = 'F' // a file of the pinned profile: uvarint path length, path, bytes
	recBegin    journal.Type = 'B' // an exchange begins: number, capturedHead (JSON)
	recBody     journal.Type = 'D' // part of a body: number, part (partRequest/partResponse), bytes
	recArrived  journal.Type = 'A' // the request is whole: number, capturedArrival (JSON)
	recResponse journal.Type = 'R' // the upstream's status and headers: number, capturedResponse (JSON)
	recEnd      journal.Type = 'E' // the exchange is complete: number, capturedEnd (JSON)
	recCut      journal.Type = 'X' // the exchange was cut and is not sealed: number, reason
	recRefused  journal.Type = 'N' // the webhook refused the POST (400, 413): number, reason
)

// Body parts.
const (
	partRequest  byte = 'q'
	partResponse byte = 's'
)

// journalFormat is the version of the records above.
const journalFormat = 1

// bodyRecordSize is the most body bytes one record holds.
const bodyRecordSize = 64 << 10

// liveHeader is the first record of a journal: everything needed to seal it besides the
// redaction values and key, which are never written to disk.
type liveHeader struct {
	Format    int              `json:"format"`
	Source    string           `json:"source"`
	Version   string           `json:"version"`
	Tags      []string         `json:"tags,omitempty"`
	Profile   store.ProfileRef `json:"profile"`
	Redaction redactionPin     `json:"redaction"`
	Proxy     *proxySettings   `json:"proxy,omitempty"`
	Webhook   *webhookSettings `json:"webhook,omitempty"`
}

// proxySettings are the options of a proxy recording that decide its bundle.
type proxySettings struct {
	MaxBody   int64  `json:"max_body"`
	MaxRead   int64  `json:"max_read"`
	Tier      int    `json:"tier,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

// webhookSettings are the options of a webhook recording that decide its bundle.
type webhookSettings struct {
	Scenario       string              `json:"scenario"`
	AgentPrincipal string              `json:"agent_principal,omitempty"`
	Agent          store.AgentIdentity `json:"agent"`
	Configuration  map[string]string   `json:"configuration,omitempty"`
	Tier           int                 `json:"tier,omitempty"`
	Timestamp      string              `json:"timestamp,omitempty"`
}

// redactionPin identifies the redaction a recording was started with, without revealing it:
// the key's id, the number of values and, with a key, a keyed digest of the values. Sealing
// the journal needs the same redaction.
type redactionPin struct {
	KeyID       string `json:"key_id,omitempty"`
	Values      int    `json:"values"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

func pinRedaction(r *redact.Redactor) redactionPin {
	if r == nil {
		return redactionPin{}
	}
	return redactionPin{KeyID: r.KeyID(), Values: r.Len(), Fingerprint: r.Fingerprint()}
}

// check compares the redaction given to seal a journal with the one it was recorded with.
func (p redactionPin) check(r *redact.Redactor) error {
	got := pinRedaction(r)
	if got == p {
		return nil
	}
	describe := func(p redactionPin) string {
		if p.KeyID == "" {
			return fmt.Sprintf("%d values, no key", p.Values)
		}
		return fmt.Sprintf("%d values, key %s", p.Values, p.KeyID)
	}
	return fmt.Errorf("%w: the recording was made with redaction of %s; sealing it with %s would give another bundle: give the same --redact, --redact-file and key",
		ErrRedactionMismatch, describe(p), describe(got))
}

// capturedHead is what an exchange's first record says about its request.
type capturedHead struct {
	Side    string      `json:"side,omitempty"`
	Method  string      `json:"method,omitempty"`
	Target  string      `json:"target,omitempty"`
	Headers [][2]string `json:"headers,omitempty"`
}

// capturedArrival closes a request: its body size as recorded, and whether it was longer.
type capturedArrival struct {
	Size      int64 `json:"size"`
	Truncated bool  `json:"truncated,omitempty"`
}

// capturedResponse is the upstream's status and headers.
type capturedResponse struct {
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers,omitempty"`
}

// capturedEnd closes an exchange: what failed, and the response body as recorded.
type capturedEnd struct {
	Error     string `json:"error,omitempty"`
	Size      int64  `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

// headerPairs lists headers as name/value pairs, sorted by name, values in order.
func headerPairs(h http.Header) [][2]string {
	var out [][2]string
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			out = append(out, [2]string{name, v})
		}
	}
	return out
}

func pairsHeader(pairs [][2]string) http.Header {
	h := http.Header{}
	for _, p := range pairs {
		h[p[0]] = append(h[p[0]], p[1])
	}
	return h
}

// exchangeRecord encodes an exchange record's payload: number, then JSON or raw bytes.
func exchangeRecord(id uint64, v any) ([]byte, error) {
	out := binary.AppendUvarint(nil, id)
	switch v := v.(type) {
	case []byte:
		return append(out, v...), nil
	case string:
		return append(out, v...), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(out, b...), nil
}

// splitExchangeRecord returns an exchange record's number and the rest of its payload.
func splitExchangeRecord(p []byte) (uint64, []byte, error) {
	id, n := binary.Uvarint(p)
	if n <= 0 {
		return 0, nil, fmt.Errorf("no exchange number")
	}
	return id, p[n:], nil
}

// fileRecord encodes a profile file.
func fileRecord(path string, data []byte) [][]byte {
	return [][]byte{binary.AppendUvarint(nil, uint64(len(path))), []byte(path), data}
}

func splitFileRecord(p []byte) (string, []byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return "", nil, fmt.Errorf("malformed file record")
	}
	return string(p[k : k+int(n)]), p[k+int(n):], nil
}

// profileFiles reads every file of the profile's tree, checked against the tree: what the
// journal keeps so that it can be sealed without the profile's directory or store.
func (p *Profile) profileFiles(ctx context.Context) (map[string][]byte, error) {
	var read func(path string, d store.Digest) ([]byte, error)
	switch {
	case p.dir != "":
		root, err := os.OpenRoot(p.dir)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrProfile, err)
		}
		defer root.Close()
		read = func(path string, _ store.Digest) ([]byte, error) { return fs.ReadFile(root.FS(), path) }
	case p.fsys != nil:
		read = func(path string, _ store.Digest) ([]byte, error) { return fs.ReadFile(p.fsys, path) }
	case p.blobs != nil:
		read = func(_ string, d store.Digest) ([]byte, error) { return readAllBlob(ctx, p.blobs, d) }
	default:
		return nil, fmt.Errorf("%w: profile %s %s has no files to read", ErrProfile, p.Pin.ID, p.Pin.Version)
	}
	out := make(map[string][]byte, len(p.Tree.Entries))
	for _, e := range p.Tree.Entries {
		b, err := read(e.Path, e.Blob.Digest)
		if err != nil {
			return nil, fmt.Errorf("%w: profile file %s: %w", ErrProfile, e.Path, err)
		}
		if store.Sum(b) != e.Blob.Digest {
			return nil, fmt.Errorf("%w: profile file %s changed since the profile was loaded", ErrChanged, e.Path)
		}
		out[e.Path] = b
	}
	return out, nil
}

func readAllBlob(ctx context.Context, s profiles.BlobOpener, d store.Digest) ([]byte, error) {
	rc, _, err := s.OpenBlob(ctx, d)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// bufPool holds body buffers of bodyRecordSize bytes.
var bufPool = sync.Pool{New: func() any { b := make([]byte, bodyRecordSize); return &b }}

func getBuf() *[]byte  { return bufPool.Get().(*[]byte) }
func putBuf(b *[]byte) { bufPool.Put(b) }

// bodyRecorder journals a body as it passes, in records of up to bodyRecordSize bytes, up to
// limit bytes; what comes beyond is counted as truncated and not journaled.
type bodyRecorder struct {
	x         *liveExchange
	part      byte
	limit     int64
	buf       *[]byte
	n         int     // bytes in buf
	size      int64   // bytes journaled or buffered
	truncated bool    // bytes beyond the limit were dropped
	records   []int64 // where the body's records are in the journal
}

func (x *liveExchange) bodyRecorder(part byte, limit int64) *bodyRecorder {
	return &bodyRecorder{x: x, part: part, limit: limit}
}

// Write journals p (up to the limit). It fails only when the journal does.
func (b *bodyRecorder) Write(p []byte) (int, error) {
	written := len(p)
	if room := b.limit - b.size; int64(len(p)) > room {
		p = p[:max(room, 0)]
		b.truncated = true
	}
	for len(p) > 0 {
		if b.buf == nil {
			b.buf = getBuf()
		}
		k := copy((*b.buf)[b.n:], p)
		b.n += k
		b.size += int64(k)
		p = p[k:]
		if b.n == len(*b.buf) {
			if err := b.Flush(); err != nil {
				return 0, err
			}
		}
	}
	return written, nil
}

// Flush journals what is buffered.
func (b *bodyRecorder) Flush() error {
	if b.n == 0 {
		return nil
	}
	off, err := b.x.l.w.Append(recBody, binary.AppendUvarint(nil, b.x.id), []byte{b.part}, (*b.buf)[:b.n])
	b.n = 0
	if err != nil {
		b.x.l.fail(err)
		return err
	}
	b.records = append(b.records, off)
	return nil
}

// release returns the buffer.
func (b *bodyRecorder) release() {
	if b.buf != nil {
		putBuf(b.buf)
		b.buf = nil
	}
}

// journalBody is a body of an exchange in a journal: the offsets of its records.
type journalBody struct {
	records []int64
	size    int64
}

// recordReader reads records again from a journal.
type recordReader interface {
	ReadRecordAt(off int64, buf []byte) (journal.Record, error)
}

// reader returns the body's bytes, read again from the journal (each record's checksum
// checked again).
func (b *journalBody) reader(src recordReader) io.Reader {
	return &bodyReader{src: src, records: b.records}
}

type bodyReader struct {
	src     recordReader
	records []int64
	buf     []byte
	rest    []byte
}

func (r *bodyReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if len(r.records) == 0 {
			return 0, io.EOF
		}
		rec, err := r.src.ReadRecordAt(r.records[0], r.buf)
		if err != nil {
			return 0, err
		}
		r.buf = rec.Payload[:cap(rec.Payload)]
		r.records = r.records[1:]
		_, rest, err := splitExchangeRecord(rec.Payload)
		if err != nil || len(rest) == 0 {
			return 0, fmt.Errorf("%w: body record at %d is malformed", ErrJournal, rec.Offset)
		}
		r.rest = rest[1:] // the part byte
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// readAll reads a whole body into memory; it is only called for bodies within a read limit.
func (b *journalBody) readAll(src recordReader) ([]byte, error) {
	out := bytes.NewBuffer(make([]byte, 0, b.size))
	_, err := io.Copy(out, b.reader(src))
	return out.Bytes(), err
}
