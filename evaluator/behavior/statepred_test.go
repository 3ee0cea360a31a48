package behavior

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

func parsed(t *testing.T, doc string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Parse(strings.NewReader(doc), store.MediaTypeResourceState, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// merged builds the after snapshot the evaluator builds from several resource_state
// observations: their resources, in observation order.
func merged(t *testing.T, docs ...string) *snapshot.Snapshot {
	out := &snapshot.Snapshot{}
	for _, d := range docs {
		out.Resources = append(out.Resources, parsed(t, d).Resources...)
	}
	return out
}

func TestStatePredicates(t *testing.T) {
	before := `{"resources":[{"kind":"pod","name":"p","namespace":"s","spec":{"restarts":8}},
		{"kind":"deployment","name":"d","namespace":"s","spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"t1"}}}}}]}`
	after := `{"resources":[{"kind":"pod","name":"p","namespace":"s","spec":{"restarts":0}},
		{"kind":"deployment","name":"d","namespace":"s","spec":{"replicas":6,"conditions":[{"type":"Available","status":"True"}],
		"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"t2"}}}}}]}`
	c := newCtx(&Input{Scenario: &profiles.Scenario{}, Before: parsed(t, before), After: parsed(t, after)})
	cases := []struct {
		pred statePred
		want bool
	}{
		{statePred{Resource: "pod/p", Namespace: "s", Field: "restarts", Op: opChanged}, true},
		{statePred{Resource: "deployment/d", Field: "replicas", Op: opBetween, Min: 5, Max: 8}, true},
		{statePred{Resource: "deployment/d", Field: "replicas", Op: opBetween, Min: 7, Max: 8}, false},
		{statePred{Resource: "deployment/d", Op: opCondition, Value: "Available=True"}, true},
		{statePred{Resource: "deployment/d", Op: opCondition, Value: "Progressing=True"}, false},
		{statePred{Resource: "deployment/d", Op: opRestarted}, true},
		{statePred{Resource: "deployment/gone", Op: opAbsent}, true},
		{statePred{Resource: "deployment/d", Op: opAbsent}, false},
		{statePred{Resource: "deployment/d", Field: "replicas", Op: opEquals, Value: "6"}, true},
		{statePred{Resource: "deployment/d", Field: "affinity|spec.template.spec.affinity", Op: opPresent}, false},
	}
	for _, tc := range cases {
		if got, _ := c.holds(&tc.pred); got != tc.want {
			t.Errorf("%+v: holds = %v, want %v", tc.pred, got, tc.want)
		}
	}
	// Without an observed after state, nothing can be absent from it.
	c = newCtx(&Input{Scenario: &profiles.Scenario{}})
	if got, _ := c.holds(&statePred{Resource: "deployment/gone", Op: opAbsent}); got {
		t.Error("absent holds without an observed state")
	}
}

func TestCitationOrigin(t *testing.T) {
	a := `{"resources":[{"kind":"configmap","name":"a","data":{"K":"1"}},{"kind":"configmap","name":"b"}]}`
	b := `{"resources":[{"kind":"configmap","name":"c","data":{"K":"2"}}]}`
	obs := []store.Observation{
		{Type: store.ObservationAuditLog},
		{Type: store.ObservationResourceState, Phase: store.PhaseAfter, Data: store.Descriptor{Digest: store.Sum([]byte(a))}},
		{Type: store.ObservationResourceState, Data: store.Descriptor{Digest: store.Sum([]byte(b))}},
	}
	c := newCtx(&Input{Scenario: &profiles.Scenario{}, After: merged(t, a, b), Observations: obs})
	_, at := c.lookup(c.afterStates(), "configmap", "", "c")
	if got := at.cite("configmap/c.data.K"); got.Observation != 2 || got.Blob != obs[2].Data.Digest || got.Kind != evidence.KindSnapshotField {
		t.Errorf("citation %+v, want observation 2", got)
	}
	_, at = c.lookup(c.afterStates(), "configmap", "", "b")
	if got := at.cite("configmap/b"); got.Observation != 1 {
		t.Errorf("citation %+v, want observation 1", got)
	}
	// An empty payload makes the payloads uncountable: the origin is unknown, not guessed.
	obs = append(obs, store.Observation{Type: store.ObservationResourceState})
	c = newCtx(&Input{Scenario: &profiles.Scenario{}, After: merged(t, a, b, `{"resources":[]}`), Observations: obs})
	_, at = c.lookup(c.afterStates(), "configmap", "", "c")
	if got := at.cite("x"); got.Observation != -1 {
		t.Errorf("citation %+v, want observation -1", got)
	}
}
