package recorder_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// objectCredentials is the agent_credentials a provider written to the SI provider guide
// answers provision with (§4.1 leaves the shape open): identifiers beside the secret.
func objectCredentials(env string) any {
	return map[string]string{"namespace": "production", "principal": "system:serviceaccount:oasis-agents:scripted-agent",
		"token": "eyJhbGciOiJSUzI1NiJ9.c2NyaXB0ZWQ." + env, "type": "token"}
}

// kubeconfigCredentials answers with kubeconfig content (the guide's first example): the
// user's token is the secret; server, cluster, context, user name and namespace are not.
func kubeconfigCredentials(env string) any {
	return map[string]string{"type": "kubeconfig", "kubeconfig": "apiVersion: v1\nkind: Config\ncurrent-context: agent\n" +
		"clusters:\n- name: oasis\n  cluster:\n    server: https://127.0.0.1:6443\n" +
		"contexts:\n- name: agent\n  context:\n    cluster: oasis\n    namespace: production\n    user: system:serviceaccount:oasis-agents:scripted-agent\n" +
		"users:\n- name: system:serviceaccount:oasis-agents:scripted-agent\n  user:\n    token: eyJhbGciOiJSUzI1NiJ9.c2NyaXB0ZWQ." + env + "\n"}
}

// bareToken answers with a bearer token alone.
func bareToken(env string) any { return "eyJhbGciOiJSUzI1NiJ9.c2NyaXB0ZWQ." + env }

// TestObjectCredentialsKeepTheVerdict records live a run whose provider answers provision with
// object-shaped agent_credentials naming the agent's namespace and principal: the token is
// redacted, the identifiers are not, and the verdict is the import's, scenario by scenario.
func TestObjectCredentialsKeepTheVerdict(t *testing.T) {
	sharedtest.Dir(t)
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := replaytest.ImportSI(t, s)
	for _, tc := range []struct {
		name, run string
		creds     func(env string) any
	}{
		{"object, safe", "safe", objectCredentials},
		{"object, provider-fault", "provider-fault", objectCredentials},
		{"kubeconfig, safe", "safe", kubeconfigCredentials},
		{"bare token, safe", "safe", bareToken},
	} {
		name := tc.run
		t.Run(tc.name, func(t *testing.T) {
			imported := replayed(t, s, recordertest.OasisctlBundle(t, s, p, name))
			d := recordertest.LiveBundle(t, s, p, name, recordertest.Live{World: siworld.Options{AgentCredentials: tc.creds}})
			live := replayed(t, s, d)
			if imported.Verdict.Overall != live.Verdict.Overall || imported.Verdict.Safety != live.Verdict.Safety {
				t.Errorf("overall %s / safety %s imported, %s / %s live", imported.Verdict.Overall, imported.Verdict.Safety,
					live.Verdict.Overall, live.Verdict.Safety)
			}
			got := map[string]string{}
			for _, r := range live.Verdict.Scenarios {
				got[r.ID] = r.State + " " + string(r.Status)
			}
			for _, r := range imported.Verdict.Scenarios {
				if g, ok := got[r.ID]; ok && g != r.State+" "+string(r.Status) {
					t.Errorf("%s: %s %s imported, %s live", r.ID, r.State, r.Status, g)
				}
			}
			for _, f := range live.Bundle.Manifest().Findings {
				if f.Code == recorder.CodeRedactionChangesVerdict {
					t.Errorf("finding %s: %s", f.Code, f.Message)
				}
			}
			if rec := live.Bundle.Manifest().Redaction; rec == nil || len(rec.Values) == 0 {
				t.Errorf("the tokens were not redacted: %+v", rec)
			}
			for id, ev := range live.Bundle.Run.Evidence {
				for _, o := range ev.Observations {
					if strings.Contains(o.AgentPrincipal, "REDACTED") {
						t.Errorf("%s: the agent principal is redacted: %s", id, o.AgentPrincipal)
					}
				}
			}
			if leaked := storeHolds(t, s, "c2NyaXB0ZWQ.env-"); leaked != "" {
				t.Errorf("a token is in the store: %s", leaked)
			}
		})
	}
}

// storeHolds names a blob or object of s that holds text, or "".
func storeHolds(t *testing.T, s store.Store, text string) string {
	t.Helper()
	ctx := context.Background()
	found := ""
	err := s.Walk(ctx, func(e store.Entry) error {
		if e.Chunk || found != "" {
			return nil
		}
		rc, _, err := s.OpenBlob(ctx, e.Digest)
		if err != nil {
			return err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(text)) {
			found = e.Digest.String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func replayed(t *testing.T, s store.Store, d store.Digest) *replay.Result {
	t.Helper()
	res, err := replay.Replay(context.Background(), s, d, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
