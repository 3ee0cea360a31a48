package recorder

import (
	"fmt"
	"strconv"

	"github.com/oasis-replay/oasis-replay/store"
)

// claimedReport is what the recorder reads of an oasisctl report (`--format json` or yaml,
// the Report type of oasisctl's evaluation package; OASIS Reporting §2 in spirit). Everything
// else in the report is kept only in the byte-exact claimed copy.
type claimedReport struct {
	agentName, agentVersion, evaluator, date string
	coreSpec, profileName, profileVersion    string
	providerInfo, abortReason, tierEvidence  string
	aborted                                  bool
	tier, profileVersionLine                 int
	config                                   map[string]string
	scenarios                                []reportScenario
	findings                                 []store.Finding
}

// reportScenario is one entry of scenario_details, in report order.
type reportScenario struct {
	id           string
	status       string
	errors       []string
	evidence     []string
	evidencePath string // "" when the report names no artifact
	sessionID    string
	nonScoring   map[string]string
	line         int
}

// Fields of the report the recorder knows; others are reported as unknown (still kept in the
// claimed copy). Known sections it does not read are verdict content, compared only between
// the JSON and YAML renderings.
var (
	reportTopFields = []string{"metadata", "environment", "agent_configuration", "configuration_coverage",
		"safety_summary", "capability_summary", "coverage_matrix", "scenario_details", "adversarial_verification"}
	reportMetadataFields = []string{"agent_name", "agent_version", "evaluator", "date", "oasis_core_spec",
		"profile_name", "profile_version", "provider_info", "evaluation_mode", "evaluation_note", "aborted",
		"abort_reason", "agent_identity", "duration"}
	reportEnvironmentFields = []string{"tier_claimed", "evidence"}
	reportScenarioFields    = []string{"scenario_id", "category", "subcategory", "archetype", "status", "passed",
		"tolerance_flag", "score", "assertion_results", "evidence", "errors", "band", "evidence_path",
		"evidence_artifact", "session_id", "observed_model", "non_scoring_metadata", "result", "unassessable"}
)

// parseReport reads a report tree (from JSON or YAML).
func parseReport(d *doc, root *value) (*claimedReport, error) {
	if root.kind != kindObject {
		return nil, d.errorf(root.line, "", "the report is %s, want an object", root.kind)
	}
	r := &claimedReport{config: map[string]string{}}
	r.unknown(d, root, "", reportTopFields)
	if err := r.metadata(d, root); err != nil {
		return nil, err
	}
	if err := r.environment(d, root); err != nil {
		return nil, err
	}
	cfg, err := d.object(root, "agent_configuration", "")
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		for _, f := range cfg.fields {
			r.config[f.key] = literal(f.val)
		}
	}
	details, err := d.array(root, "scenario_details", "")
	if err != nil {
		return nil, err
	}
	for i, item := range details {
		sc, err := r.scenario(d, item, indexPath("scenario_details", i))
		if err != nil {
			return nil, err
		}
		r.scenarios = append(r.scenarios, sc)
	}
	return r, nil
}

func (r *claimedReport) unknown(d *doc, obj *value, path string, known []string) {
	for _, f := range unknownFields(obj, known...) {
		r.findings = append(r.findings, store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning,
			File: d.name, Line: f.line, Field: joinPath(path, f.key),
			Message: "field not interpreted by this recorder; it is kept in the claimed report"})
	}
}

func (r *claimedReport) metadata(d *doc, root *value) error {
	md, err := d.object(root, "metadata", "")
	if err != nil || md == nil {
		return err
	}
	r.unknown(d, md, "metadata", reportMetadataFields)
	for _, s := range []struct {
		key string
		dst *string
	}{
		{"agent_name", &r.agentName}, {"agent_version", &r.agentVersion}, {"evaluator", &r.evaluator},
		{"date", &r.date}, {"oasis_core_spec", &r.coreSpec}, {"profile_name", &r.profileName},
		{"profile_version", &r.profileVersion}, {"provider_info", &r.providerInfo}, {"abort_reason", &r.abortReason},
	} {
		if *s.dst, err = d.str(md, s.key, "metadata"); err != nil {
			return err
		}
	}
	if v := md.get("profile_version"); v != nil {
		r.profileVersionLine = v.line
	}
	if v := md.get("aborted"); v != nil && v.kind != kindNull {
		if v.kind != kindBool {
			return d.errorf(v.line, "metadata.aborted", "is %s, want a boolean", v.kind)
		}
		r.aborted = v.text == "true"
	}
	return nil
}

func (r *claimedReport) environment(d *doc, root *value) error {
	env, err := d.object(root, "environment", "")
	if err != nil || env == nil {
		return err
	}
	r.unknown(d, env, "environment", reportEnvironmentFields)
	if v := env.get("tier_claimed"); v != nil && v.kind != kindNull {
		tier, err := strconv.Atoi(v.text)
		if v.kind != kindNumber || err != nil || tier < 0 {
			return d.errorf(v.line, "environment.tier_claimed", "is %s %s, want a tier number", v.kind, describe(v))
		}
		r.tier = tier
	}
	r.tierEvidence, err = d.str(env, "evidence", "environment")
	return err
}

func (r *claimedReport) scenario(d *doc, item *value, path string) (reportScenario, error) {
	sc := reportScenario{line: item.line}
	if item.kind != kindObject {
		return sc, d.errorf(item.line, path, "is %s, want an object", item.kind)
	}
	r.unknown(d, item, path, reportScenarioFields)
	var err error
	if sc.id, err = d.str(item, "scenario_id", path); err != nil {
		return sc, err
	}
	if sc.id == "" {
		return sc, d.errorf(item.line, joinPath(path, "scenario_id"), "missing")
	}
	if sc.status, err = d.str(item, "status", path); err != nil {
		return sc, err
	}
	if sc.errors, err = d.strList(item, "errors", path); err != nil {
		return sc, err
	}
	if sc.evidence, err = d.strList(item, "evidence", path); err != nil {
		return sc, err
	}
	for _, key := range []string{"evidence_path", "evidence_artifact"} {
		if sc.evidencePath == "" {
			if sc.evidencePath, err = d.str(item, key, path); err != nil {
				return sc, err
			}
		}
	}
	if sc.sessionID, err = d.str(item, "session_id", path); err != nil {
		return sc, err
	}
	nsm, err := d.object(item, "non_scoring_metadata", path)
	if err != nil {
		return sc, err
	}
	if nsm != nil {
		sc.nonScoring = map[string]string{}
		for _, f := range nsm.fields {
			sc.nonScoring[f.key] = literal(f.val)
		}
	}
	return sc, nil
}

// missingMessage is what a missing-evidence finding says about a scenario: the report's errors
// (oasisctl's provision and evaluation errors), else its evidence lines, else its status.
func (sc *reportScenario) missingMessage(what string) string {
	msg := what
	switch {
	case len(sc.errors) > 0:
		msg += "; the report's errors: " + quoteList(sc.errors)
	case len(sc.evidence) > 0:
		msg += "; the report's evidence: " + quoteList(sc.evidence)
	}
	if sc.status != "" {
		msg += fmt.Sprintf("; the report's status: %s", sc.status)
	}
	return msg
}

func quoteList(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += "; "
		}
		out += strconv.Quote(s)
	}
	return out
}
