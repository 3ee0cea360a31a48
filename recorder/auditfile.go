package recorder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/oasis-replay/oasis-replay/evaluator/auditlog"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// detectWindow is how much of an audit log DetectAuditFormat looks at.
const detectWindow = 64 << 10

// DetectAuditFormat tells the two forms of a Kubernetes audit log apart from their first
// bytes: audit.k8s.io Event objects one per line, as the apiserver's log backend writes them
// (store.MediaTypeK8sAuditEvents), or one EventList document, as its webhook backend posts
// them (store.MediaTypeK8sAuditEventList). The top-level "kind" of the first document decides;
// a first document that spans several lines can only be an EventList; without a decision the
// log is read as lines, whose reader rejects an EventList line by name. Anything that does not
// begin with a JSON object is an error.
func DetectAuditFormat(head []byte) (string, error) {
	head = bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", errors.New("empty audit log")
	}
	if trimmed[0] != '{' {
		return "", fmt.Errorf("not an audit log: it begins with %q, not a JSON object", firstRune(trimmed))
	}
	first, _, complete := bytes.Cut(trimmed, []byte("\n"))
	if kind, ok := topLevelKind(trimmed); ok {
		if kind == "EventList" {
			return store.MediaTypeK8sAuditEventList, nil
		}
		return store.MediaTypeK8sAuditEvents, nil
	}
	if complete && !json.Valid(bytes.TrimSpace(first)) {
		return store.MediaTypeK8sAuditEventList, nil // a document spread over lines
	}
	return store.MediaTypeK8sAuditEvents, nil
}

func firstRune(b []byte) string {
	r := []rune(string(b[:min(len(b), 4)]))
	if len(r) == 0 {
		return ""
	}
	return string(r[0])
}

// topLevelKind reads the "kind" member of the first JSON object in b, if it comes before the
// end of b.
func topLevelKind(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if key == "kind" {
			var kind string
			if json.Unmarshal(v, &kind) != nil {
				return "", false
			}
			return kind, true
		}
	}
	return "", false
}

// auditFile is an audit log file checked by pass 1.
type auditFile struct {
	path      string // as given
	mediaType string
	digest    store.Digest // of the bytes as stored (after the hooks)
	size      int64
}

// checkAuditFile is pass 1 for an audit log: the format is detected, then every entry is read
// by the evaluator's own audit-log reader, through the hooks, so what is stored is exactly what
// was checked and the evaluator can read all of it. The file is streamed: memory is bounded by
// the largest entry (auditlog.DefaultMaxEntryBytes), whatever the size of the log.
func (r *recording) checkAuditFile(ctx context.Context, path string) (*auditFile, error) {
	f, err := inputfile.Open(ctx, path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot read the audit log", Err: err}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, detectWindow)
	head, err := br.Peek(detectWindow)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &InputError{File: path, Msg: "cannot read the audit log", Err: err}
	}
	mediaType, err := DetectAuditFormat(head)
	if err != nil {
		return nil, &InputError{File: path, Line: 1, Msg: err.Error()}
	}
	hash := newBackgroundDigester()
	src := io.TeeReader(r.hooks.reader(br), hash)
	_, err = auditlog.ScanWith(src, mediaType, auditlog.Options{}, func(*auditlog.Entry) error { return nil })
	digest, size := hash.finish()
	if err != nil {
		return nil, auditInputError(path, mediaType, err)
	}
	return &auditFile{path: path, mediaType: mediaType, digest: digest, size: size}, nil
}

// backgroundDigester hashes what is written to it on another goroutine, so that hashing a
// large file overlaps with checking it.
type backgroundDigester struct {
	blocks chan []byte
	done   chan struct{}
	d      *store.Digester
	n      int64
	free   sync.Pool
}

func newBackgroundDigester() *backgroundDigester {
	h := &backgroundDigester{blocks: make(chan []byte, 16), done: make(chan struct{}), d: store.NewDigester()}
	go func() {
		defer close(h.done)
		for b := range h.blocks {
			h.d.Write(b)
			h.free.Put(&b)
		}
	}()
	return h
}

// Write queues a copy of p; it never fails.
func (h *backgroundDigester) Write(p []byte) (int, error) {
	var b []byte
	if pb, ok := h.free.Get().(*[]byte); ok && cap(*pb) >= len(p) {
		b = (*pb)[:len(p)]
	} else {
		b = make([]byte, len(p), max(len(p), 64<<10))
	}
	copy(b, p)
	h.n += int64(len(p))
	h.blocks <- b
	return len(p), nil
}

// finish waits for the queued blocks and returns the digest and size of everything written.
func (h *backgroundDigester) finish() (store.Digest, int64) {
	close(h.blocks)
	<-h.done
	return h.d.Digest(), h.n
}

// auditInputError turns an audit-log reader error into an InputError naming file and line.
func auditInputError(path, mediaType string, err error) error {
	form := "JSON lines of audit Events"
	if mediaType == store.MediaTypeK8sAuditEventList {
		form = "an audit EventList"
	}
	var syn *auditlog.SyntaxError
	if errors.As(err, &syn) {
		return &InputError{File: path, Line: syn.Line, Field: syn.Field, Msg: fmt.Sprintf("not %s: %s (byte %d)", form, syn.Msg, syn.Offset), Err: err}
	}
	return &InputError{File: path, Msg: "not " + form, Err: err}
}

// writeAuditFile is pass 2: the file is streamed into the store through the hooks and must
// give the digest pass 1 computed. Content already in the store is not written again.
func (r *recording) writeAuditFile(ctx context.Context, a *auditFile) (store.Descriptor, error) {
	desc := store.Descriptor{MediaType: a.mediaType, Digest: a.digest, Size: a.size}
	if e, err := r.s.Stat(ctx, a.digest); err == nil && e.Size == a.size {
		return desc, nil
	}
	f, err := inputfile.Open(ctx, a.path)
	if err != nil {
		return store.Descriptor{}, &InputError{File: a.path, Msg: "cannot read the audit log again", Err: err}
	}
	defer f.Close()
	got, err := r.putStream(ctx, f, a.mediaType)
	if err != nil {
		return store.Descriptor{}, err
	}
	if got.Digest != a.digest || got.Size != a.size {
		return store.Descriptor{}, &InputError{File: a.path, Msg: fmt.Sprintf("the file changed while being recorded (%s became %s); store gc removes what was written", a.digest, got.Digest), Err: ErrChanged}
	}
	return desc, nil
}

// displayName is how a file given on the command line is named inside a bundle: its base
// name, so that where the file was stored never reaches a digest.
func displayName(path string) string { return filepath.Base(path) }
