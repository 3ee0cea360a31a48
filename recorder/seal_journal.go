package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder/journal"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// SealOptions is what sealing a journal needs besides the journal: the redaction (its values
// and key are never written to a journal) and the hooks.
type SealOptions struct {
	Redactor *redact.Redactor
	Hooks    []Hook
	// Verdicts, when set, checks that redaction changes no verdict (Options.Verdicts).
	Verdicts Verdicts
}

// Sealed is a live recording sealed from its journal.
type Sealed struct {
	*Result
	// Journal is the journal's directory (removed once the bundle was sealed).
	Journal string
	// Exchanges is the number of complete exchanges (proxy calls, webhook POSTs) sealed.
	Exchanges int
	// Incomplete lists the exchanges the journal holds only in part: cut when the recording
	// stopped, or when the recorder died. They are not in the bundle.
	Incomplete []Incomplete
	// CutBytes is the size of the torn tail cut from the journal (a record the recorder was
	// writing when it died).
	CutBytes int64
}

// Incomplete is an exchange left out of a sealed recording.
type Incomplete struct {
	Exchange string `json:"exchange"` // "provider POST /v1/observe", "webhook POST"
	Reason   string `json:"reason"`
}

// RecoverJournal seals the journal in dir, which a live recorder left behind (killed, or
// unable to open the store), into s: every exchange the journal holds complete goes into the
// bundle, exactly as the recorder would have sealed it; the others are listed as incomplete.
// The journal is removed once the bundle is sealed (durable), so recovering twice seals one
// bundle. A journal that a live recorder still writes is refused with journal.ErrInUse.
func RecoverJournal(ctx context.Context, s Store, dir string, opts SealOptions) (*Sealed, error) {
	j, err := journal.Open(dir)
	if err != nil {
		return nil, err
	}
	return sealFinished(ctx, s, j, opts)
}

// sealFinished seals a journal this process holds, then removes it; on failure the journal
// is released and left on disk.
func sealFinished(ctx context.Context, s Store, j *journal.Journal, opts SealOptions) (*Sealed, error) {
	sealed, err := sealJournal(ctx, s, j, opts)
	if err != nil {
		j.Close()
		return nil, err
	}
	if err := j.Remove(); err != nil {
		return sealed, err
	}
	return sealed, nil
}

func sealJournal(ctx context.Context, s Store, j *journal.Journal, opts SealOptions) (*Sealed, error) {
	c, tail, err := readCapture(j)
	if err != nil {
		return nil, err
	}
	if tail.Torn() > 0 {
		if err := j.Cut(tail.End); err != nil {
			return nil, err
		}
	}
	if err := c.header.Redaction.check(opts.Redactor); err != nil {
		return nil, err
	}
	profile, err := c.profile()
	if err != nil {
		return nil, err
	}
	recOpts := Options{Profile: profile, Redactor: opts.Redactor, Hooks: opts.Hooks, Tags: c.header.Tags,
		Version: c.header.Version, Verdicts: opts.Verdicts}
	if _, err := newRecording(nil, recOpts, c.header.Source); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrJournal, j.Dir(), err)
	}
	n := -1 // the exchanges of the recording itself, not of the verdict check's twin
	res, err := record(ctx, s, recOpts, c.header.Source, func(ctx context.Context, rec *recording) error {
		if err := rec.begin(ctx); err != nil {
			return err
		}
		var m int
		var err error
		switch c.header.Source {
		case SourceProxy:
			m, err = sealProxy(ctx, rec, c, j)
		case SourceWebhook:
			m, err = sealWebhook(ctx, rec, c, j)
		}
		if n < 0 {
			n = m
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Sealed{Result: res, Journal: j.Dir(), Exchanges: n, Incomplete: c.incomplete(), CutBytes: tail.Torn()}, nil
}

// capture is what a journal holds, indexed: bodies are located, not read.
type capture struct {
	header    liveHeader
	files     map[string][]byte
	exchanges map[uint64]*capturedExchange
	order     []uint64       // exchanges in the order they began
	events    []captureEvent // arrivals and completions, in journal order
}

// captureEvent is the arrival of an exchange's request (end false) or its completion.
type captureEvent struct {
	id  uint64
	end bool
}

// capturedExchange is one exchange's records.
type capturedExchange struct {
	id           uint64
	head         capturedHead
	requestBody  journalBody
	responseBody journalBody
	arrival      *capturedArrival
	response     *capturedResponse
	end          *capturedEnd
	cut          string // why it was cut
	refused      bool   // a POST the webhook refused: answered with an error, not lost
}

func (ce *capturedExchange) complete() bool { return ce.end != nil }

// readCapture scans a journal into a capture, up to its torn tail.
func readCapture(j *journal.Journal) (*capture, journal.Tail, error) {
	c := &capture{files: map[string][]byte{}, exchanges: map[uint64]*capturedExchange{}}
	first := true
	tail, err := j.Scan(func(r journal.Record) error {
		if err := c.add(r, first); err != nil {
			return fmt.Errorf("%w: %s: record at offset %d: %w", ErrJournal, j.Dir(), r.Offset, err)
		}
		first = false
		return nil
	})
	if err != nil {
		return nil, tail, err
	}
	if first {
		return nil, tail, fmt.Errorf("%w: %s holds no header: the recorder died while it started, or the journal is damaged; nothing can be sealed from it (remove it)", ErrJournal, j.Dir())
	}
	return c, tail, nil
}

func (c *capture) add(r journal.Record, first bool) error {
	if first != (r.Type == recHeader) {
		return fmt.Errorf("the header must be the first record, and only it")
	}
	switch r.Type {
	case recHeader:
		return c.readHeader(r.Payload)
	case recFile:
		name, data, err := splitFileRecord(r.Payload)
		if err != nil {
			return err
		}
		if _, dup := c.files[name]; dup || !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("profile file %q is invalid or listed twice", name)
		}
		c.files[name] = slices.Clone(data)
		return nil
	}
	id, rest, err := splitExchangeRecord(r.Payload)
	if err != nil {
		return err
	}
	if r.Type == recBegin {
		if _, dup := c.exchanges[id]; dup {
			return fmt.Errorf("exchange %d begins twice", id)
		}
		ce := &capturedExchange{id: id}
		c.exchanges[id] = ce
		c.order = append(c.order, id)
		return json.Unmarshal(rest, &ce.head)
	}
	ce := c.exchanges[id]
	if ce == nil || ce.end != nil || ce.cut != "" || ce.refused {
		return fmt.Errorf("a record of exchange %d, which has not begun or is over", id)
	}
	return c.addToExchange(ce, r, rest)
}

func (c *capture) addToExchange(ce *capturedExchange, r journal.Record, rest []byte) error {
	switch r.Type {
	case recBody:
		if len(rest) == 0 {
			return fmt.Errorf("body record without a part")
		}
		body := &ce.requestBody
		if rest[0] == partResponse {
			body = &ce.responseBody
		}
		body.records = append(body.records, r.Offset)
		body.size += int64(len(rest) - 1)
		return nil
	case recArrived:
		ce.arrival = &capturedArrival{}
		c.events = append(c.events, captureEvent{id: ce.id})
		if err := json.Unmarshal(rest, ce.arrival); err != nil {
			return err
		}
		return sameSize(ce.id, "request", ce.arrival.Size, ce.requestBody.size)
	case recResponse:
		ce.response = &capturedResponse{}
		return json.Unmarshal(rest, ce.response)
	case recEnd:
		ce.end = &capturedEnd{}
		c.events = append(c.events, captureEvent{id: ce.id, end: true})
		if err := json.Unmarshal(rest, ce.end); err != nil {
			return err
		}
		if c.header.Source == SourceWebhook {
			return sameSize(ce.id, "request", ce.end.Size, ce.requestBody.size) // a POST's body
		}
		return sameSize(ce.id, "response", ce.end.Size, ce.responseBody.size)
	case recCut:
		ce.cut = string(rest)
		if ce.cut == "" {
			ce.cut = "cut"
		}
		return nil
	case recRefused:
		ce.refused = true
		ce.cut = string(rest)
		return nil
	}
	return fmt.Errorf("unknown record type %q", byte(r.Type))
}

// sameSize checks a body's size as a closing record states it against the bytes the journal
// holds.
func sameSize(id uint64, body string, stated, held int64) error {
	if stated != held {
		return fmt.Errorf("exchange %d: its %s body is %d bytes, the journal holds %d", id, body, stated, held)
	}
	return nil
}

func (c *capture) readHeader(p []byte) error {
	if err := json.Unmarshal(p, &c.header); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	h := &c.header
	switch {
	case h.Format != journalFormat:
		return fmt.Errorf("journal format %d, this build reads format %d", h.Format, journalFormat)
	case h.Source == SourceProxy && h.Proxy != nil && h.Webhook == nil:
	case h.Source == SourceWebhook && h.Webhook != nil && h.Proxy == nil:
	default:
		return fmt.Errorf("header: source %q with settings for %s", h.Source, settingsOf(h))
	}
	return nil
}

func settingsOf(h *liveHeader) string {
	switch {
	case h.Proxy != nil && h.Webhook != nil:
		return "both sources"
	case h.Proxy != nil:
		return SourceProxy
	case h.Webhook != nil:
		return SourceWebhook
	}
	return "no source"
}

// profile loads the pinned profile from the files the journal holds, and checks it is the
// one the recording pinned.
func (c *capture) profile() (*Profile, error) {
	tree := &store.ProfileTree{}
	blobs := memBlobs{}
	for _, name := range slices.Sorted(maps.Keys(c.files)) {
		data := c.files[name]
		d := store.Sum(data)
		blobs[d] = data
		tree.Entries = append(tree.Entries, store.TreeEntry{Path: name, Blob: store.Descriptor{Digest: d, Size: int64(len(data))}})
	}
	pin := c.header.Profile
	p, err := ProfileFromFS(profiles.TreeFS(context.Background(), blobs, tree), pin.SourceCommit)
	if err != nil {
		return nil, fmt.Errorf("%w: the journal's profile: %w", ErrJournal, err)
	}
	if p.Pin.Tree != pin.Tree {
		return nil, fmt.Errorf("%w: the journal's profile files make tree %s, the recording pinned %s", ErrJournal, p.Pin.Tree, pin.Tree)
	}
	return p, nil
}

// memBlobs serves the journal's profile files to profiles.TreeFS.
type memBlobs map[store.Digest][]byte

func (m memBlobs) OpenBlob(_ context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	b, ok := m[d]
	if !ok {
		return nil, 0, fmt.Errorf("%w: %s", store.ErrNotFound, d)
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

// incomplete lists the exchanges left out, in the order they began.
func (c *capture) incomplete() []Incomplete {
	var out []Incomplete
	for _, id := range c.order {
		ce := c.exchanges[id]
		if ce.complete() || ce.refused {
			continue
		}
		reason := ce.cut
		if reason == "" {
			reason = "the recorder stopped before the exchange was complete"
		}
		out = append(out, Incomplete{Exchange: ce.describe(c.header.Source), Reason: reason})
	}
	return out
}

func (ce *capturedExchange) describe(source string) string {
	if source == SourceWebhook {
		return fmt.Sprintf("webhook POST %d", ce.id+1)
	}
	return ce.head.Side + " " + ce.head.Method + " " + ce.head.Target
}
