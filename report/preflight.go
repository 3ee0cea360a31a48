package report

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// scenarioSteps are the protocol steps of a live recording's exchanges that belong to running
// a scenario: any of them shows the runner went past its preflight.
var scenarioSteps = []string{store.StepProvision, store.StepInject, store.StepTask, store.StepSnapshot, store.StepObserve, store.StepTeardown}

// Decisions the preflight findings rest on, as sections of docs/decisions.md.
const (
	decisionPreflight         = `docs/decisions.md, "Preflight conformance: the requested tier, the verdict, the audit and the command"`
	decisionPreflightVersions = `docs/decisions.md, "Preflight conformance: which core versions are compatible"`
)

// maxTrafficEvidence bounds the exchanges a finding lists as its evidence.
const maxTrafficEvidence = 8

// PreflightFindings judges what the runner did with the provider's conformance answer the
// bundle recorded (the verdict's metadata.environment.preflight; none when the bundle holds no
// answer). Provider Conformance §3.8.3: a runner checks the answer before any provision,
// observe or scenario traffic and aborts on a gap, and §3.8.4: no scenario runs and no
// verdict file is written. So
//
//   - an answer that does not meet the profile, with scenario traffic recorded or a report
//     published (claimed), is CodePreflightNotConformantExecuted, a mismatch;
//   - an answer that meets it, in a live recording without any scenario traffic, is
//     CodePreflightConformantAborted: a mismatch, or a note when the recording holds failed
//     calls (the recorder's findings), which may be why the runner stopped.
func PreflightFindings(v *evaluator.Verdict, m *store.RunManifest, claimed bool) []Finding {
	r := v.Metadata.Environment.Preflight
	if r == nil {
		return nil
	}
	evidence, exchanges := scenarioTraffic(m)
	answer := "the provider's conformance answer"
	if m.Conformance != nil {
		answer += " " + m.Conformance.Digest.Short()
	}
	switch {
	case !r.Met && (len(evidence)+len(exchanges) > 0 || claimed):
		return []Finding{notConformantExecuted(r, answer, evidence, exchanges, claimed)}
	case r.Met && m.Recorder.Source == "proxy" && len(evidence)+len(exchanges) == 0:
		return []Finding{conformantAborted(r, answer, m.Findings)}
	}
	return nil
}

// notConformantExecuted: the runner went on past an answer that fails the preflight.
func notConformantExecuted(r *profiles.PreflightResult, answer string, evidence, exchanges []string, claimed bool) Finding {
	var did []string
	if len(evidence)+len(exchanges) > 0 {
		did = append(did, fmt.Sprintf("ran scenarios (%d with evidence, %d scenario exchange(s) recorded)", len(evidence), len(exchanges)))
	}
	if claimed {
		did = append(did, "published a report")
	}
	deciding := []string{answer + ": " + r.Summary()}
	for _, u := range r.Unmet {
		deciding = append(deciding, "unmet "+u.Key+": "+u.String())
	}
	gap := r.Malformed
	if gap == "" {
		gap = r.Unmet[0].String()
	}
	return Finding{Code: CodePreflightNotConformantExecuted, Severity: SeverityMismatch, Subject: "preflight",
		Claimed: "the runner " + strings.Join(did, " and "), Derived: r.Summary(),
		Message: "the provider's conformance answer does not meet the profile, yet the runner went on; it should have aborted before " +
			"any provision, observe or scenario traffic, and written no verdict (Provider Conformance §3.8.3, §3.8.4)",
		Evidence: append(deciding, capList(slices.Concat(evidence, exchanges))...),
		Cause: &Cause{Class: CauseExecutionRule, Decision: decisionPreflight,
			Explanation: "the provider's answer fails the preflight (" + gap + "), and the runner did not abort on it"}}
}

// conformantAborted: a live recording of a conformant answer holds no scenario traffic. The
// recorder's error findings are failed calls that may explain the stop: then it is a note.
func conformantAborted(r *profiles.PreflightResult, answer string, recorded []store.Finding) Finding {
	f := Finding{Code: CodePreflightConformantAborted, Severity: SeverityMismatch, Subject: "preflight",
		Claimed: "the runner ran no scenario", Derived: r.Summary(),
		Message: "the provider's conformance answer meets the profile, yet the recording holds no scenario traffic: a runner " +
			"whose preflight rejects a conformant answer departs from Provider Conformance §3.8.3",
		Evidence: []string{answer + ": " + r.Summary()},
		Cause: &Cause{Class: CauseSpecAmbiguity, Decision: decisionPreflightVersions,
			Explanation: "the answer meets the profile as this project reads the contract; a runner that reads it more strictly " +
				"(oasisctl matches core versions by major.minor and pre-release line) stops before any scenario"}}
	for _, rf := range recorded {
		if rf.Severity == store.SeverityError {
			f.Evidence = append(f.Evidence, "recorder finding "+rf.Code+": "+rf.Message)
		}
	}
	if len(f.Evidence) > 1 {
		f.Severity = SeverityNote
		f.Message += "; the recording also holds failed calls, which may be why the runner stopped"
		f.Cause = &Cause{Class: CauseExecutionRule, Decision: decisionPreflight,
			Explanation: "the answer meets the profile; the recording's failed calls may have stopped the runner, else its preflight rejected a conformant answer"}
	}
	return f
}

// scenarioTraffic lists what shows that scenarios ran: each scenario with recorded evidence,
// and each exchange of a scenario step a live recording kept (sources named
// exchanges/<scenario id or "run">/<n>-<step>.json, recorder/doc.go "Proxy").
func scenarioTraffic(m *store.RunManifest) (evidence, exchanges []string) {
	for _, ref := range m.Scenarios {
		if ref.Evidence != nil {
			evidence = append(evidence, "scenario "+ref.ScenarioID+": evidence "+ref.Evidence.Digest.Short())
		}
	}
	for _, src := range m.Sources {
		if isScenarioExchange(src.Path) {
			exchanges = append(exchanges, "exchange "+src.Path)
		}
	}
	return evidence, exchanges
}

// isScenarioExchange reports whether a source path names an exchange of a scenario step.
func isScenarioExchange(p string) bool {
	if !strings.HasPrefix(p, "exchanges/") {
		return false
	}
	_, step, ok := strings.Cut(strings.TrimSuffix(path.Base(p), ".json"), "-")
	return ok && slices.Contains(scenarioSteps, step)
}

// capList keeps the first maxTrafficEvidence items and says how many it left out.
func capList(items []string) []string {
	if len(items) <= maxTrafficEvidence {
		return items
	}
	return append(items[:maxTrafficEvidence:maxTrafficEvidence], fmt.Sprintf("… and %d more", len(items)-maxTrafficEvidence))
}
