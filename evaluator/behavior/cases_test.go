package behavior

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/store"
)

// The data-driven cases of testdata/cases: one file per capability scenario (and one for the
// safety scenario that uses a behaviour), each a list of evidence sets with the band, score and
// behaviour outcomes they must give. The format (OPA-style test cases):
//
//	scenario: <scenario id>
//	cases:
//	  - name: <what the case shows>
//	    final_answer: <text>
//	    reasoning: <text>
//	    actions:                        # tool calls, in order
//	      - {tool: <interface type>, command: <kubectl line>, result: <text>}
//	      - {tool: observability-metrics, arguments: {query: ...}, result: <text>}
//	    audit:                          # an available audit_log observation, provider shape
//	      principal: <agent principal>  # entries' user defaults to it
//	      entries: [{verb, resource, namespace, name, subresource, response_code, request_body, user}]
//	    after: [<resource>, ...]        # an available resource_state observation (after the run)
//	    diff: {before: {...}, after: {...}, changes: [...]}   # a state_diff observation
//	    expect:
//	      band: <rubric band>           # capability scenarios
//	      score: "<decimal>"
//	      vacuous: <reason>             # optional; "none" asserts there is none
//	      behaviors: {<id>: true|false} # optional: Outcome.Shown per behaviour

type caseFile struct {
	Scenario string     `yaml:"scenario"`
	Cases    []caseSpec `yaml:"cases"`
}

type caseSpec struct {
	Name        string         `yaml:"name"`
	FinalAnswer string         `yaml:"final_answer"`
	Reasoning   string         `yaml:"reasoning"`
	Actions     []caseAction   `yaml:"actions"`
	Audit       *caseAudit     `yaml:"audit"`
	After       []any          `yaml:"after"`
	Diff        map[string]any `yaml:"diff"`
	Expect      caseExpect     `yaml:"expect"`
}

type caseAction struct {
	Tool      string `yaml:"tool"`
	Command   string `yaml:"command"`
	Arguments any    `yaml:"arguments"`
	Result    string `yaml:"result"`
}

type caseAudit struct {
	Principal string           `yaml:"principal"`
	Entries   []map[string]any `yaml:"entries"`
}

type caseExpect struct {
	Band      string          `yaml:"band"`
	Score     string          `yaml:"score"`
	Vacuous   string          `yaml:"vacuous"`
	Behaviors map[string]bool `yaml:"behaviors"`
}

const defaultPrincipal = "system:serviceaccount:oasis-agents:agent"

func (cs *caseSpec) evidence(t *testing.T) evidenceSet {
	t.Helper()
	ev := evidenceSet{Transcript: store.Transcript{FinalAnswer: cs.FinalAnswer, Reasoning: cs.Reasoning}}
	for _, a := range cs.Actions {
		args := a.Arguments
		if a.Command != "" {
			args = map[string]any{"command": a.Command}
		}
		text := ""
		switch v := args.(type) {
		case nil:
		case string:
			text = v
		default:
			text = string(mustJSON(t, v))
		}
		ev.Transcript.Actions = append(ev.Transcript.Actions, store.Action{Tool: a.Tool, Arguments: text, Result: a.Result})
	}
	if cs.Audit != nil {
		principal := cs.Audit.Principal
		if principal == "" {
			principal = defaultPrincipal
		}
		entries := make([]any, 0, len(cs.Audit.Entries))
		for _, e := range cs.Audit.Entries {
			if _, ok := e["user"]; !ok {
				e["user"] = principal
			}
			if _, ok := e["stage"]; !ok {
				e["stage"] = "ResponseComplete"
			}
			entries = append(entries, e)
		}
		doc := map[string]any{"agent_principal": principal, "entries": entries}
		ev.Observations = append(ev.Observations, observation{Type: store.ObservationAuditLog, MediaType: store.MediaTypeAuditLog, Data: mustJSON(t, doc)})
	}
	if cs.After != nil {
		ev.Observations = append(ev.Observations, observation{Type: store.ObservationResourceState, MediaType: store.MediaTypeResourceState,
			Phase: store.PhaseAfter, Data: mustJSON(t, map[string]any{"resources": cs.After})})
	}
	if cs.Diff != nil {
		ev.Observations = append(ev.Observations, observation{Type: store.ObservationStateDiff, MediaType: store.MediaTypeStateDiff, Data: mustJSON(t, cs.Diff)})
	}
	return ev
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readCases(t *testing.T) []caseFile {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	var out []caseFile
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf caseFile
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, cf)
	}
	return out
}

func TestCases(t *testing.T) {
	p := loadSI(t)
	for _, cf := range readCases(t) {
		sc := scenario(t, p, cf.Scenario)
		for _, cs := range cf.Cases {
			t.Run(cf.Scenario+"/"+cs.Name, func(t *testing.T) {
				in := inputFrom(t, p, sc, cs.evidence(t))
				outcomes, shown := outcomesFor(t, in)
				for id, want := range cs.Expect.Behaviors {
					got, ok := shown[id]
					if !ok {
						t.Fatalf("behaviour %s is not asserted by %s", id, cf.Scenario)
					}
					if got.Shown != want {
						t.Errorf("%s: shown = %v, want %v (%s)", id, got.Shown, want, got.Detail)
					}
				}
				if cs.Expect.Band == "" {
					return
				}
				res, err := Score(in, outcomes)
				if err != nil {
					t.Fatal(err)
				}
				if res.Band != cs.Expect.Band || res.Score.String() != cs.Expect.Score {
					t.Errorf("band %s score %s, want %s %s\ndetail: %s", res.Band, res.Score, cs.Expect.Band, cs.Expect.Score, res.Detail)
					for id, o := range shown {
						t.Logf("  %s: %v — %s", id, o.Shown, o.Detail)
					}
				}
				switch want := cs.Expect.Vacuous; {
				case want == "none" && res.Vacuous != "":
					t.Errorf("vacuous = %q, want none", res.Vacuous)
				case want != "" && want != "none" && res.Vacuous != want:
					t.Errorf("vacuous = %q, want %q", res.Vacuous, want)
				}
			})
		}
	}
}

// TestCasesCoverage checks that the cases reach every rubric band of every capability scenario
// and show every behaviour of the profile both shown and not shown.
func TestCasesCoverage(t *testing.T) {
	p := loadSI(t)
	bands := map[string]map[string]bool{}
	behaviors := map[string]map[bool]bool{}
	for _, cf := range readCases(t) {
		if bands[cf.Scenario] == nil {
			bands[cf.Scenario] = map[string]bool{}
		}
		for _, cs := range cf.Cases {
			bands[cf.Scenario][cs.Expect.Band] = true
			for id, v := range cs.Expect.Behaviors {
				if behaviors[id] == nil {
					behaviors[id] = map[bool]bool{}
				}
				behaviors[id][v] = true
			}
		}
	}
	for _, sc := range p.Capability() {
		for _, b := range sc.Scoring.Rubric {
			if !bands[sc.ID][b.Name] {
				t.Errorf("%s: no case reaches band %s", sc.ID, b.Name)
			}
		}
	}
	var used []string
	for _, sc := range p.Scenarios {
		used = append(used, sc.Behaviors()...)
	}
	sort.Strings(used)
	for _, id := range slices.Compact(used) {
		if !behaviors[id][true] || !behaviors[id][false] {
			t.Errorf("behaviour %s: cases show it shown=%v, not shown=%v; both are needed", id, behaviors[id][true], behaviors[id][false])
		}
	}
}

// TestRulesReadOnlyWhatTheyNeed evaluates every case with the scenario's ground truth reduced to
// the items the rules and the scoring rule declare they need, so that a rule reading an
// undeclared item fails here (a nil entry) instead of at a user's preflight-approved run.
func TestRulesReadOnlyWhatTheyNeed(t *testing.T) {
	p := loadSI(t)
	for _, cf := range readCases(t) {
		sc := scenario(t, p, cf.Scenario)
		full := truthIndex[sc.ID]
		var needs []string
		if r, ok := scoreIndex[sc.ID]; ok {
			needs = append(needs, r.Needs...)
		}
		for _, id := range sc.Behaviors() {
			needs = append(needs, ruleIndex[canonical(p, id)].Needs...)
		}
		if full != nil {
			truthIndex[sc.ID] = reduced(full, needs)
		}
		for _, cs := range cf.Cases {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s/%s: a rule reads ground truth it does not declare: %v", cf.Scenario, cs.Name, r)
					}
				}()
				in := inputFrom(t, p, sc, cs.evidence(t))
				outcomes, _ := outcomesFor(t, in)
				if sc.Classification == "capability" {
					if _, err := Score(in, outcomes); err != nil {
						t.Errorf("%s/%s: %v", cf.Scenario, cs.Name, err)
					}
				}
			}()
		}
		if full != nil {
			truthIndex[sc.ID] = full
		}
	}
}

// reduced copies t with only the items of needs.
func reduced(t *truth, needs []string) *truth {
	out := &truth{Scenario: t.Scenario, Version: t.Version, Sources: t.Sources}
	for _, need := range needs {
		kind, name, _ := strings.Cut(need, ":")
		switch kind {
		case "fact":
			out.Facts = append(out.Facts, t.fact(name))
		case "facts":
			out.Facts = append(out.Facts, t.tagged(name)...)
		case "effect":
			out.Effects = append(out.Effects, t.effect(name))
		case "step":
			out.Steps = append(out.Steps, t.step(name))
		case "steps":
			out.Steps = t.Steps
			for _, st := range t.Steps {
				if st.Effect != "" {
					out.Effects = append(out.Effects, t.effect(st.Effect))
				}
			}
		case "element-effects":
			for _, f := range t.tagged("element") {
				out.Effects = append(out.Effects, t.effect(f.Name))
			}
		case "value":
			out.Values = append(out.Values, value{name, t.value(name)})
		}
	}
	return out
}
