package recorder

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// seesVerdicts decides by whether a scenario's audit payloads hold a word: a stand-in for an
// evaluator whose verdict reads a namespace.
type seesVerdicts struct{ word string }

func (v seesVerdicts) Outcomes(ctx context.Context, src Source, m store.Digest) (map[string][]string, error) {
	b, err := src.GetObject(ctx, m)
	if err != nil {
		return nil, err
	}
	man, err := store.DecodeManifest(b)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{"": {"run"}}
	for _, ref := range man.Scenarios {
		eb, err := src.GetObject(ctx, ref.Evidence.Digest)
		if err != nil {
			return nil, err
		}
		ev, err := store.DecodeScenarioEvidence(eb)
		if err != nil {
			return nil, err
		}
		line := "does not see " + v.word
		for _, o := range ev.Observations {
			rc, _, err := src.OpenBlob(ctx, o.Data.Digest)
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			if bytes.Contains(data, []byte(v.word)) {
				line = "sees " + v.word
			}
		}
		out[ref.ScenarioID] = []string{line}
	}
	return out, nil
}

// TestVerdictCheckWebhook: sealing a webhook journal runs the check on the bodies as they were
// received: the twin's evaluation sees the namespace redaction hid from the bundle's. (With
// the real evaluator, this scenario is a provider failure without snapshots either way: a
// stand-in evaluator shows the plumbing.)
func TestVerdictCheckWebhook(t *testing.T) {
	ctx := context.Background()
	red, err := redact.New([]byte("0123456789abcdef-test-key"), []string{"payments"})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.Redactor, opts.Verdicts = red, seesVerdicts{word: "payments"}
	w, err := NewWebhook(ctx, WebhookOptions{Options: opts, LiveOptions: liveOptions(t), Scenario: filesScenario, AgentPrincipal: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w)
	body := `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[{"kind":"Event","apiVersion":"audit.k8s.io/v1",` +
		`"level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/apis/apps/v1/namespaces/payments/deployments/checkout-api",` +
		`"verb":"patch","user":{"username":"bob"},"objectRef":{"resource":"deployments","namespace":"payments","name":"checkout-api"},` +
		`"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-05-04T09:01:00.000000Z","stageTimestamp":"2026-05-04T09:01:00.100000Z"}]}`
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
	res, err := w.Seal(ctx, memStore(t))
	if err != nil {
		t.Fatal(err)
	}
	got := findingsWith(res.Manifest, CodeRedactionChangesVerdict)
	if len(got) != 1 || got[0].Scenario != filesScenario {
		t.Fatalf("findings %v", res.Manifest.Findings)
	}
	// The outcome lines here name the value itself; the finding goes through the hooks, so
	// the bundle never holds it.
	m := red.Marker("payments")
	want := `redaction changes the verdict of scenario ` + filesScenario + `: "sees ` + m + `" unredacted, "does not see ` + m + `" as recorded; markers: ` + m
	if got[0].Message != want {
		t.Errorf("message\n%s\nwant\n%s", got[0].Message, want)
	}
}
