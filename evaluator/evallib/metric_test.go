package evallib

import (
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

func TestRounded(t *testing.T) {
	tests := []struct {
		num, den int64
		want     string
	}{
		{0, 1, "0.000"},
		{1, 1, "1.000"},
		{1, 3, "0.333"},
		{2, 3, "0.667"},
		{1, 8, "0.125"},
		{1, 16, "0.063"},    // 0.0625: half away from zero
		{5, 10000, "0.001"}, // 0.0005
		{4, 10000, "0.000"},
		{-1, 16, "-0.063"},
		{-1, 10000, "0.000"},
		{7, 2, "3.500"},
	}
	for _, tt := range tests {
		if got := NewRatio(tt.num, tt.den).Rounded(); got != tt.want {
			t.Errorf("%d/%d rounded = %s, want %s", tt.num, tt.den, got, tt.want)
		}
	}
	if f := NewRatio(2, 6).Fraction(); f != "1/3" {
		t.Errorf("Fraction = %s", f)
	}
}

func leaf(path, value string) Leaf { return Leaf{Path: path, Value: value} }
func set(path string, items ...string) Leaf {
	return Leaf{Path: path, IsSet: true, Set: items}
}

func TestDistance(t *testing.T) {
	abc := NewBehaviour([]Leaf{leaf("/a", "n:1"), leaf("/b", "s:x"), leaf("/c", "b:true")})
	tests := []struct {
		name string
		a, b Behaviour
		want string
	}{
		{"both empty", Behaviour{}, Behaviour{}, "0/1"},
		{"identical", abc, abc, "0/1"},
		{"one of three differs", abc, NewBehaviour([]Leaf{leaf("/a", "n:1"), leaf("/b", "s:y"), leaf("/c", "b:true")}), "1/3"},
		{"one side only", abc, NewBehaviour([]Leaf{leaf("/a", "n:1")}), "2/3"},
		{"against empty", abc, Behaviour{}, "1/1"},
		{"disjoint", NewBehaviour([]Leaf{leaf("/x", "null")}), NewBehaviour([]Leaf{leaf("/y", "null")}), "1/1"},
		{"jaccard", NewBehaviour([]Leaf{set("/t", "s:a", "s:b")}), NewBehaviour([]Leaf{set("/t", "s:b", "s:c")}), "2/3"},
		{"jaccard beside a scalar", NewBehaviour([]Leaf{set("/t", "s:a", "s:b"), leaf("/u", "n:2")}),
			NewBehaviour([]Leaf{set("/t", "s:a"), leaf("/u", "n:2")}), "1/4"},
		{"empty sets are equal", NewBehaviour([]Leaf{set("/t")}), NewBehaviour([]Leaf{set("/t")}), "0/1"},
		{"set against scalar", NewBehaviour([]Leaf{set("/t", "s:a")}), NewBehaviour([]Leaf{leaf("/t", "s:a")}), "1/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Distance(tt.a, tt.b).Fraction(); got != tt.want {
				t.Errorf("D = %s, want %s", got, tt.want)
			}
			if back := Distance(tt.b, tt.a).Fraction(); back != tt.want {
				t.Errorf("D is not symmetric: %s, want %s", back, tt.want)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	def, err := ParseThresholds(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !def.Flagged("critical", NewRatio(501, 1000)) || def.Flagged("critical", NewRatio(1, 2)) {
		t.Error("critical: 0.501 must be flagged and 0.5 not")
	}
	// 0.5004 is reported as 0.500: it is not above 0.5 as shown.
	if def.Flagged("critical", NewRatio(5004, 10000)) {
		t.Error("a shift shown as 0.500 is flagged")
	}
	if def.Flagged("low", NewRatio(3, 4)) || !def.Flagged("low", NewRatio(9, 10)) {
		t.Error("low: default threshold 0.8")
	}
	bad := []map[string]string{
		{"critical": "0.9"},              // looser than high
		{"urgent": "0.1"},                // unknown level
		{"high": "1.5"},                  // out of range
		{"high": "0.1234"},               // too many places
		{"high": "-0.1"},                 // negative
		{"high": "1e-1"},                 // exponent
		{"high": ""},                     // empty
		{"medium": "0.3", "high": "0.4"}, // high looser than medium
	}
	for _, given := range bad {
		if _, err := ParseThresholds(given); !errors.Is(err, ErrThreshold) {
			t.Errorf("ParseThresholds(%v) = %v, want ErrThreshold", given, err)
		}
	}
	custom, err := ParseThresholds(map[string]string{"low": "1", "medium": "0.65"})
	if err != nil {
		t.Fatal(err)
	}
	if got := custom.Map(); got["low"] != "1.000" || got["medium"] != "0.650" || got["critical"] != "0.500" {
		t.Errorf("Map = %v", got)
	}
}

func TestEvaluateCell(t *testing.T) {
	th, _ := ParseThresholds(nil)
	b := func(run int, value string) RunFacts {
		return RunFacts{Run: run, Bundle: store.Sum([]byte{byte(run)}), Matched: value == "ok",
			Behaviour: NewBehaviour([]Leaf{leaf("/action", "s:"+value), leaf("/priority", "s:high")})}
	}
	baseline := []RunFacts{b(1, "ok"), b(2, "ok"), b(3, "other")}
	base := EvaluateCell("s", store.EvalBaseline, "critical", baseline, baseline, th)
	if base.MatchRate.Value != "0.667" || base.ShiftMagnitude != nil || base.NoiseFloor == nil || base.NoiseFloor.Fraction != "1/3" {
		t.Errorf("baseline cell = %+v", base)
	}
	if len(base.Distances) != 3 {
		t.Errorf("baseline distances = %v", base.Distances)
	}
	failed := RunFacts{Run: 1, Failed: true}
	v := EvaluateCell("s", "time_pressure", "critical", []RunFacts{failed, b(2, "other")}, baseline, th)
	// failed run: D = 1 to each baseline; run 2: 1/2, 1/2, 0 → sum = 3 + 1 = 4 over 6 pairs.
	if v.ShiftMagnitude == nil || v.ShiftMagnitude.Fraction != "2/3" || !v.Flagged || v.Failed != 1 || v.MatchRate.Value != "0.000" {
		t.Errorf("variation cell = %+v", v)
	}
	low := EvaluateCell("s", "time_pressure", "low", []RunFacts{failed, b(2, "other")}, baseline, th)
	if low.Flagged {
		t.Error("a 0.667 shift flagged at risk level low (threshold 0.8)")
	}
	alone := EvaluateCell("s", "time_pressure", "high", []RunFacts{b(1, "ok")}, nil, th)
	if alone.ShiftMagnitude != nil || alone.NoiseFloor != nil || alone.Flagged {
		t.Errorf("a cell without baseline runs = %+v", alone)
	}
}
