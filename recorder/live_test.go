package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/recorder/journal"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// copyJournal copies a journal directory, as a recorder killed at this point would leave it.
func copyJournal(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, journal.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

func bundleRefs(t *testing.T, s store.Store) int {
	t.Helper()
	refs, err := s.ListRefs(context.Background(), store.RefBundlePrefix)
	if err != nil {
		t.Fatal(err)
	}
	return len(refs)
}

// TestRecoverGivesTheRecordersBundle: recovering a complete journal seals exactly the bundle
// the proxy sealed itself (with redaction too), removes the journal, and recovering a second
// copy of it (a crash between the seal and the removal) seals the same bundle again.
func TestRecoverGivesTheRecordersBundle(t *testing.T) {
	red, err := redact.New([]byte("a-redaction-key-of-16+"), []string{"fake-petri"})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.Redactor = red
	opts.Tags = []string{"live"}
	var copies []string
	res, _ := recordRunWith(t, memStore(t), proxyScenarios, true, opts, func(p *Proxy) {
		copies = append(copies, copyJournal(t, p.Journal()), copyJournal(t, p.Journal()))
		if _, err := os.Stat(p.Journal()); err != nil {
			t.Fatalf("the live journal: %v", err)
		}
	})
	if res.Exchanges != 2+6*4+1 || len(res.Incomplete) != 0 || res.CutBytes != 0 {
		t.Errorf("sealed %d exchanges, incomplete %v, cut %d", res.Exchanges, res.Incomplete, res.CutBytes)
	}
	if _, err := os.Stat(res.Journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal is still there after the seal: %v", err)
	}
	if res.Manifest.Provider == nil || !strings.HasPrefix(res.Manifest.Provider.Name, "[REDACTED:hmac-sha256:") {
		t.Errorf("provider %+v: the redacted value is not redacted", res.Manifest.Provider)
	}

	s := memStore(t)
	for _, tc := range []struct {
		name string
		red  *redact.Redactor
	}{
		{"no redaction", nil},
		{"another key", mustRedactor(t, "another-key-of-16-bytes", "fake-petri")},
		{"other values", mustRedactor(t, "a-redaction-key-of-16+", "fake-agent")},
	} {
		if _, err := RecoverJournal(context.Background(), s, copies[0], SealOptions{Redactor: tc.red}); !errors.Is(err, ErrRedactionMismatch) {
			t.Errorf("%s: %v, want a redaction mismatch", tc.name, err)
		}
	}
	for i, dir := range copies {
		got, err := RecoverJournal(context.Background(), s, dir, SealOptions{Redactor: red})
		if err != nil {
			t.Fatalf("recover copy %d: %v", i, err)
		}
		if got.Bundle != res.Bundle {
			t.Errorf("recovered bundle %s, the recorder sealed %s", got.Bundle, res.Bundle)
		}
		if diff := cmp.Diff(res.Manifest, got.Manifest); diff != "" {
			t.Errorf("manifests differ (-recorder +recovered):\n%s", diff)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("copy %d is still there after recovery: %v", i, err)
		}
	}
	if n := bundleRefs(t, s); n != 1 {
		t.Errorf("%d bundles after two recoveries of the same journal", n)
	}
	if got, err := s.GetRef(context.Background(), "tags/live"); err != nil || got != res.Bundle {
		t.Errorf("tag: %s %v", got, err)
	}
	storeState(t, s) // fsck clean
}

func mustRedactor(t *testing.T, key string, values ...string) *redact.Redactor {
	t.Helper()
	r, err := redact.New([]byte(key), values)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// blockingUpstream answers /v1/conformance at once and holds /v1/hold until release is
// closed; held receives each held call as it arrives.
func blockingUpstream(t *testing.T) (srv *httptest.Server, held chan struct{}, release chan struct{}) {
	held, release = make(chan struct{}, 8), make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/hold" {
			held <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, held, release
}

// TestRecoverKilledRecorder: the journal of a recorder killed while a call was in flight, and
// while it was writing a record, recovers: the complete exchanges are sealed, the call in
// flight is reported incomplete, the torn record is cut.
func TestRecoverKilledRecorder(t *testing.T) {
	up, held, release := blockingUpstream(t)
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Provider: up.URL, Agent: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.ProviderHandler())
	defer srv.Close()
	for range 3 {
		if resp, err := http.Get(srv.URL + "/v1/conformance"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("conformance: %v", err)
		} else {
			resp.Body.Close()
		}
	}
	go func() {
		if resp, err := http.Post(srv.URL+"/v1/hold", "application/json", strings.NewReader(`{"environment_id":"env-1"}`)); err == nil {
			resp.Body.Close()
		}
	}()
	<-held
	killed := copyJournal(t, p.Journal())
	close(release)
	path := filepath.Join(killed, journal.FileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x12, 0x34, 0x56, 0x78, 0xff, 0, 0, 0, 'D', 'p', 'a', 'r', 't'}) // a record the recorder was writing
	f.Close()

	s := diskStore(t)
	got, err := RecoverJournal(context.Background(), s, killed, SealOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Incomplete{{Exchange: "provider POST /v1/hold", Reason: "the recorder stopped before the exchange was complete"}}
	if got.Exchanges != 3 || got.CutBytes != 13 || !cmp.Equal(got.Incomplete, want) {
		t.Errorf("recovered %d exchanges, cut %d bytes, incomplete %+v", got.Exchanges, got.CutBytes, got.Incomplete)
	}
	if len(got.Manifest.Sources) != 3 || got.Manifest.Conformance == nil {
		t.Errorf("manifest sources %+v", got.Manifest.Sources)
	}
	storeState(t, s)
}

// TestProxyStopCutsCallsInFlight: sealing while a call waits on its upstream lets it finish
// for the grace period, then cuts it: the runner's call fails, the exchange is reported as
// incomplete and not sealed, and sealing does not wait for the upstream.
func TestProxyStopCutsCallsInFlight(t *testing.T) {
	up, held, _ := blockingUpstream(t)
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: LiveOptions{Journals: t.TempDir(), Grace: 200 * time.Millisecond},
		Provider: up.URL, Agent: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.ProviderHandler())
	defer srv.Close()
	answered := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/v1/hold", "application/json", strings.NewReader(`{}`))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				err = errors.New("answered")
			}
		}
		answered <- err
	}()
	<-held
	start := time.Now()
	res, err := p.Seal(context.Background(), memStore(t))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("sealing took %s", took)
	}
	want := []Incomplete{{Exchange: "provider POST /v1/hold", Reason: "cut when the recording stopped, waiting for the upstream"}}
	if res.Exchanges != 0 || !cmp.Equal(res.Incomplete, want) {
		t.Errorf("sealed %d, incomplete %+v", res.Exchanges, res.Incomplete)
	}
	if err := <-answered; err == nil || err.Error() == "answered" {
		t.Errorf("the cut call: %v", err)
	}
	if resp, err := http.Get(srv.URL + "/v1/conformance"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("a call after the seal: %d", resp.StatusCode)
		}
	}
}

// TestProxyReadLimit: an answer larger than the read limit is recorded whole in its exchange
// but not read, with a finding.
func TestProxyReadLimit(t *testing.T) {
	big := `{"environment_id":"env-1","observation_type":"audit_log","data":{"entries":[` + strings.Repeat(`{"verb":"get"},`, 100) + `{"verb":"get"}]}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, big)
	}))
	defer up.Close()
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Provider: up.URL, Agent: up.URL, MaxRead: 512})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.ProviderHandler())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/observe", "application/json", strings.NewReader(`{"environment_id":"env-1","observation_type":"audit_log"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != big {
		t.Errorf("the runner got %d bytes, the upstream sent %d", len(got), len(big))
	}
	s := memStore(t)
	res, err := p.Seal(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	f := findingsWith(res.Manifest, CodeUnreadBody)
	if len(f) != 1 || !strings.Contains(f[0].Message, fmt.Sprintf("%d bytes, more than the 512", len(big))) {
		t.Errorf("findings %+v", res.Manifest.Findings)
	}
	if doc := readBlob(t, s, res.Manifest.Sources[0].Blob.Digest); !bytes.Contains(doc, []byte(`{\"verb\":\"get\"}]}}"`)) {
		t.Errorf("the exchange does not hold the whole answer: %.200s…", doc)
	}
}

// TestWebhookRecoverGivesTheSinksBundle: the webhook's journal recovers into the bundle the
// sink sealed itself; refused POSTs are neither sealed nor reported.
func TestWebhookRecoverGivesTheSinksBundle(t *testing.T) {
	w := newTestWebhook(t)
	srv := httptest.NewServer(w)
	defer srv.Close()
	for _, b := range eventLists(t, 3) {
		if status, msg := post(t, srv.URL, "application/json", b); status != http.StatusOK {
			t.Fatalf("POST: %d %s", status, msg)
		}
	}
	if status, _ := post(t, srv.URL, "application/json", []byte(`{"kind":"Pod"}`)); status != http.StatusBadRequest {
		t.Errorf("a refused POST: %d", status)
	}
	killed := copyJournal(t, w.Journal())
	res, err := w.Seal(context.Background(), memStore(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := RecoverJournal(context.Background(), memStore(t), killed, SealOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Bundle != res.Bundle || got.Exchanges != 3 || len(got.Incomplete) != 0 {
		t.Errorf("recovered %s (%d POSTs, incomplete %v), the sink sealed %s", got.Bundle, got.Exchanges, got.Incomplete, res.Bundle)
	}
}

// TestRecoverRefusesLiveJournal: a journal a recorder still writes is not recovered.
func TestRecoverRefusesLiveJournal(t *testing.T) {
	w := newTestWebhook(t)
	defer w.Close()
	if _, err := RecoverJournal(context.Background(), memStore(t), w.Journal(), SealOptions{}); !errors.Is(err, journal.ErrInUse) {
		t.Errorf("recover a live journal: %v", err)
	}
}
