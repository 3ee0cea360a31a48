package recorder

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// eventLists builds n EventList bodies from audit2rbac's real log, a few events each.
func eventLists(t *testing.T, n int) [][]byte {
	t.Helper()
	log, err := os.ReadFile(corpus(t, "audit2rbac", "demo.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	var out [][]byte
	for i := range n {
		chunk := lines[(i*5)%len(lines) : min((i*5)%len(lines)+5, len(lines))]
		out = append(out, []byte(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[`+strings.Join(chunk, ",")+`]}`))
	}
	return out
}

func post(t *testing.T, url, contentType string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func newTestWebhook(t *testing.T) *Webhook {
	t.Helper()
	w, err := NewWebhook(context.Background(), WebhookOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Scenario: filesScenario,
		AgentPrincipal: "bob", MaxBody: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWebhook posts EventLists the way the apiserver's webhook backend does, plus requests it
// must refuse, and checks the bundle: one observation per accepted POST, in arrival order,
// byte-exact.
func TestWebhook(t *testing.T) {
	s := memStore(t)
	w := newTestWebhook(t)
	srv := httptest.NewServer(w)
	defer srv.Close()
	bodies := eventLists(t, 3)
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		status            int
		says              string
	}{
		{"first batch", "application/json", bodies[0], http.StatusOK, "{}"},
		{"wrong content type", "text/plain", bodies[0], http.StatusUnsupportedMediaType, "application/json"},
		{"too large", "application/json", bytes.Repeat([]byte(" "), 65<<10), http.StatusRequestEntityTooLarge, "larger than"},
		{"not an event list", "application/json", []byte(`{"kind":"Pod","items":[]}`), http.StatusBadRequest, `kind "Pod" is not an audit EventList`},
		{"malformed", "application/json", []byte("{\"items\": [\n{\"kind\": 0}]}"), http.StatusBadRequest, "body:2: field items[0].kind"},
		{"second batch", "application/json; charset=utf-8", bodies[1], http.StatusOK, "{}"},
		{"third batch", "application/json", bodies[2], http.StatusOK, "{}"},
	} {
		status, msg := post(t, srv.URL, tc.contentType, tc.body)
		if status != tc.status || !strings.Contains(msg, tc.says) {
			t.Errorf("%s: %d %q, want %d containing %q", tc.name, status, msg, tc.status, tc.says)
		}
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	res, err := w.Seal(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := post(t, srv.URL, "application/json", bodies[0]); status != http.StatusServiceUnavailable {
		t.Errorf("POST after the seal: %d", status)
	}
	if _, err := w.Seal(context.Background(), s); !errors.Is(err, ErrClosed) {
		t.Errorf("second seal: %v", err)
	}
	ev := loadEvidence(t, s, res.Manifest, filesScenario)
	if len(ev.Observations) != 3 {
		t.Fatalf("%d observations", len(ev.Observations))
	}
	for i, o := range ev.Observations {
		if o.Type != store.ObservationAuditLog || o.Data.MediaType != store.MediaTypeK8sAuditEventList || o.AgentPrincipal != "bob" ||
			o.Source.Type != SourceTypeAuditWebhook || !bytes.Equal(readBlob(t, s, o.Data.Digest), bodies[i]) {
			t.Errorf("observation %d: %+v", i, o)
		}
	}
	if res.Manifest.Recorder.Source != SourceWebhook || len(res.Manifest.Findings) != 1 || res.Manifest.Findings[0].Code != CodeEmptyTranscript {
		t.Errorf("manifest %+v", res.Manifest)
	}

	// The same POSTs give the same bundle.
	s2 := memStore(t)
	w2 := newTestWebhook(t)
	srv2 := httptest.NewServer(w2)
	defer srv2.Close()
	for _, b := range bodies {
		post(t, srv2.URL, "application/json", b)
	}
	res2, err := w2.Seal(context.Background(), s2)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Bundle != res.Bundle {
		t.Errorf("two recordings of the same POSTs differ: %s and %s", res.Bundle, res2.Bundle)
	}
}

// TestWebhookServe runs the sink on a listener: cancelling the context (what SIGTERM does)
// ends Serve, and so does an idle window; the bundle is then sealed, with a finding when
// nothing arrived.
func TestWebhookServe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		posts  int
		cancel bool
	}{
		{"signal", 2, true},
		{"idle", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := memStore(t)
			idle := 100 * time.Millisecond
			if tc.cancel {
				idle = time.Hour
			}
			w, err := NewWebhook(context.Background(), WebhookOptions{Options: testOptions(t), LiveOptions: LiveOptions{Journals: t.TempDir(), Idle: idle}, Scenario: filesScenario})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- w.Serve(ctx, ln) }()
			for _, b := range eventLists(t, tc.posts) {
				if status, msg := post(t, "http://"+ln.Addr().String(), "application/json", b); status != http.StatusOK {
					t.Fatalf("POST: %d %s", status, msg)
				}
			}
			if tc.cancel {
				cancel()
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			res, err := w.Seal(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			out := struct{ res *Sealed }{res}
			sealed, err := store.IsSealed(context.Background(), s, out.res.Bundle)
			if err != nil || !sealed {
				t.Fatalf("bundle %s not sealed: %v", out.res.Bundle, err)
			}
			ev := loadEvidence(t, s, out.res.Manifest, filesScenario)
			if len(ev.Observations) != tc.posts {
				t.Errorf("%d observations, want %d", len(ev.Observations), tc.posts)
			}
			if got := findingsWith(out.res.Manifest, CodeEmptyWindow); (len(got) == 1) != (tc.posts == 0) {
				t.Errorf("empty-window findings %+v", got)
			}
		})
	}
}
