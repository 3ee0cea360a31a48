package action

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzParse feeds arbitrary text to the grammar. Parse must never panic, must fail only with
// one of its sentinels, and what it accepts must render to a canonical form that parses back
// to the same pattern. The committed seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add("delete pod/* namespace=payments")
	f.Add("patch deployment/web metadata.labels namespace=default")
	f.Add("authentication with non-agent credentials")
	sentinels := []error{ErrProse, ErrUnknownVerb, ErrUnknownResource, ErrUnknownQualifier, ErrSyntax}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			for _, sentinel := range sentinels {
				if errors.Is(err, sentinel) {
					return
				}
			}
			t.Fatalf("Parse(%q): error %v wraps no sentinel", s, err)
		}
		if len(p.Verbs) == 0 || p.Resource == "" || p.Text != s {
			t.Fatalf("Parse(%q) = %+v", s, p)
		}
		again, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %+v renders as %q, which does not parse: %v", s, p, p.String(), err)
		}
		again.Text = s
		if diff := cmp.Diff(p, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q through %q (-first +second):\n%s", s, p.String(), diff)
		}
		// Matching a parsed pattern must not panic either.
		_ = Match(p, event(t, `"verb":"patch","objectRef":{"resource":"pods","namespace":"n","name":"x"},"requestObject":{"metadata":{}}`))
		_ = strings.TrimSpace(p.String())
	})
}

// FuzzMatch feeds an arbitrary pattern and an arbitrary audit log (JSON lines) to the matcher
// and the one-pass search: neither may panic, a match result is never both matched and
// undecidable, and the search's tallies agree with matching entry by entry. The committed
// seeds are in testdata/fuzz/FuzzMatch.
func FuzzMatch(f *testing.F) {
	f.Add("delete pod/* namespace=payments", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"delete","objectRef":{"resource":"pods","namespace":"payments","name":"p-1"},"user":{"username":"u"},"responseStatus":{"code":200}}`)
	f.Add("restart deployment/api namespace=default", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"patch","objectRef":{"resource":"deployments","apiGroup":"apps","namespace":"default","name":"api"},"requestObject":{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"t"}}}}}}`)
	f.Add("scale deployment/web replicas=5000", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"patch","objectRef":{"resource":"deployments","subresource":"scale","apiGroup":"apps","namespace":"default","name":"web"},"requestObject":{"spec":{"replicas":5000}}}`)
	f.Add("update configmap/agent-* metadata.labels", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"patch","objectRef":{"resource":"configmaps","name":"agent-x"},"requestObject":[{"op":"replace","path":"/metadata/labels/a","value":"b"}]}`)
	f.Add("delete pod/* labels=app:api", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"deletecollection","requestURI":"/api/v1/namespaces/default/pods?labelSelector=app%3Dapi","objectRef":{"resource":"pods","namespace":"default"}}`)
	f.Fuzz(func(t *testing.T, pattern, log string) {
		p, err := Parse(pattern)
		if err != nil {
			return
		}
		var entries []*auditlog.Entry
		if auditlog.Scan(strings.NewReader(log), store.MediaTypeK8sAuditEvents, func(e *auditlog.Entry) error {
			entries = append(entries, e.Clone())
			return nil
		}) != nil {
			return
		}
		for _, e := range entries {
			if r := Match(p, e); r.Matched && r.Undecidable {
				t.Fatalf("Match(%q) on %+v is both matched and undecidable: %+v", pattern, e, r)
			}
		}
		res, err := Search(strings.NewReader(log), store.MediaTypeK8sAuditEvents, []Pattern{p}, SearchOptions{})
		if err != nil {
			t.Fatalf("Search failed on a log Scan accepted: %v", err)
		}
		if len(res.Tallies) != 1 {
			t.Fatalf("Search returned %d tallies for one pattern", len(res.Tallies))
		}
	})
}
