package auditlog

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scopedLog has the principal written plainly, with a \u escape, with an escaped slash, only
// inside a request body, not at all, as the impersonated user, and impersonating another.
const scopedLog = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a1","stage":"ResponseComplete","verb":"get","user":{"username":"system:serviceaccount:ns/x:agent"},"objectRef":{"resource":"pods","namespace":"n"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a2","stage":"ResponseComplete","verb":"delete","user":{"username":"system:serviceaccount:ns\/x:agent"},"objectRef":{"resource":"pods","namespace":"n"}}

{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a3","stage":"ResponseComplete","verb":"list","user":{"username":"system:serviceaccount:ns/x:ag\u0065nt"},"objectRef":{"resource":"pods"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a4","stage":"ResponseComplete","verb":"create","user":{"username":"system:apiserver"},"requestObject":{"spec":{"user":"system:serviceaccount:ns/x:agent"}}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a5","stage":"ResponseComplete","verb":"update","user":{"username":"system:node:n1"},"objectRef":{"resource":"leases"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a6","stage":"ResponseComplete","verb":"delete","user":{"username":"kubernetes-admin"},"impersonatedUser":{"username":"system:serviceaccount:ns/x:agent"},"objectRef":{"resource":"pods","namespace":"n","name":"p"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a7","stage":"ResponseComplete","verb":"delete","user":{"username":"system:serviceaccount:ns/x:agent"},"impersonatedUser":{"username":"bob"},"objectRef":{"resource":"pods","namespace":"n","name":"q"}}
`

// TestScopedScanSkipsForeignLines: a scoped scan that counts lines without parsing them
// delivers exactly the entries, with the same positions and counts, that an unscoped scan
// filtered by Entry.ActsFor gives, whichever way JSON wrote the principal.
func TestScopedScanSkipsForeignLines(t *testing.T) {
	const principal = "system:serviceaccount:ns/x:agent"
	logs := map[string]string{"escapes": scopedLog, "bench events": strings.Repeat(strings.Join(benchEvents, "\n")+"\n", 20)}
	for name, log := range logs {
		for _, p := range []string{principal, "system:serviceaccount:oasis-agents:agent", "system:node:ip-10-0-2-41.internal"} {
			var want, got []Entry
			all, err := ScanWith(strings.NewReader(log), jsonl, Options{}, func(e *Entry) error {
				if e.ActsFor(p) {
					c := e.Clone()
					c.Principal = p
					want = append(want, *c)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := ScanWith(strings.NewReader(log), jsonl, Options{Scoped: true, Principal: p}, func(e *Entry) error {
				got = append(got, *e.Clone())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, %s: scoped entries differ from filtered ones (-want +got):\n%s", name, p, diff)
			}
			if sum.Entries != all.Entries || sum.Delivered != len(want) {
				t.Errorf("%s, %s: counted %d entries (%d delivered), want %d (%d)", name, p, sum.Entries, sum.Delivered, all.Entries, len(want))
			}
		}
	}
}

// TestScopedScanOfMalformedLines: a malformed line that could name the principal is an error
// in a scoped scan; one that cannot is counted unparsed, and only an unscoped scan reports it.
func TestScopedScanOfMalformedLines(t *testing.T) {
	const principal = "system:serviceaccount:oasis-agents:agent"
	ours := `{"kind":"Event","user":{"username":"` + principal + `"},"verb":` + "\n"
	foreign := `{"kind":"Event","user":{"username":"someone-else"},"verb":` + "\n"
	for _, tc := range []struct {
		log     string
		scoped  bool
		wantErr bool
	}{
		{ours, true, true}, {ours, false, true}, {foreign, true, false}, {foreign, false, true},
	} {
		sum, err := ScanWith(bytes.NewReader([]byte(tc.log)), jsonl, Options{Scoped: tc.scoped, Principal: principal}, func(*Entry) error { return nil })
		if gotErr := errors.Is(err, ErrMalformed); gotErr != tc.wantErr {
			t.Errorf("scoped %v, %q: err %v, want malformed %v", tc.scoped, tc.log, err, tc.wantErr)
		}
		if !tc.wantErr && sum.Entries != 1 {
			t.Errorf("scoped %v, %q: %d entries, want 1", tc.scoped, tc.log, sum.Entries)
		}
	}
}
