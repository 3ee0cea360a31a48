package oasisctl

import (
	"fmt"
	"slices"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// Artifact is an oasisctl evidence artifact, evidence-<scenario-id>.json (the EvidenceArtifact
// of oasisctl's execution package; OASIS Reporting §1.2 of core 1.0.0-rc1.11), mapped to the
// evidence model.
type Artifact struct {
	ScenarioID    string
	Transcript    store.Transcript
	Observations  []Observation
	ObservedModel string
	// NonScoring holds what the evaluator never reads: vacuous_assertions and
	// declared_conclusion (as "oasisctl.<name>"), and each action's error_code and duration_ms
	// (as "actions[i].<name>"), as literal text; and an agent failure report (as
	// store.NonScoringAgentFailure), which the evaluator reads only to refuse the scenario
	// under an edition without its rule.
	NonScoring map[string]string
	// Unknown lists the members the format does not define, in document order.
	Unknown []Field
}

// Observation is one observation of an artifact: the evidence model's observation without its
// data descriptor, and the payload to store as its data.
type Observation struct {
	store.Observation
	// Payload is the compact JSON text of the observation's data member ("null" when absent):
	// whitespace removed and nothing else, no value decoded and re-encoded.
	Payload []byte
	// Path and Line locate the observation in the artifact.
	Path string
	Line int
}

// Field is a member of a document that its format does not define: its name, its field path
// and the line of its name.
type Field struct {
	Name, Path string
	Line       int
}

// Members each object of an artifact defines; anything else is listed in Artifact.Unknown.
var (
	artifactFields    = []string{"scenario_id", "final_answer", "reasoning_trace", "actions", "observations", "observed_model", "vacuous_assertions", "declared_conclusion", "agent_failure"}
	actionFields      = []string{"id", "tool", "arguments", "result", "error", "error_code", "duration_ms"}
	observationFields = []string{"environment_id", "timestamp", "observation_type", "data", "evidence_source"}
	sourceFields      = []string{"type", "status"}
)

// artifactLimits bound an artifact, which carries whole audit logs and snapshots in its
// observations.
var artifactLimits = doc.Limits{MaxBytes: MaxArtifactBytes, MaxStringBytes: MaxArtifactBytes, MaxNodes: MaxArtifactValues}

// ReadArtifact reads an artifact file. name is the path errors and fields are reported with.
// Malformed input is an error wrapping ErrArtifact with the file, line, column and field.
func ReadArtifact(name string, data []byte) (*Artifact, error) {
	root, err := doc.ParseJSON(name, data, artifactLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArtifact, err)
	}
	a := &Artifact{NonScoring: map[string]string{}, Transcript: store.Transcript{Actions: []store.Action{}}}
	if err := a.read(root); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArtifact, err)
	}
	return a, nil
}

func (a *Artifact) read(root *doc.Node) error {
	if root.Kind() != doc.Object {
		return root.Errorf("the artifact is %s, want an object", root.Kind().Article())
	}
	err := readStrings(root, member{"scenario_id", &a.ScenarioID}, member{"final_answer", &a.Transcript.FinalAnswer},
		member{"reasoning_trace", &a.Transcript.Reasoning}, member{"observed_model", &a.ObservedModel})
	if err != nil {
		return err
	}
	if a.ScenarioID == "" {
		return root.Errorf("scenario_id missing: not an evidence artifact")
	}
	a.Unknown = unknown(a.Unknown, root, artifactFields)
	for _, key := range []string{"vacuous_assertions", "declared_conclusion"} {
		if v := present(root.Get(key)); v != nil {
			a.NonScoring["oasisctl."+key] = string(v.Compact())
		}
	}
	if err := agentFailure(root, a.NonScoring); err != nil {
		return err
	}
	actions, err := array(root, "actions")
	if err != nil {
		return err
	}
	for i, v := range actions {
		act, err := a.action(v, i)
		if err != nil {
			return err
		}
		a.Transcript.Actions = append(a.Transcript.Actions, act)
	}
	observations, err := array(root, "observations")
	if err != nil {
		return err
	}
	for _, v := range observations {
		o, err := a.observation(v)
		if err != nil {
			return err
		}
		a.Observations = append(a.Observations, o)
	}
	return nil
}

func (a *Artifact) action(v *doc.Node, i int) (store.Action, error) {
	var act store.Action
	if v.Kind() != doc.Object {
		return act, v.TypeError("an object")
	}
	a.Unknown = unknown(a.Unknown, v, actionFields)
	if err := readStrings(v, member{"id", &act.ID}, member{"tool", &act.Tool}, member{"result", &act.Result}, member{"error", &act.Error}); err != nil {
		return act, err
	}
	if args := present(v.Get("arguments")); args != nil {
		act.Arguments = string(args.Compact())
	}
	nonScoring(a.NonScoring, v, fmt.Sprintf("actions[%d].", i))
	return act, nil
}

func (a *Artifact) observation(v *doc.Node) (Observation, error) {
	o := Observation{Path: v.Path().String(), Line: v.Pos().Line, Payload: []byte("null")}
	if v.Kind() != doc.Object {
		return o, v.TypeError("an object")
	}
	a.Unknown = unknown(a.Unknown, v, observationFields)
	err := readStrings(v, member{"observation_type", &o.Type}, member{"environment_id", &o.EnvironmentID}, member{"timestamp", &o.Timestamp})
	if err != nil {
		return o, err
	}
	if o.Type == "" {
		return o, v.Errorf("observation_type missing")
	}
	if src := present(v.Get("evidence_source")); src != nil {
		if src.Kind() != doc.Object {
			return o, src.TypeError("an object")
		}
		a.Unknown = unknown(a.Unknown, src, sourceFields)
		o.Source = &store.EvidenceSource{}
		if err := readStrings(src, member{"type", &o.Source.Type}, member{"status", &o.Source.Status}); err != nil {
			return o, err
		}
	}
	data := v.Get("data")
	if data != nil {
		o.Payload = data.Compact()
	}
	if o.Type == store.ObservationAuditLog {
		o.AgentPrincipal, _ = data.Get("agent_principal").Str()
	}
	return o, nil
}

// present returns n unless it is absent or null.
func present(n *doc.Node) *doc.Node {
	if n.Kind() == doc.Null {
		return nil
	}
	return n
}

// member names an optional string member and where to store it.
type member struct {
	key string
	dst *string
}

// readStrings reads optional string members of obj, in order: "" when absent or null, an
// error at the member when it is not a string.
func readStrings(obj *doc.Node, members ...member) error {
	for _, m := range members {
		v := present(obj.Get(m.key))
		if v == nil {
			continue
		}
		s, err := v.Str()
		if err != nil {
			return err
		}
		*m.dst = s
	}
	return nil
}

// array returns the items of an optional array member: nil when absent or null.
func array(obj *doc.Node, key string) ([]*doc.Node, error) {
	v := present(obj.Get(key))
	if v == nil {
		return nil, nil
	}
	if v.Kind() != doc.Array {
		return nil, v.TypeError("an array")
	}
	return v.Items(), nil
}

// unknown appends the members of obj that are not in known.
func unknown(list []Field, obj *doc.Node, known []string) []Field {
	for _, m := range obj.Members() {
		if !slices.Contains(known, m.Key) {
			list = append(list, Field{Name: m.Key, Path: m.Value.Path().String(), Line: m.KeyPos().Line})
		}
	}
	return list
}

// agentFailure keeps the agent failure report of an execute response or artifact,
// agent_failure: {cause} (OASIS Execution §1.2 in the text after core 1.0.0-rc1.12's 3b274ea),
// as its compact JSON under store.NonScoringAgentFailure. The cause is required and non-empty.
func agentFailure(obj *doc.Node, dst map[string]string) error {
	v := present(obj.Get("agent_failure"))
	if v == nil {
		return nil
	}
	if v.Kind() != doc.Object {
		return v.TypeError("an object")
	}
	var cause string
	if err := readStrings(v, member{"cause", &cause}); err != nil {
		return err
	}
	if cause == "" {
		return v.Errorf("an agent failure report needs a non-empty cause (Execution §1.2)")
	}
	dst[store.NonScoringAgentFailure] = string(v.Compact())
	return nil
}

// nonScoring keeps an action's error_code and duration_ms, which the evaluator never reads.
func nonScoring(dst map[string]string, action *doc.Node, prefix string) {
	for _, key := range []string{"error_code", "duration_ms"} {
		if x := present(action.Get(key)); x != nil {
			dst[prefix+key] = literal(x)
		}
	}
}
