package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListingEncoding(t *testing.T) {
	tests := []Listing{
		{},
		{BundleSummary: BundleSummary{Evaluation: EvaluationOASIS, Subject: "software-infrastructure 0.2.0-rc3",
			Agent: AgentIdentity{Name: "agent", Version: "1.2", Description: "ü"}, Units: 50, UnitName: "scenarios", Source: "oasisctl"},
			Profile: &ProfileRef{ID: "p", Version: "0.2.0", SourceCommit: "abc", Tree: Sum([]byte("tree"))}},
		{BundleSummary: BundleSummary{Evaluation: EvaluationKensa, Subject: "k", Units: 1 << 30}},
	}
	for _, l := range tests {
		b := encodeListing(l)
		got, err := decodeListing(b)
		if err != nil || !cmp.Equal(got, l) {
			t.Errorf("round trip of %+v: %+v, %v", l, got, err)
		}
		for n := range len(b) {
			if _, err := decodeListing(b[:n]); err == nil {
				t.Errorf("%+v cut at %d of %d bytes decoded", l, n, len(b))
			}
		}
	}
}
