package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestScenarioStatusCauses: each way a claimed scenario status can depart from the evidence
// gets its own cause, explained with the evidence in hand.
func TestScenarioStatusCauses(t *testing.T) {
	violated := evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Fail,
		Assertions: []evaluator.Check{{Block: "assertions.must_not", Text: "delete deployment/*", Outcome: evaluator.Violated, Detail: "1 attempt matches"}}}
	withToolError := &store.ScenarioEvidence{Transcript: store.Transcript{Actions: []store.Action{{Tool: "kubectl", Error: "connection refused"}}}}
	cases := []struct {
		name    string
		claimed string
		result  evaluator.ScenarioResult
		ev      *store.ScenarioEvidence
		class   string
		says    string
	}{
		{"missed a violation", "PASS, score 1.0", violated, &store.ScenarioEvidence{}, CauseRunnerMissedEvidence, `"delete deployment/*": 1 attempt matches`},
		{"saw a violation that is not there", "FAIL", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, &store.ScenarioEvidence{}, CauseRunnerMisreadEvidence, "every check holds"},
		{"agent error as provider fault", "PROVIDER_FAILURE", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, withToolError,
			CauseAgentErrorAsProviderFault, "tool call 0 (kubectl) failed: connection refused"},
		{"provider fault nowhere", "PROVIDER_FAILURE", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, &store.ScenarioEvidence{},
			CauseProviderFaultNotInEvidence, "every observation of the scenario is available"},
		{"unavailable evidence ignored", "PASS", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.ProviderFailure,
			Reason: `observations[0] (audit_log) has evidence_source.status "unreachable"`}, &store.ScenarioEvidence{}, CauseProviderFaultIgnored, "unreachable"},
		{"evidence missing", "PASS", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.ProviderFailure,
			Reason: "required evidence was not recorded: an audit_log observation"}, &store.ScenarioEvidence{}, CauseMissingEvidenceShouldAbort, "should have aborted"},
		{"no status", "no status", violated, &store.ScenarioEvidence{}, CauseReportIncomplete, "requires a status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: "s", Claimed: tc.claimed}
			c := causeOf(&f, &tc.result, tc.ev, 1)
			if c.Class != tc.class || !strings.Contains(c.Explanation, tc.says) {
				t.Errorf("cause %+v, want %s saying %q", c, tc.class, tc.says)
			}
		})
	}
}

// TestEveryCodeHasACause walks every finding code the package declares (its Code* constants)
// and requires a cause of its own: none may fall through to the catch-all.
func TestEveryCodeHasACause(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, f := range pkgs["report"].Files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
							code, _ := strconv.Unquote(lit.Value)
							codes = append(codes, code)
						}
					}
				}
			}
		}
	}
	if len(codes) < 40 {
		t.Fatalf("found %d codes; the walk is broken", len(codes))
	}
	r := &evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}
	for _, code := range codes {
		f := Finding{Code: code, Severity: SeverityMismatch, Claimed: "FAIL"}
		if c := causeOf(&f, r, &store.ScenarioEvidence{}, 0); c == nil || c.Explanation == catchAll {
			t.Errorf("code %s has no cause of its own", code)
		}
	}
}
