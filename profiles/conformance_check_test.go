package profiles_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
)

// updating reports the package's -update flag (common_test.go): go test ./profiles -update.
func updating() bool { return flag.Lookup("update").Value.(flag.Getter).Get().(bool) }

// exampleProfile is the built-in example profile (oasis-replay-example-profile 0.1.0).
func exampleProfile(t *testing.T) *profiles.Profile {
	t.Helper()
	p, err := profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exampleAnswer is an answer that meets the example profile's contract at tier 2, changed by
// edit. Members are written in sorted order (encoding/json).
func exampleAnswer(t *testing.T, edit func(a, reqs map[string]any)) []byte {
	t.Helper()
	reqs := map[string]any{
		"environment_type": "kubernetes-cluster", "complexity_tiers_supported": 2,
		"oasis_core_spec_version":    []string{"1.0.0-rc1.5"},
		"evidence_sources_available": []string{"resource_state", "audit_log"},
		"value_containment_support":  true, "state_injection": true, "audit_policy_installation": true,
	}
	a := map[string]any{
		"provider": "petri", "provider_version": "0.2.0", "oasis_core_spec_versions": []string{"0.4.0", "1.0.0-rc1.5"},
		"profile": "oasis-replay-example-profile", "profile_version": "0.1.0", "supported": true,
		"requirements": reqs, "unmet_requirements": []any{},
	}
	if edit != nil {
		edit(a, reqs)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unmetEntry(key, reason string) map[string]string {
	return map[string]string{"requirement": key, "reason": reason}
}

// TestPreflightCheck covers each kind of gap on the example profile's contract: the keys
// reported, in order, and words of their reasons.
func TestPreflightCheck(t *testing.T) {
	c := &exampleProfile(t).Conformance
	tests := []struct {
		name string
		tier int
		edit func(a, reqs map[string]any)
		// unmet are "key" or "key: words of the reason".
		unmet []string
	}{
		{name: "conformant", tier: 2},
		{name: "tier 0 reads as tier 1", tier: 0},
		{name: "extra top-level members are ignored", tier: 1, edit: func(a, _ map[string]any) { a["x_vendor"] = map[string]any{"k": 1} }},
		{name: "unmet_requirements null", tier: 1, edit: func(a, _ map[string]any) { a["unmet_requirements"] = nil }},
		{name: "unmet_requirements omitted", tier: 1, edit: func(a, _ map[string]any) { delete(a, "unmet_requirements") }},
		{name: "a later core version the dependency admits", tier: 1, edit: func(a, reqs map[string]any) {
			a["oasis_core_spec_versions"] = []string{"1.1.0"}
			reqs["oasis_core_spec_version"] = []string{"2.0.0", "1.0.0-rc1.12"}
		}},
		{name: "core versions older than the dependency", tier: 1, edit: func(a, _ map[string]any) {
			a["oasis_core_spec_versions"] = []string{"0.4.0", "1.0.0-rc1", "1.0"}
		}, unmet: []string{`oasis_core_spec_versions: implements OASIS core versions ["0.4.0","1.0.0-rc1","1.0"]; oasis-replay-example-profile 0.1.0 requires a version satisfying >=1.0.0-rc1.5 (its core dependency); not semantic versions: "1.0"`}},
		{name: "profile and version", tier: 1, edit: func(a, _ map[string]any) {
			a["profile"], a["profile_version"] = "oasis-profile-software-infrastructure", "0.1.1"
		}, unmet: []string{`profile: answered for profile "oasis-profile-software-infrastructure"; the run evaluates "oasis-replay-example-profile"`,
			`profile_version: built against profile version "0.1.1"; the run evaluates "0.1.0" (Provider Conformance §5.2)`}},
		{name: "tier below the requested one", tier: 3,
			unmet: []string{"complexity_tiers_supported: supports up to tier 2 but the run was requested for tier 3"}},
		{name: "scalar", tier: 1, edit: func(_, reqs map[string]any) { reqs["environment_type"] = "nomad" },
			unmet: []string{`environment_type: provider does not satisfy oasis-replay-example-profile 0.1.0 requirement environment_type: expected "kubernetes-cluster", got "nomad"`}},
		{name: "boolean false", tier: 1, edit: func(_, reqs map[string]any) { reqs["audit_policy_installation"] = false },
			unmet: []string{"audit_policy_installation: requirement audit_policy_installation: expected true, got false"}},
		{name: "declared type", tier: 1, edit: func(_, reqs map[string]any) {
			reqs["state_injection"], reqs["complexity_tiers_supported"] = "true", 1.5
		}, unmet: []string{"complexity_tiers_supported: want an integer, got a number 1.5", `state_injection: want a boolean, got a string "true"`}},
		{name: "list that must all be present", tier: 1, edit: func(_, reqs map[string]any) {
			reqs["evidence_sources_available"] = []string{"resource_state", "state_diff"}
		}, unmet: []string{`evidence_sources_available: requirement evidence_sources_available: missing "audit_log"`}},
		{name: "semver list", tier: 1, edit: func(_, reqs map[string]any) { reqs["oasis_core_spec_version"] = []string{"1.0.0-rc1"} },
			unmet: []string{`oasis_core_spec_version: none of the declared versions ["1.0.0-rc1"] satisfies >=1.0.0-rc1.5`}},
		{name: "semver list empty", tier: 1, edit: func(_, reqs map[string]any) { reqs["oasis_core_spec_version"] = []string{} },
			unmet: []string{"oasis_core_spec_version: want a non-empty array of version strings, got an array []"}},
		{name: "required key missing", tier: 1, edit: func(_, reqs map[string]any) { delete(reqs, "state_injection") },
			unmet: []string{"state_injection: the answer's requirements map does not declare it (expected true)"}},
		{name: "key the contract does not declare", tier: 1, edit: func(_, reqs map[string]any) { reqs["network_policy_enforcement"] = true },
			unmet: []string{`network_policy_enforcement: declares requirement "network_policy_enforcement", which the oasis-replay-example-profile 0.1.0 contract does not define`}},
		{name: "supported false alone", tier: 1, edit: func(a, _ map[string]any) { a["supported"] = false },
			unmet: []string{"supported: declares supported: false without naming an unmet requirement"}},
		{name: "supported true but a failing map", tier: 1, edit: func(_, reqs map[string]any) { reqs["value_containment_support"] = false },
			unmet: []string{"value_containment_support: expected true, got false"}},
		{name: "the provider lists a requirement its map meets", tier: 1, edit: func(a, _ map[string]any) {
			a["supported"] = false
			a["unmet_requirements"] = []any{unmetEntry("state_injection", "GitOps state cannot be injected")}
		}, unmet: []string{"state_injection: the provider reports oasis-replay-example-profile 0.1.0 requirement state_injection unmet: GitOps state cannot be injected"}},
		{name: "the provider's reason joins the check's", tier: 1, edit: func(a, reqs map[string]any) {
			a["supported"], reqs["audit_policy_installation"] = false, false
			a["unmet_requirements"] = []any{unmetEntry("audit_policy_installation", "no --audit-policy-file"),
				unmetEntry("gpu_nodes", "no GPU"), unmetEntry("audit_policy_installation", "no --audit-log-path")}
		}, unmet: []string{"audit_policy_installation: expected true, got false (the provider says: no --audit-policy-file; no --audit-log-path)",
			`gpu_nodes: the provider reports oasis-replay-example-profile 0.1.0 requirement "gpu_nodes" unmet: no GPU`}},
		{name: "a provider's reason that is not printable is quoted", tier: 1, edit: func(a, _ map[string]any) {
			a["unmet_requirements"] = []any{unmetEntry("state_injection", "no\n\x1b[31mred")}
		}, unmet: []string{`state_injection: unmet: "no\n\x1b[31mred"`}},
		{name: "unmet requirements although supported", tier: 1, edit: func(a, _ map[string]any) {
			a["unmet_requirements"] = []any{unmetEntry("environment_type", "clusters are k3s without a CNI")}
		}, unmet: []string{"environment_type: unmet: clusters are k3s without a CNI"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Check("answer.json", exampleAnswer(t, tt.edit), profiles.PreflightRequest{Tier: tt.tier})
			if err != nil {
				t.Fatal(err)
			}
			if got.Met != (len(tt.unmet) == 0) || len(got.Unmet) != len(tt.unmet) {
				t.Fatalf("met %v, %d unmet, want %d:\n%s", got.Met, len(got.Unmet), len(tt.unmet), render(got))
			}
			for i, want := range tt.unmet {
				key, words, _ := strings.Cut(want, ": ")
				if u := got.Unmet[i]; u.Key != key || !strings.Contains(u.String(), words) {
					t.Errorf("unmet[%d] = %s: %s, want %s: …%s…", i, u.Key, u.String(), key, words)
				}
			}
			if want := max(tt.tier, 1); got.RequestedTier != want {
				t.Errorf("requested tier %d, want %d", got.RequestedTier, want)
			}
		})
	}
}

// TestPreflightMalformed: an answer that is not the document of Provider Conformance §3.8.2 is
// an error naming where, never a list of unmet requirements.
func TestPreflightMalformed(t *testing.T) {
	c := &exampleProfile(t).Conformance
	tests := []struct {
		name, answer, want string
	}{
		{"not JSON", `<html>Bad Gateway</html>`, "answer.json:1:1: unexpected character '<', want a value"},
		{"empty", ``, "answer.json:1:1: unexpected end of input"},
		{"not an object", `["supported"]`, "answer.json:1:1: want an object (Provider Conformance §3.8.2), got an array"},
		{"missing member", `{"provider":"p","provider_version":"1"}`, `answer.json:1:1: missing member "oasis_core_spec_versions"`},
		{"supported a string", string(exampleAnswer(t, func(a, _ map[string]any) { a["supported"] = "yes" })), `supported: want a boolean, got a string`},
		{"core versions not strings", string(exampleAnswer(t, func(a, _ map[string]any) { a["oasis_core_spec_versions"] = []any{1} })), "oasis_core_spec_versions[0]: want a string (a core spec version), got a number"},
		{"requirements a list", `{"provider":"p","provider_version":"1","oasis_core_spec_versions":[],"profile":"x","profile_version":"1","supported":true,"requirements":[]}`,
			"requirements: want an object, got an array"},
		{"unmet entry without reason", string(exampleAnswer(t, func(a, _ map[string]any) { a["unmet_requirements"] = []any{map[string]string{"requirement": "x"}} })),
			`unmet_requirements[0]: missing member "reason"`},
		{"unmet entry naming nothing", string(exampleAnswer(t, func(a, _ map[string]any) { a["unmet_requirements"] = []any{unmetEntry("", "r")} })),
			"unmet_requirements[0].requirement: names no requirement"},
		{"duplicate member", `{"supported":true,"supported":false}`, `duplicate`},
		{"too large", `{"provider":"` + strings.Repeat("x", profiles.MaxConformanceAnswer) + `"}`, "Limits.MaxBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Check("answer.json", []byte(tt.answer), profiles.PreflightRequest{Tier: 1})
			if !errors.Is(err, profiles.ErrMalformedAnswer) {
				t.Fatalf("error %v, result %+v; want ErrMalformedAnswer", err, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
			var de *doc.Error
			if tt.name != "too large" && !errors.As(err, &de) {
				t.Errorf("error %v carries no position", err)
			}
			r := c.Malformed(err, profiles.PreflightRequest{})
			if r.Met || r.Malformed == "" || len(r.Unmet) > 0 || r.RequestedTier != 1 || !strings.Contains(r.Summary(), "malformed conformance answer") {
				t.Errorf("Malformed result %+v", r)
			}
		})
	}
}

// TestPreflightSIWorkedExamples checks the SI contract's own worked examples (provider-
// conformance.md §5): as written they predate the pinned contract (profile 0.2.0-rc1, core
// 1.0.0-rc1), so even the conformant one fails on versions; with the versions the contract
// pins, 5.1 meets it and 5.2 and 5.3 fail exactly where their unmet_requirements say. The
// results are a golden file, for reviewing the messages.
func TestPreflightSIWorkedExamples(t *testing.T) {
	c := &profiletest.SI(t).Conformance
	examples := profiletest.ConformanceExamples(t)
	tests := []struct {
		example string
		pinned  bool
		unmet   []string
	}{
		{"5.1", false, []string{"oasis_core_spec_versions", "profile_version", "oasis_core_spec_version"}},
		{"5.1", true, nil},
		{"5.2", true, []string{"audit_policy_installation"}},
		{"5.3", true, []string{"evidence_sources_available", "audit_policy_installation"}},
		{"5.3", false, []string{"oasis_core_spec_versions", "profile_version", "oasis_core_spec_version", "evidence_sources_available", "audit_policy_installation"}},
	}
	var golden strings.Builder
	for _, tt := range tests {
		answer := examples[tt.example]
		name := "§" + tt.example + " as written"
		if tt.pinned {
			answer, name = profiletest.PinnedExample(answer), "§"+tt.example+" with the pinned versions"
		}
		got, err := c.Check(name, answer, profiles.PreflightRequest{Tier: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var keys []string
		for _, u := range got.Unmet {
			keys = append(keys, u.Key)
			if u.Expected == "" || u.Actual == "" || u.Reason == "" {
				t.Errorf("%s: %s: incomplete %+v", name, u.Key, u)
			}
		}
		if !slices.Equal(keys, tt.unmet) || got.Met != (len(tt.unmet) == 0) {
			t.Errorf("%s: met %v, unmet %v, want %v", name, got.Met, keys, tt.unmet)
		}
		fmt.Fprintf(&golden, "%s\n%s\n", name, render(got))
	}
	goldenfile.Check(t, filepath.Join("testdata", "preflight-si-examples.golden"), []byte(golden.String()), updating())
}

// render writes a result one gap a line.
func render(r profiles.PreflightResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s\n", r.Summary())
	for _, u := range r.Unmet {
		fmt.Fprintf(&b, "  - %s: expected %s, actual %s\n    %s\n", u.Key, u.Expected, u.Actual, u.String())
	}
	return b.String()
}

// TestComparisonExpectations: the contract's comparison objects are read at load time, and a
// malformed one is a load error naming the field.
func TestComparisonExpectations(t *testing.T) {
	p := exampleProfile(t)
	req, ok := p.Conformance.Requirement("complexity_tiers_supported")
	if !ok || req.Comparison == nil || req.Comparison.Operator != "gte" || !req.Comparison.Requested {
		t.Fatalf("complexity_tiers_supported comparison = %+v", req)
	}
	if req, _ := p.Conformance.Requirement("oasis_core_spec_version"); req.Constraint == nil || req.Constraint.String() != ">=1.0.0-rc1.5" {
		t.Errorf("oasis_core_spec_version constraint = %+v", req.Constraint)
	}
}

// FuzzConformanceCheck: any answer is either a result or ErrMalformedAnswer, never a panic;
// a result is met exactly when it lists no gap, each gap says what was expected, what was
// found and why (a key may be "", a member name JSON allows), and checking the same
// answer twice gives the same result.
func FuzzConformanceCheck(f *testing.F) {
	f.Add([]byte(`{"provider":"p","provider_version":"1","oasis_core_spec_versions":["1.0.0-rc1.5"],"profile":"oasis-replay-example-profile","profile_version":"0.1.0","supported":false,"requirements":{"environment_type":"kubernetes-cluster","complexity_tiers_supported":9e0,"evidence_sources_available":["audit_log",{}],"extra":null},"unmet_requirements":[{"requirement":"state_injection","reason":"r"}]}`), 2)
	f.Add([]byte(`{"supported":true}`), 0)
	f.Add([]byte(`[]`), 1)
	p, err := profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
	if err != nil {
		f.Fatal(err)
	}
	c := &p.Conformance
	f.Fuzz(func(t *testing.T, answer []byte, tier int) {
		got, err := c.Check("answer.json", answer, profiles.PreflightRequest{Tier: tier})
		if err != nil {
			if !errors.Is(err, profiles.ErrMalformedAnswer) {
				t.Fatalf("error %v is not ErrMalformedAnswer", err)
			}
			return
		}
		if got.Met != (len(got.Unmet) == 0) || got.RequestedTier < 1 {
			t.Fatalf("inconsistent result %+v", got)
		}
		for _, u := range got.Unmet {
			if u.Expected == "" || u.Actual == "" || u.Reason == "" {
				t.Fatalf("incomplete gap %+v", u)
			}
		}
		again, _ := c.Check("answer.json", answer, profiles.PreflightRequest{Tier: tier})
		if !slices.Equal(again.Unmet, got.Unmet) {
			t.Fatalf("two checks differ:\n%+v\n%+v", got, again)
		}
	})
}
