package recorder

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/recorder/journal"
	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzWebhookBody: format detection and the EventList check of a POST body never panic, and
// detection only ever names one of the two audit-log media types.
func FuzzWebhookBody(f *testing.F) {
	f.Add([]byte(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[{"kind":"Event","verb":"get","user":{"username":"u"}}]}`))
	f.Add([]byte("{\"kind\":\"Event\",\"verb\":\"get\"}\n{\"kind\":\"Event\"}\n"))
	f.Add([]byte("{\n \"items\": [],\n \"kind\": \"EventList\"\n}"))
	f.Add([]byte(`{"kind": 0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mediaType, err := auditlog.DetectFormat(data)
		if err == nil && mediaType != store.MediaTypeK8sAuditEvents && mediaType != store.MediaTypeK8sAuditEventList {
			t.Fatalf("detected %q", mediaType)
		}
		if err := checkEventList(bytes.NewReader(data)); err != nil && !errors.Is(err, ErrInput) {
			t.Fatalf("the check failed with %v, not an input error", err)
		}
	})
}

// fuzzRecords encodes records for FuzzJournalRecords: each a type byte, a 16-bit little-endian
// length and the payload.
func fuzzRecords(records ...[]byte) []byte {
	var out []byte
	for _, r := range records {
		out = append(out, r[0], byte(len(r)-1), byte((len(r)-1)>>8))
		out = append(out, r[1:]...)
	}
	return out
}

func fuzzExchangeRecord(t journal.Type, id uint64, payload string) []byte {
	p, _ := exchangeRecord(id, payload)
	return append([]byte{byte(t)}, p...)
}

// FuzzJournalRecords: whatever records a journal holds (each one whole and checksummed, as
// written by a recorder with a bug or by hand), reading them for sealing never panics, and
// either fails with ErrJournal or gives a capture whose incomplete exchanges can be listed.
func FuzzJournalRecords(f *testing.F) {
	header := `{"format":1,"source":"proxy","version":"test","profile":{"id":"p","version":"1","tree":"sha256:` + strings.Repeat("0", 64) +
		`"},"redaction":{"values":0},"proxy":{"max_body":64,"max_read":64}}`
	f.Add(fuzzRecords([]byte("H" + header)))
	f.Add(fuzzRecords([]byte("H"+header), []byte("F\x05a.yamlid: p\n"),
		fuzzExchangeRecord(recBegin, 0, `{"side":"provider","method":"POST","target":"/v1/provision"}`),
		fuzzExchangeRecord(recBody, 0, "q{\"scenario_id\":\"x\"}"),
		fuzzExchangeRecord(recArrived, 0, `{"size":18}`),
		fuzzExchangeRecord(recResponse, 0, `{"status":200}`),
		fuzzExchangeRecord(recBody, 0, `s{"environment_id":"e"}`),
		fuzzExchangeRecord(recEnd, 0, `{"size":22}`),
		fuzzExchangeRecord(recBegin, 1, `{"side":"agent","method":"POST","target":"/"}`),
		fuzzExchangeRecord(recCut, 1, "cut")))
	f.Add(fuzzRecords([]byte(`H{"format":1,"source":"webhook","webhook":{"scenario":"s"}}`),
		fuzzExchangeRecord(recBegin, 7, `{}`), fuzzExchangeRecord(recRefused, 7, "no")))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := journal.Create(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for len(data) >= 3 {
			typ, n := journal.Type(data[0]), int(data[1])|int(data[2])<<8
			data = data[3:]
			n = min(n, len(data))
			if typ != 0 {
				if _, err := w.Append(typ, data[:n]); err != nil {
					t.Fatal(err)
				}
			}
			data = data[n:]
		}
		j := w.Finish()
		defer j.Close()
		c, _, err := readCapture(j)
		if err != nil {
			if !errors.Is(err, ErrJournal) {
				t.Fatalf("not a journal error: %v", err)
			}
			return
		}
		_ = c.incomplete()
		if _, err := c.profile(); err != nil && !errors.Is(err, ErrJournal) {
			t.Fatalf("the profile: not a journal error: %v", err)
		}
	})
}
