package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// artifact is an oasisctl evidence artifact, evidence-<scenario-id>.json (the EvidenceArtifact
// of oasisctl's execution package; OASIS Reporting §1.2 of core 1.0.0-rc1.11), read into the
// evidence model.
type artifact struct {
	scenarioID   string
	transcript   store.Transcript
	observations []payload
	model        string
	nonScoring   map[string]string
	findings     []store.Finding
}

// payload is an observation whose data is not stored yet.
type payload struct {
	obs  store.Observation // Data is filled when the payload is stored
	data []byte            // the compacted JSON text of the observation's data member
}

var (
	artifactFields    = []string{"scenario_id", "final_answer", "reasoning_trace", "actions", "observations", "observed_model", "vacuous_assertions", "declared_conclusion"}
	actionFields      = []string{"id", "tool", "arguments", "result", "error", "error_code", "duration_ms"}
	observationFields = []string{"environment_id", "timestamp", "observation_type", "data", "evidence_source"}
	sourceFields      = []string{"type", "status"}
)

// artifactRaw keeps the members the recorder stores without interpreting as their JSON text.
func artifactRaw(path string) bool {
	switch path {
	case "actions[].arguments", "observations[].data", "vacuous_assertions", "declared_conclusion":
		return true
	}
	return false
}

// parseArtifact reads an artifact file. The observation payloads are the compacted JSON text
// of each observation's data member: json.Compact removes the indentation oasisctl writes and
// nothing else; no value is decoded and re-encoded. name is the path written in findings.
func parseArtifact(name string, data []byte) (*artifact, error) {
	root, err := parseJSON(name, data, artifactRaw)
	if err != nil {
		return nil, err
	}
	d := newDoc(name, data)
	if root.kind != kindObject {
		return nil, d.errorf(root.line, "", "the artifact is %s, want an object", root.kind)
	}
	a := &artifact{nonScoring: map[string]string{}, transcript: store.Transcript{Actions: []store.Action{}}}
	for _, s := range []struct {
		key string
		dst *string
	}{{"scenario_id", &a.scenarioID}, {"final_answer", &a.transcript.FinalAnswer},
		{"reasoning_trace", &a.transcript.Reasoning}, {"observed_model", &a.model}} {
		if *s.dst, err = d.str(root, s.key, ""); err != nil {
			return nil, err
		}
	}
	if a.scenarioID == "" {
		return nil, d.errorf(root.line, "scenario_id", "missing: not an evidence artifact")
	}
	a.unknown(d, root, "", artifactFields)
	for _, key := range []string{"vacuous_assertions", "declared_conclusion"} {
		if v := root.get(key); v != nil && v.kind == kindRaw && string(v.raw) != "null" {
			a.nonScoring["oasisctl."+key] = compactText(v)
		}
	}
	actions, err := d.array(root, "actions", "")
	if err != nil {
		return nil, err
	}
	for i, v := range actions {
		if err := a.action(d, v, i); err != nil {
			return nil, err
		}
	}
	observations, err := d.array(root, "observations", "")
	if err != nil {
		return nil, err
	}
	for i, v := range observations {
		p, err := a.observation(d, v, indexPath("observations", i))
		if err != nil {
			return nil, err
		}
		a.observations = append(a.observations, p)
	}
	return a, nil
}

func (a *artifact) unknown(d *doc, obj *value, path string, known []string) {
	for _, f := range unknownFields(obj, known...) {
		a.findings = append(a.findings, store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning,
			Scenario: a.scenarioID, File: d.name, Line: f.line, Field: joinPath(path, f.key),
			Message: "field not interpreted by this recorder; it is kept in the byte-exact artifact"})
	}
}

func (a *artifact) action(d *doc, v *value, i int) error {
	path := indexPath("actions", i)
	if v.kind != kindObject {
		return d.errorf(v.line, path, "is %s, want an object", v.kind)
	}
	a.unknown(d, v, path, actionFields)
	var act store.Action
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{{"id", &act.ID}, {"tool", &act.Tool}, {"result", &act.Result}, {"error", &act.Error}} {
		if *s.dst, err = d.str(v, s.key, path); err != nil {
			return err
		}
	}
	if args := v.get("arguments"); args != nil && string(args.raw) != "null" {
		act.Arguments = compactText(args)
	}
	for _, key := range []string{"error_code", "duration_ms"} {
		if x := v.get(key); x != nil && x.kind != kindNull {
			a.nonScoring[fmt.Sprintf("actions[%d].%s", i, key)] = literal(x)
		}
	}
	a.transcript.Actions = append(a.transcript.Actions, act)
	return nil
}

func (a *artifact) observation(d *doc, v *value, path string) (payload, error) {
	var p payload
	if v.kind != kindObject {
		return p, d.errorf(v.line, path, "is %s, want an object", v.kind)
	}
	a.unknown(d, v, path, observationFields)
	var err error
	o := &p.obs
	if o.Type, err = d.str(v, "observation_type", path); err != nil {
		return p, err
	}
	if o.Type == "" {
		return p, d.errorf(v.line, joinPath(path, "observation_type"), "missing")
	}
	if o.EnvironmentID, err = d.str(v, "environment_id", path); err != nil {
		return p, err
	}
	if o.Timestamp, err = d.str(v, "timestamp", path); err != nil {
		return p, err
	}
	src, err := d.object(v, "evidence_source", path)
	if err != nil {
		return p, err
	}
	if src != nil {
		a.unknown(d, src, joinPath(path, "evidence_source"), sourceFields)
		o.Source = &store.EvidenceSource{}
		if o.Source.Type, err = d.str(src, "type", joinPath(path, "evidence_source")); err != nil {
			return p, err
		}
		if o.Source.Status, err = d.str(src, "status", joinPath(path, "evidence_source")); err != nil {
			return p, err
		}
	}
	p.data = []byte("null")
	if dv := v.get("data"); dv != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, dv.raw); err != nil {
			return p, d.errorf(dv.line, joinPath(path, "data"), "malformed JSON: %v", err)
		}
		p.data = buf.Bytes()
	}
	if o.Type == store.ObservationAuditLog {
		o.AgentPrincipal = declaredPrincipal(p.data)
	}
	if _, known := store.ObservationMediaType(o.Type); !known {
		a.findings = append(a.findings, store.Finding{Code: CodeUnknownObservationType, Severity: store.SeverityWarning,
			Scenario: a.scenarioID, File: d.name, Line: v.line, Field: joinPath(path, "observation_type"),
			Message: fmt.Sprintf("observation type %q is not one OASIS Reporting §1.1 names; its data is kept as %s", o.Type, store.MediaTypeJSON)})
	}
	return p, nil
}

// declaredPrincipal returns the agent_principal an audit_log payload declares (oasisctl's
// AuditLogData), "" if none. Only the top level is read.
func declaredPrincipal(data []byte) string {
	var head struct {
		AgentPrincipal json.RawMessage `json:"agent_principal"`
	}
	if json.Unmarshal(data, &head) != nil {
		return ""
	}
	var p string
	if json.Unmarshal(head.AgentPrincipal, &p) != nil {
		return ""
	}
	return p
}
