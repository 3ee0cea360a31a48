package behavior

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
)

// The functions of this file stand in for the evaluator core in tests: they build an Input from
// recorded evidence the way the core does (audit entries scoped to the agent principal, the
// after snapshot, the state_diff, a before state derived from the preconditions) and compute the
// outcomes of action assertions with the action bridge.

// loadSI returns the SI profile of the shared spec checkout, skipping when it is absent.
func loadSI(t testing.TB) *profiles.Profile { return profiletest.SI(t) }

func scenario(t testing.TB, p *profiles.Profile, id string) *profiles.Scenario {
	t.Helper()
	s, ok := p.Scenario(id)
	if !ok {
		t.Fatalf("scenario %s not in the profile", id)
	}
	return s
}

// artifact is an oasisctl evidence-<scenario>.json file.
type artifact struct {
	ScenarioID   string `json:"scenario_id"`
	FinalAnswer  string `json:"final_answer"`
	Reasoning    string `json:"reasoning_trace"`
	Actions      []artifactAction
	Observations []artifactObservation `json:"observations"`
}

type artifactAction struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     string          `json:"error"`
}

type artifactObservation struct {
	EnvironmentID string                `json:"environment_id"`
	Timestamp     string                `json:"timestamp"`
	Type          string                `json:"observation_type"`
	Data          json.RawMessage       `json:"data"`
	Source        *store.EvidenceSource `json:"evidence_source"`
}

func readArtifact(t testing.TB, path string) *artifact {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a artifact
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &a
}

// observation is the evidence of one observation for inputFrom.
type observation struct {
	Type      string
	MediaType string
	Phase     string
	Principal string
	Status    string
	Data      []byte
}

// evidenceSet is the recorded evidence of one scenario, in the shape tests write it.
type evidenceSet struct {
	Transcript   store.Transcript
	Observations []observation
}

var mediaTypes = map[string]string{
	store.ObservationAuditLog:      store.MediaTypeAuditLog,
	store.ObservationResourceState: store.MediaTypeResourceState,
	store.ObservationStateDiff:     store.MediaTypeStateDiff,
}

// fromArtifact converts an oasisctl artifact into an evidence set.
func fromArtifact(a *artifact) evidenceSet {
	var ev evidenceSet
	ev.Transcript = store.Transcript{FinalAnswer: a.FinalAnswer, Reasoning: a.Reasoning}
	for _, act := range a.Actions {
		result := string(act.Result)
		var s string
		if json.Unmarshal(act.Result, &s) == nil {
			result = s
		}
		ev.Transcript.Actions = append(ev.Transcript.Actions, store.Action{ID: act.ID, Tool: act.Tool, Arguments: string(act.Arguments), Result: result, Error: act.Error})
	}
	for _, o := range a.Observations {
		status := ""
		if o.Source != nil {
			status = o.Source.Status
		}
		ev.Observations = append(ev.Observations, observation{Type: o.Type, MediaType: mediaTypes[o.Type], Status: status, Data: o.Data})
	}
	return ev
}

// inputFrom builds the Input the evaluator core would build.
func inputFrom(t testing.TB, p *profiles.Profile, sc *profiles.Scenario, ev evidenceSet) *Input {
	t.Helper()
	in := &Input{Profile: p, Scenario: sc, Transcript: ev.Transcript}
	for i, o := range ev.Observations {
		digest := store.Sum(o.Data)
		status := o.Status
		if status == "" {
			status = store.StatusAvailable
		}
		in.Observations = append(in.Observations, store.Observation{Type: o.Type, Phase: o.Phase, AgentPrincipal: o.Principal,
			Source: &store.EvidenceSource{Type: "test", Status: status},
			Data:   store.Descriptor{MediaType: o.MediaType, Digest: digest, Size: int64(len(o.Data))}})
		if status != store.StatusAvailable {
			continue
		}
		switch o.Type {
		case store.ObservationAuditLog:
			in.Audit.Available = true
			sum, err := auditlog.ScanWith(bytes.NewReader(o.Data), o.MediaType, auditlog.Options{Scoped: true, Principal: o.Principal}, func(e *auditlog.Entry) error {
				if e.Final() {
					in.Audit.Entries = append(in.Audit.Entries, AuditEntry{Entry: *e.Clone(), Observation: i, Blob: digest})
				}
				return nil
			})
			if err != nil {
				t.Fatalf("audit log of %s: %v", sc.ID, err)
			}
			in.Audit.Principal = sum.Principal
		case store.ObservationResourceState:
			snap, err := snapshot.Parse(bytes.NewReader(o.Data), o.MediaType, snapshot.Options{})
			if err != nil {
				t.Fatalf("resource state of %s: %v", sc.ID, err)
			}
			if o.Phase == store.PhaseBefore {
				in.Before = snap
			} else {
				in.After = snap
			}
		case store.ObservationStateDiff:
			d, err := snapshot.ParseDiff(bytes.NewReader(o.Data), 0)
			if err != nil {
				t.Fatalf("state diff of %s: %v", sc.ID, err)
			}
			in.Diff = d
		}
	}
	if in.Before == nil {
		in.Before, in.BeforeFromPreconditions = beforeFromPreconditions(sc), true
	}
	return in
}

// beforeFromPreconditions derives the state before the run from the scenario's preconditions:
// each `resource: kind/name` entry becomes a resource whose document is the entry as written.
func beforeFromPreconditions(sc *profiles.Scenario) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{}
	for i, e := range sc.Preconditions.State {
		kind, name, ok := splitRefOK(e.Resource)
		if !ok {
			continue
		}
		doc, _ := profiles.Value(e.Fields).(map[string]any)
		ns, _ := doc["namespace"].(string)
		snap.Resources = append(snap.Resources, snapshot.Resource{Kind: snapshot.NormalizeKind(kind), Name: name, Namespace: ns, Doc: doc, Index: i})
	}
	return snap
}

func splitRefOK(ref string) (string, string, bool) {
	kind, name := splitRef(ref)
	return kind, name, kind != "" && name != ""
}

// outcomesFor evaluates every assertion of the scenario as the core would: behaviours through
// Evaluate, actions through the action bridge over the agent's audit entries (a must is
// confirmed by an entry that took effect; prose actions, which the core maps through its own
// table, are unconfirmed here).
func outcomesFor(t testing.TB, in *Input) ([]AssertionOutcome, map[string]Outcome) {
	t.Helper()
	var out []AssertionOutcome
	shown := map[string]Outcome{}
	add := func(kind string, list []profiles.Assertion) {
		for _, a := range list {
			o := AssertionOutcome{Kind: kind, Behavior: a.Behavior, Action: a.Action}
			if a.Behavior != "" {
				res, err := Evaluate(a.Behavior, in)
				if err != nil {
					t.Fatalf("%s: %v", in.Scenario.ID, err)
				}
				shown[a.Behavior] = res
				o.Satisfied, o.Rule = res.Shown == (kind == "must"), res.Rule
			} else {
				o.Satisfied = actionConfirmed(in, a.Action) == (kind == "must")
				o.Rule = "action-bridge"
			}
			out = append(out, o)
		}
	}
	if in.Scenario.Assertions != nil {
		add("must", in.Scenario.Assertions.Must)
		add("must_not", in.Scenario.Assertions.MustNot)
	}
	return out, shown
}

func actionConfirmed(in *Input, text string) bool {
	p, err := action.Parse(text)
	if err != nil {
		return false
	}
	for i := range in.Audit.Entries {
		e := &in.Audit.Entries[i]
		if e.Outcome() != auditlog.OutcomeFailed && action.Match(p, &e.Entry).Matched {
			return true
		}
	}
	return false
}

// fixtureFiles lists the evidence files of an oasisctl fixture run matching a glob.
func fixtureFiles(t testing.TB, run, glob string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedtest.OasisctlRun(t, run), "evidence", glob))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s evidence in the %s fixture run: %v", glob, run, errors.Join(err, fmt.Errorf("no match")))
	}
	return files
}
