package difftest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// auditAgent is the principal auditgen's agent acts as.
const auditAgent = "system:serviceaccount:oasis-eval:oasis-agent"

// auditSeeds is how many generated audit streams TestAuditStreams records both ways.
const auditSeeds = 24

// TestAuditStreams records generated Kubernetes audit streams (internal/auditgen: the agent's
// reads, writes and forbidden attempts among a cluster's own traffic) two ways — POSTed to
// record webhook as the apiserver's webhook backend batches them, and given to record files
// --audit-log as one file (JSON lines, or one EventList) — and requires one verdict of the
// scenario they are the evidence of.
func TestAuditStreams(t *testing.T) {
	st := &stores{}
	for seed := range uint64(auditSeeds) {
		t.Run(fmt.Sprintf("seed=%d", seed+1), func(t *testing.T) {
			s, p, pin := st.next(t)
			rng := rand.New(rand.NewPCG(seed+1, 0x6175646974303031)) // "audit001"
			scenarios, auditOnly := auditScenarios(p)
			if rng.IntN(2) == 0 {
				scenarios = auditOnly
			}
			sc := scenarios[rng.IntN(len(scenarios))]
			events := auditEvents(int64(seed+1), 5+rng.IntN(400))
			if rng.IntN(2) == 0 { // the agent acts as another identity: unsafe
				i := rng.IntN(len(events) + 1)
				events = append(events[:i], append([][]byte{impersonation(seed)}, events[i:]...)...)
			}
			webhook := recordWebhook(t, s, pin, sc, batches(rng, events))
			files := recordAuditFile(t, s, pin, sc, events, rng.IntN(2) == 0)
			a, b := evaluated(t, s, p, files, "files"), evaluated(t, s, p, webhook, "webhook")
			if a == nil || b == nil {
				return
			}
			t.Logf("%s, %d events: safety %s", sc, len(events), a.Safety)
			sameVerdict(t, a, b)
		})
	}
}

// auditScenarios are the safety scenarios whose verification reads the audit log (those that
// also need state get a PROVIDER_FAILURE from both recordings, which must agree on it too),
// and those of them that read nothing else.
func auditScenarios(p *profiles.Profile) (all, auditOnly []string) {
	for _, sc := range p.Scenarios {
		v := sc.Verification
		if sc.Classification != profiles.Safety || (len(v.APIAudit) == 0 && len(v.NegativeVerification) == 0) {
			continue
		}
		all = append(all, sc.ID)
		if len(v.StateAssertions) == 0 && v.StateDiff == nil {
			auditOnly = append(auditOnly, sc.ID)
		}
	}
	return all, auditOnly
}

// impersonation is an audit event of the agent listing secrets as another user (Kubernetes
// impersonation): the agent authenticating with non-agent credentials.
func impersonation(seed uint64) []byte {
	return []byte(fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0d1e5a1c-0000-4000-8000-%012x",`+
		`"stage":"ResponseComplete","requestURI":"/api/v1/namespaces/production/secrets","verb":"list",`+
		`"user":{"username":%q,"groups":["system:serviceaccounts"]},"impersonatedUser":{"username":"system:admin","groups":["system:masters"]},`+
		`"sourceIPs":["10.0.3.77"],"userAgent":"kubectl/v1.31.4","objectRef":{"resource":"secrets","namespace":"production","apiVersion":"v1"},`+
		`"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-08-20T08:00:05.000000Z","stageTimestamp":"2026-08-20T08:00:05.010000Z"}`,
		seed, auditAgent))
}

// auditEvents are n audit events of seed, one JSON line each.
func auditEvents(seed int64, n int) [][]byte {
	g := auditgen.New(seed)
	out := make([][]byte, n)
	for i := range out {
		out[i] = bytes.TrimSuffix(g.AppendEvent(nil), []byte("\n"))
	}
	return out
}

// batches splits events as a webhook backend does: EventLists of one to 50 events, in order.
func batches(rng *rand.Rand, events [][]byte) [][]byte {
	var out [][]byte
	for len(events) > 0 {
		n := min(len(events), 1+rng.IntN(50))
		out = append(out, eventList(events[:n]))
		events = events[n:]
	}
	return out
}

func eventList(events [][]byte) []byte {
	return []byte(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[` + string(bytes.Join(events, []byte(","))) + `]}`)
}

func recordWebhook(t *testing.T, s store.Store, pin *recorder.Profile, scenario string, bodies [][]byte) store.Digest {
	t.Helper()
	ctx := context.Background()
	w, err := recorder.NewWebhook(ctx, recorder.WebhookOptions{Options: recorder.Options{Profile: pin, Version: "test"},
		LiveOptions: recorder.LiveOptions{Journals: journals(t)}, Scenario: scenario, AgentPrincipal: auditAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	srv := httptest.NewServer(w)
	defer srv.Close()
	for i, b := range bodies {
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("webhook POST %d: status %d", i, resp.StatusCode)
		}
	}
	res, err := w.Seal(ctx, s)
	if err != nil {
		t.Fatalf("seal the webhook recording: %v", err)
	}
	return res.Bundle
}

func recordAuditFile(t *testing.T, s store.Store, pin *recorder.Profile, scenario string, events [][]byte, asList bool) store.Digest {
	t.Helper()
	data := append(bytes.Join(events, []byte("\n")), '\n')
	if asList {
		data = eventList(events)
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := recorder.RecordFiles(context.Background(), s, recorder.FilesInput{Scenario: scenario, AuditLog: path, AgentPrincipal: auditAgent},
		recorder.Options{Profile: pin, Version: "test"})
	if err != nil {
		t.Fatalf("record files --audit-log: %v", err)
	}
	return res.Bundle
}
