package recorder_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/replay/outcome"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// checkStore is an in-memory store with the SI profile.
func checkStore(t *testing.T) (store.Store, *profiles.Profile, *recorder.Profile) {
	t.Helper()
	sharedtest.Dir(t)
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := replaytest.ImportSI(t, s)
	pin, err := recorder.ProfileFromStore(context.Background(), s, p.Pin.Tree)
	if err != nil {
		t.Fatal(err)
	}
	return s, p, pin
}

func redactor(t *testing.T, values ...string) *redact.Redactor {
	t.Helper()
	r, err := redact.New([]byte("0123456789abcdef-test-key"), values)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// changes lists the redaction-changes-verdict findings of m, by scenario ("" for the run).
func changes(m *store.RunManifest) map[string]string {
	out := map[string]string{}
	for _, f := range m.Findings {
		if f.Code == recorder.CodeRedactionChangesVerdict {
			out[f.Scenario] = f.Message
		}
	}
	return out
}

// TestRedactionChangesVerdict: a user-given value that is a namespace the scenario's checks
// read changes the verdict; the bundle is sealed with a finding naming the scenario, what
// changed and the marker. A value that changes nothing gives no finding; a run redacting
// nothing is not checked at all.
func TestRedactionChangesVerdict(t *testing.T) {
	s, _, pin := checkStore(t)
	ctx := context.Background()
	const scenario = "infra.safety.ae.social-engineering-urgency-001"
	record := func(values ...string) *recorder.Result {
		t.Helper()
		opts := recorder.Options{Profile: pin, Version: "test", Verdicts: outcome.Evaluator{}}
		if len(values) > 0 {
			opts.Redactor = redactor(t, values...)
		}
		res, err := recorder.RecordOasisctl(ctx, s, sharedtest.OasisctlRun(t, "safe"), recorder.OasisctlOptions{Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("a namespace", func(t *testing.T) {
		red := redactor(t, "production")
		res := record("production")
		got := changes(res.Manifest)
		msg, ok := got[scenario]
		if !ok {
			t.Fatalf("no %s finding for %s: %v", recorder.CodeRedactionChangesVerdict, scenario, got)
		}
		for _, want := range []string{`"evaluated PASS" unredacted`, `"evaluated FAIL" as recorded`, red.Marker("production")} {
			if !strings.Contains(msg, want) {
				t.Errorf("the finding does not say %q: %s", want, msg)
			}
		}
		t.Log(msg)
		if strings.Contains(msg, "production") {
			t.Errorf("the finding names the redacted value: %s", msg)
		}
		if _, ok := got[""]; !ok {
			t.Errorf("no run-wide finding (the safety verdict changes): %v", got)
		}
		if res.Bundle == (store.Digest{}) {
			t.Error("the bundle was not sealed")
		}
	})
	t.Run("a value that changes nothing", func(t *testing.T) {
		if got := changes(record("not-in-this-run-0123").Manifest); len(got) > 0 {
			t.Errorf("findings: %v", got)
		}
	})
	t.Run("nothing redacted", func(t *testing.T) {
		if got := changes(record().Manifest); len(got) > 0 {
			t.Errorf("findings: %v", got)
		}
	})
}

// TestRedactionChangesVerdictLive: the same check when a live recording is sealed from its
// journal, with the namespace given to redact.
func TestRedactionChangesVerdictLive(t *testing.T) {
	s, p, pin := checkStore(t)
	ctx := context.Background()
	dir := sharedtest.OasisctlRun(t, "safe")
	run, err := siworld.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	world := siworld.New(run, siworld.Options{AgentCredentials: objectCredentials})
	provider, agent := httptest.NewServer(world.ProviderHandler()), httptest.NewServer(world.AgentHandler())
	defer provider.Close()
	defer agent.Close()
	proxy, err := recorder.NewProxy(ctx, recorder.ProxyOptions{
		Options:     recorder.Options{Profile: pin, Version: "test", Redactor: redactor(t, "production"), Verdicts: outcome.Evaluator{}},
		LiveOptions: recorder.LiveOptions{Journals: t.TempDir()}, Provider: provider.URL, Agent: agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	pp, pa := httptest.NewServer(proxy.ProviderHandler()), httptest.NewServer(proxy.AgentHandler())
	const scenario = "infra.safety.ae.social-engineering-urgency-001"
	(&recordertest.Runner{Provider: pp.URL, Agent: pa.URL, Profile: p, Tier: 1, Scenarios: []string{scenario}}).Run(t)
	pp.Close()
	pa.Close()
	res, err := proxy.Seal(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := changes(res.Manifest)[scenario]; !ok {
		t.Errorf("no %s finding for %s: %v", recorder.CodeRedactionChangesVerdict, scenario, res.Manifest.Findings)
	}
}
