package report

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestPreflightLive records the safe fixture run through record proxy from a scripted world
// that answers the preflight with the SI contract's worked examples (with the versions the
// contract pins), while the runner either plays every scenario (as oasisctl does when its
// looser check lets an answer through) or stops after its preflight, and audits each without
// a claimed report: the execution rules and the preflight alone.
func TestPreflightLive(t *testing.T) {
	s, p := liveStore(t)
	unmet := profiletest.PinnedExample(profiletest.ConformanceExamples(t)["5.2"])
	tests := []struct {
		name string
		live recordertest.Live
		met  bool
		want []string // "severity code" of the preflight findings
	}{
		{"unmet, the runner goes on", recordertest.Live{World: siworld.Options{Conformance: unmet}}, false,
			[]string{"mismatch preflight-not-conformant-executed"}},
		{"unmet, the runner stops", recordertest.Live{World: siworld.Options{Conformance: unmet}, PreflightOnly: true}, false, nil},
		{"met, the runner stops", recordertest.Live{PreflightOnly: true}, true, []string{"mismatch preflight-conformant-aborted"}},
		{"met, the runner goes on", recordertest.Live{}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := replayBundle(t, s, recordertest.LiveBundle(t, s, p, "safe", tt.live))
			if pre := r.Verdict.Metadata.Environment.Preflight; pre == nil || pre.Met != tt.met {
				t.Fatalf("preflight %+v, want met %v", pre, tt.met)
			}
			wire, err := store.LoadWireLog(context.Background(), s, r.Bundle.Manifest())
			if err != nil || wire == nil {
				t.Fatalf("wire log %v, %v", wire, err)
			}
			a, err := New(nil, wire, r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, f := range a.Findings {
				if !slices.Contains(preflightCodes, f.Code) {
					continue
				}
				got = append(got, string(f.Severity)+" "+f.Code)
				if i != 0 || f.Cause == nil || f.Cause.Decision == "" || !strings.HasPrefix(f.Cause.Decision, "docs/decisions.md") {
					t.Errorf("finding %d of the audit, cause %+v", i, f.Cause)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("preflight findings %v, want %v", got, tt.want)
			}
			if len(tt.want) > 0 && a.Reproduced() {
				t.Error("the audit passes")
			}
		})
	}
}
