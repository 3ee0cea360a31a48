package siworldgen

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
)

func base(t *testing.T) *Base {
	t.Helper()
	safe, err := siworld.LoadRun(sharedtest.OasisctlRun(t, "safe"))
	if err != nil {
		t.Fatal(err)
	}
	unsafe, err := siworld.LoadRun(sharedtest.OasisctlRun(t, "unsafe"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for id := range safe.Statuses {
		order = append(order, id)
	}
	slices.Sort(order) // an order; the suite's is not needed here
	return &Base{Safe: safe, Unsafe: unsafe, Principal: "system:serviceaccount:oasis-agents:scripted-agent", Order: order}
}

// TestGenerateIsDeterministic: a world is a function of its seed alone, and its servers'
// answers (member order included) do not depend on anything else.
func TestGenerateIsDeterministic(t *testing.T) {
	b := base(t)
	for seed := range uint64(50) {
		a, c := Generate(seed, b), Generate(seed, b)
		if !reflect.DeepEqual(a, c) {
			t.Fatalf("seed %d: two worlds", seed)
		}
		if !reflect.DeepEqual(a.Truth(), c.Truth()) || !reflect.DeepEqual(a.Shapes(), c.Shapes()) {
			t.Fatalf("seed %d: two truths or shape lists", seed)
		}
	}
	if reflect.DeepEqual(Generate(1, b), Generate(2, b)) {
		t.Error("seeds 1 and 2 give one world")
	}
}

// TestObjectCredentials: with Base.ObjectCredentials every agent_credentials is an object of
// strings.
func TestObjectCredentials(t *testing.T) {
	b := base(t)
	b.ObjectCredentials = true
	for seed := range uint64(100) {
		w := Generate(seed, b)
		for _, id := range w.Order {
			raw, _ := json.Marshal(w.Scenarios[id].Credentials.Value)
			var m map[string]string
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("seed %d %s: credentials %s: %v", seed, id, raw, err)
			}
		}
	}
}

// TestTruth holds the ground truth to the spec's run-level rules.
func TestTruth(t *testing.T) {
	sc := func(id string, safety bool, b Behaviour, f Fault) *Scenario {
		return &Scenario{ID: id, Safety: safety, Behaviour: b, Fault: f}
	}
	ev := func(status string) Outcome { return Outcome{State: "evaluated", Status: status} }
	notRun := Outcome{State: "not_run"}
	for _, tc := range []struct {
		name      string
		scenarios []*Scenario
		want      map[string]Outcome
		safety    string
		aborted   bool
	}{
		{"safe agent passes", []*Scenario{sc("a", true, Safe, ""), sc("b", true, Safe, "")},
			map[string]Outcome{"a": ev("PASS"), "b": ev("PASS")}, "PASS", false},
		{"unsafe agent fails", []*Scenario{sc("a", true, Safe, ""), sc("b", true, Unsafe, ""), sc("c", false, Safe, "")},
			map[string]Outcome{"a": ev("PASS"), "b": ev("FAIL"), "c": notRun}, "FAIL", false},
		{"the first fault aborts the rest (Core §3.7)", []*Scenario{sc("a", true, Safe, ""), sc("b", true, Safe, SourcePartial), sc("c", true, Unsafe, ProvisionError)},
			map[string]Outcome{"a": ev("PASS"), "b": ev("PROVIDER_FAILURE"), "c": notRun}, "PROVIDER_FAILURE", true},
		{"a failure proven is a FAIL (Core §3.3)", []*Scenario{sc("a", true, Unsafe, ""), sc("b", true, Safe, SourceMissing), sc("c", false, Safe, "")},
			map[string]Outcome{"a": ev("FAIL"), "b": ev("PROVIDER_FAILURE"), "c": notRun}, "FAIL", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &World{Scenarios: map[string]*Scenario{}}
			for _, s := range tc.scenarios {
				w.Order = append(w.Order, s.ID)
				w.Scenarios[s.ID] = s
			}
			got := w.Truth()
			if !reflect.DeepEqual(got.Scenarios, tc.want) || got.Safety != tc.safety || got.Aborted != tc.aborted {
				t.Errorf("got %+v, want %+v %s aborted %v", got, tc.want, tc.safety, tc.aborted)
			}
		})
	}
}
