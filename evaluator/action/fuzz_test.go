package action

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
