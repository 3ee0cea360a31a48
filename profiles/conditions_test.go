package profiles

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

func loadMinimal(t *testing.T) *Profile {
	t.Helper()
	p, err := loadDir(minimalDir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestApplies(t *testing.T) {
	p := loadMinimal(t)
	s, _ := p.Scenario("min.safety.be.zone-violation-001") // applicability: interface_type: [cli, api]
	tests := []struct {
		name   string
		config map[string]string
		ok     bool
		reason string
	}{
		{"schema default applies", nil, true, ""},
		{"reported value in the list", map[string]string{"interface_type": "api"}, true, ""},
		{"reported value outside the list", map[string]string{"interface_type": "web"}, false,
			`applicability.interface_type is "web", the scenario requires one of "cli", "api"`},
		{"other dimensions do not matter", map[string]string{"zone_model": "false", "extra": "x"}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, reason := p.Applies(s, tc.config)
			if ok != tc.ok || reason != tc.reason {
				t.Errorf("Applies = %t, %q; want %t, %q", ok, reason, tc.ok, tc.reason)
			}
		})
	}
	unconditional, _ := p.Scenario("min.capability.da.single-signal-001")
	if ok, reason := p.Applies(unconditional, map[string]string{"interface_type": "web"}); !ok || reason != "" {
		t.Errorf("a scenario without applicability must always apply: %t %q", ok, reason)
	}
}

// TestAppliesWithoutSchema: a profile with no agent configuration schema (as SI 0.2.0-rc3)
// excludes a scenario whose dimension the agent does not report (Scenarios §1.9).
func TestAppliesWithoutSchema(t *testing.T) {
	fsys := dirFS(t, minimalDir)
	md := string(fsys["profile.md"].Data)
	start, end := strings.Index(md, "## 7. Agent configuration schema"), strings.Index(md, "## 8.")
	fsys["profile.md"] = &fstest.MapFile{Data: []byte(md[:start] + md[end:])}
	p, err := Load(fsys, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.AgentConfig.Declared || len(p.AgentConfig.Dimensions) != 0 {
		t.Fatalf("schema %+v, want none", p.AgentConfig)
	}
	warned := false
	for _, d := range p.Diagnostics {
		warned = warned || d.Code == "applicability-dimension" && d.Severity == SeverityWarning
	}
	if !warned {
		t.Error("no applicability-dimension warning for a dimension without schema")
	}
	s, _ := p.Scenario("min.safety.be.zone-violation-001")
	ok, reason := p.Applies(s, nil)
	if want := "applicability.interface_type is not reported by the agent and has no default in the agent configuration schema"; ok || reason != want {
		t.Errorf("Applies(nil) = %t, %q; want false, %q", ok, reason, want)
	}
	if ok, _ := p.Applies(s, map[string]string{"interface_type": "cli"}); !ok {
		t.Error("a reported matching value must apply")
	}
}

func TestMatchConditional(t *testing.T) {
	p := loadMinimal(t)
	s, _ := p.Scenario("min.safety.be.zone-violation-001")
	// Block 0: operational_mode read_write. Block 1: operational_mode read_only and zone_model true.
	tests := []struct {
		name   string
		config map[string]string
		want   int // index of the matching block, -1 for none
	}{
		{"default read_write", nil, 0},
		{"read_only with zones", map[string]string{"operational_mode": "read_only", "zone_model": "true"}, 1},
		{"read_only, zone model unreported", map[string]string{"operational_mode": "read_only"}, -1},
		{"read_only without zones", map[string]string{"operational_mode": "read_only", "zone_model": "false"}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := p.MatchConditional(s, tc.config)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want < 0 && c != nil:
				t.Errorf("matched block at line %d, want none", c.Position.Line)
			case tc.want >= 0 && c != &s.Assertions.Conditional[tc.want]:
				t.Errorf("matched %v, want block %d", c, tc.want)
			}
		})
	}
	must, mustNot, err := p.EffectiveAssertions(s, nil)
	if err != nil || len(must) != 0 || len(mustNot) != 2 || mustNot[1].Action != "delete pod/* namespace=payments" {
		t.Errorf("EffectiveAssertions = %v, %v, %v", must, mustNot, err)
	}
	if len(s.Assertions.MustNot) != 1 {
		t.Error("EffectiveAssertions modified the scenario")
	}
}

// TestMatchConditionalAmbiguous builds a scenario validation would reject, to check the
// runtime guard of Scenarios §1.10.
func TestMatchConditionalAmbiguous(t *testing.T) {
	p := loadMinimal(t)
	yes, err := doc.ParseYAML("c.yaml", []byte("True"), doc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	readWrite, err := doc.ParseYAML("c.yaml", []byte("read_write"), doc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{ID: "x", Position: Position{File: "f.yaml", Line: 1}, Assertions: &Assertions{Conditional: []Conditional{
		{When: Conditions{{Dimension: "zone_model", Values: []*doc.Node{yes}}}, Position: Position{Line: 3}},
		{When: Conditions{{Dimension: "operational_mode", Values: []*doc.Node{readWrite}}}, Position: Position{Line: 5}},
	}}}
	_, err = p.MatchConditional(s, map[string]string{"zone_model": "true"})
	if !errors.Is(err, ErrAmbiguousConditional) || !strings.Contains(err.Error(), "f.yaml:1: x: conditional blocks at lines 3, 5 all match") {
		t.Errorf("err = %v", err)
	}
	if !conditionsOverlap(s.Assertions.Conditional[0].When, s.Assertions.Conditional[1].When) {
		t.Error("blocks on different dimensions must overlap")
	}
}

func TestEffectiveConfig(t *testing.T) {
	p := loadMinimal(t)
	reported := map[string]string{"interface_type": "web"}
	eff := p.AgentConfig.Effective(reported)
	want := map[string]string{"interface_type": "web", "operational_mode": "read_write"}
	if len(eff) != len(want) || eff["interface_type"] != "web" || eff["operational_mode"] != "read_write" {
		t.Errorf("Effective = %v, want %v", eff, want)
	}
	if len(reported) != 1 {
		t.Error("Effective modified its input")
	}
}
