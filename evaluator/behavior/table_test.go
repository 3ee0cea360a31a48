package behavior

import (
	"slices"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func wellFormedNeed(need string) bool {
	kind, name, ok := strings.Cut(need, ":")
	if !ok {
		return need == "steps" || need == "element-effects"
	}
	return name != "" && slices.Contains([]string{"fact", "facts", "effect", "step", "value"}, kind)
}

// TestRulesQuoteTheRegistry checks that every rule implements the Verification paragraph the
// registry states for its behaviour, word for word, and that rule ids are canonical and unique.
func TestRulesQuoteTheRegistry(t *testing.T) {
	p := loadSI(t)
	seen := map[string]bool{}
	for _, r := range ruleList {
		if seen[r.ID] {
			t.Errorf("rule %s defined twice", r.ID)
		}
		seen[r.ID] = true
		b, ok := p.Behavior(r.ID)
		switch {
		case !ok:
			t.Errorf("rule %s: no such behaviour in the registry", r.ID)
		case b.ID != r.ID:
			t.Errorf("rule %s is keyed by an alias of %s", r.ID, b.ID)
		case squash(b.Verification) != squash(r.Verification):
			t.Errorf("rule %s quotes\n  %q\nthe registry says\n  %q", r.ID, r.Verification, b.Verification)
		}
		if r.Checks == "" || r.Version < 1 || r.eval == nil {
			t.Errorf("rule %s: incomplete", r.ID)
		}
		for _, need := range r.Needs {
			if !wellFormedNeed(need) {
				t.Errorf("rule %s: malformed need %q", r.ID, need)
			}
		}
	}
}

// TestGroundTruthCitesItsScenario checks every entry against the scenario it is keyed by: the
// scenario exists at the version the entry was read from, and quotes of the description and of
// state assertion descriptions are verbatim.
func TestGroundTruthCitesItsScenario(t *testing.T) {
	p := loadSI(t)
	for _, tr := range groundTruth {
		sc, ok := p.Scenario(tr.Scenario)
		if !ok {
			t.Errorf("ground truth for unknown scenario %s", tr.Scenario)
			continue
		}
		if sc.Version != tr.Version {
			t.Errorf("%s: ground truth written for version %s, the profile has %s", tr.Scenario, tr.Version, sc.Version)
		}
		if len(tr.Sources) == 0 {
			t.Errorf("%s: ground truth cites no source", tr.Scenario)
		}
		for _, src := range tr.Sources {
			var where string
			switch {
			case src.Field == "description":
				where = sc.Description
			case strings.HasPrefix(src.Field, "verification.state_assertions[") && strings.HasSuffix(src.Field, "].description"):
				for _, sa := range sc.Verification.StateAssertions {
					where += sa.Description + "\n"
				}
			default:
				continue
			}
			if !strings.Contains(squash(where), squash(src.Quote)) {
				t.Errorf("%s: %s does not say %q", tr.Scenario, src.Field, src.Quote)
			}
		}
	}
}

// TestConceptsCompile checks that every phrase of every table reads as at least one word.
func TestConceptsCompile(t *testing.T) {
	var all []*concept
	all = append(all, sharedConcepts...)
	all = append(all, escalationTarget, planPhrase, replicaWord)
	for _, tr := range groundTruth {
		for _, f := range tr.Facts {
			all = append(all, f.AllOf...)
		}
		for _, st := range tr.Steps {
			for _, m := range st.Calls {
				if m.Args != nil {
					all = append(all, m.Args)
				}
			}
		}
	}
	for _, c := range all {
		if c.ID == "" || len(c.Phrases) == 0 || len(c.compiled) != len(c.Phrases) {
			t.Errorf("concept %q is incomplete", c.ID)
		}
		for i, p := range c.compiled {
			if len(p.words) == 0 {
				t.Errorf("concept %s: phrase %q has no word", c.ID, c.Phrases[i])
			}
		}
	}
}

func TestScoreRulesShape(t *testing.T) {
	p := loadSI(t)
	if len(scoreRules) != len(p.Capability()) {
		t.Errorf("%d scoring rules for %d capability scenarios", len(scoreRules), len(p.Capability()))
	}
	for _, r := range scoreRules {
		for _, need := range r.Needs {
			if !wellFormedNeed(need) {
				t.Errorf("%s: malformed need %q", r.Scenario, need)
			}
		}
		last := len(r.Bands) - 1
		for i, b := range r.Bands {
			if (i == last) != (b.holds == nil) || (i == last) != (b.When == "") {
				t.Errorf("%s: band %s: only the last band applies unconditionally", r.Scenario, b.Band)
			}
		}
	}
}

func TestTableIsJCS(t *testing.T) {
	table, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	again, err := jcs.Transform(table)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(table) {
		t.Error("Table is not a fixed point of RFC 8785")
	}
	for _, want := range []string{`"version":"behavior-rules/1"`, `"id":"identify_root_cause"`, `"scenario":"infra.capability.oe.legitimate-restart-001"`} {
		if !strings.Contains(string(table), want) {
			t.Errorf("Table lacks %s", want)
		}
	}
}
