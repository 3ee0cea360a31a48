package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
)

// Cite renders a citation for people: what it points at, where, and its excerpt.
//
//	audit entry, line 1, byte 670, auditID 12300515-…, observation 0 (blob sha256:4d2c8ab27731): "list nodes"
func Cite(c evidence.Citation) string {
	var parts []string
	switch c.Kind {
	case evidence.KindAuditEntry:
		// The line locates an entry in a JSON-lines log; in a log recorded as one JSON
		// document every entry is on line 1, and the byte offset is what locates it.
		parts = append(parts, "audit entry")
		if c.Line > 0 {
			parts = append(parts, fmt.Sprintf("line %d", c.Line))
		}
		if c.Offset > 0 || c.Line == 0 {
			parts = append(parts, fmt.Sprintf("byte %d", c.Offset))
		}
		if c.AuditID != "" {
			parts = append(parts, "auditID "+c.AuditID)
		}
	case evidence.KindAuditLog:
		parts = append(parts, "audit log")
	case evidence.KindSnapshotField:
		parts = append(parts, "snapshot field "+c.Path)
	case evidence.KindStateDiff:
		parts = append(parts, "state_diff "+c.Path)
	case evidence.KindChannel:
		parts = append(parts, fmt.Sprintf("channel %s at byte %d", c.Channel, c.Offset))
	case evidence.KindAction:
		parts = append(parts, fmt.Sprintf("tool call %d", c.Action))
	case evidence.KindPrecondition:
		parts = append(parts, "precondition "+c.Path)
	case evidence.KindObservation:
		parts = append(parts, "observation")
	case evidence.KindFinding:
		parts = append(parts, "recorder finding")
	default:
		parts = append(parts, c.Kind)
	}
	if c.Observation >= 0 && c.Kind != evidence.KindFinding && c.Kind != evidence.KindChannel &&
		c.Kind != evidence.KindAction && c.Kind != evidence.KindPrecondition {
		obs := fmt.Sprintf("observation %d", c.Observation)
		if !c.Blob.IsZero() {
			obs += " (blob " + c.Blob.Short() + ")"
		}
		parts = append(parts, obs)
	}
	s := strings.Join(parts, ", ")
	if c.Excerpt != "" {
		s += ": " + strconv.Quote(c.Excerpt)
	}
	return s
}

// DescribeCheck renders a check on one line: where it is declared, what it says, how it came
// out, under which rule, and why.
//
//	verification.api_audit[0] (line 152) "authentication with non-agent credentials": violated by si-interpretations/1#foreign_credentials: 2 request(s)…
func DescribeCheck(c evaluator.Check) string {
	s := fmt.Sprintf("%s[%d]", c.Block, c.Index)
	if c.Line > 0 {
		s += fmt.Sprintf(" (line %d)", c.Line)
	}
	s += fmt.Sprintf(" %q: %s by %s", c.Text, c.Outcome, c.Rule)
	if c.Vacuity != "" {
		s += " (vacuous: " + c.Vacuity + ")"
	}
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}

// DecidingChecks returns the checks that decided a scenario's status: the violated ones for a
// FAIL, none otherwise.
func DecidingChecks(r *evaluator.ScenarioResult) []evaluator.Check {
	var out []evaluator.Check
	for _, list := range [][]evaluator.Check{r.Assertions, r.Verification} {
		for _, c := range list {
			if c.Outcome == evaluator.Violated {
				out = append(out, c)
			}
		}
	}
	return out
}

// Evidence renders the evidence that decided a scenario, one line per item, for reports: the
// provider failure's cause and signals, each violated check and its citations, or a capability
// score's rule and citations. A PASS is summarised by its number of checks.
func Evidence(r *evaluator.ScenarioResult) []string {
	var out []string
	if r.Status == evaluator.ProviderFailure {
		out = append(out, "provider failure: "+r.Reason)
		for _, c := range r.ProviderFailure {
			out = append(out, "  "+Cite(c))
		}
		return out
	}
	for _, c := range DecidingChecks(r) {
		out = append(out, DescribeCheck(c))
		for _, cite := range c.Cites {
			out = append(out, "  "+Cite(cite))
		}
	}
	if r.Score != nil {
		s := "score " + r.Score.Value.String() + " by " + r.Score.Rule
		if r.Score.Band != "" {
			s += ", band " + r.Score.Band
		}
		if r.Score.Vacuity != "" {
			s += " (vacuous: " + r.Score.Vacuity + ")"
		}
		if r.Score.Detail != "" {
			s += ": " + r.Score.Detail
		}
		out = append(out, s)
		for _, cite := range r.Score.Cites {
			out = append(out, "  "+Cite(cite))
		}
	}
	if len(out) == 0 && r.State == evaluator.StateEvaluated {
		decided, vacuous := 0, 0
		for _, list := range [][]evaluator.Check{r.Assertions, r.Verification} {
			for _, c := range list {
				if c.Outcome == evaluator.Satisfied {
					decided++
					if c.Vacuity != "" {
						vacuous++
					}
				}
			}
		}
		out = append(out, fmt.Sprintf("%d check(s) satisfied, %d of them on an absence (vacuous)", decided, vacuous))
	}
	return out
}

// AbortPoint returns the index in v.Scenarios of the scenario whose runtime PROVIDER_FAILURE
// aborted the run (Core §3.7), or -1 when the run did not abort. Only the evidence gate gives
// PROVIDER_FAILURE, and it always aborts there, so it is the first scenario with that status.
func AbortPoint(v *evaluator.Verdict) int {
	if !v.Metadata.Aborted {
		return -1
	}
	for i := range v.Scenarios {
		if v.Scenarios[i].Status == evaluator.ProviderFailure {
			return i
		}
	}
	return -1
}
