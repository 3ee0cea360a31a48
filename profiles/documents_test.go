package profiles

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// editFile returns the minimal profile with one replacement in one file ("" new deletes the
// file when old is "").
func editFile(t *testing.T, file, old, new string) fstest.MapFS {
	t.Helper()
	fsys := dirFS(t, minimalDir)
	if old == "" && new == "" {
		delete(fsys, file)
		return fsys
	}
	data := string(fsys[file].Data)
	if !strings.Contains(data, old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	fsys[file] = &fstest.MapFile{Data: []byte(strings.Replace(data, old, new, 1))}
	return fsys
}

// TestDocumentErrors maps each rule on the profile documents to the exact errors it produces.
func TestDocumentErrors(t *testing.T) {
	tests := []struct {
		name string
		fsys func(t *testing.T) fstest.MapFS
		want []string
	}{
		{
			name: "required document missing",
			fsys: func(t *testing.T) fstest.MapFS { return editFile(t, fileBehaviors, "", "") },
			want: []string{"missing-file: behavior-definitions.md: required profile document is missing"},
		},
		{
			name: "behaviour without verification",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileBehaviors, "**Verification:** The stated root cause matches the ground truth.\n", "")
			},
			want: []string{"behavior-verification: behavior-definitions.md:7: behaviour identify_root_cause has no **Verification:** paragraph (Profiles §2.3)"},
		},
		{
			name: "behaviour defined twice",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileBehaviors, "### `execute_injected_instruction`", "### `identify_root_cause`")
			},
			want: []string{"behavior-duplicate: behavior-definitions.md:21: behaviour identify_root_cause is already defined at line 7"},
		},
		{
			name: "equivalence to an undefined behaviour",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileBehaviors, "Equivalent to `identify_root_cause`.", "Equivalent to `find_root_cause`.")
			},
			want: []string{"behavior-equivalence: behavior-definitions.md:13: behaviour diagnose_correctly is declared equivalent to undefined find_root_cause"},
		},
		{
			name: "conformance file disagrees on the version",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileConformance, "profile_version: 1.0.0", "profile_version: 1.0.1")
			},
			want: []string{`identity: provider-conformance-requirements.yaml:1: profile_version: "1.0.1" disagrees with profile.md, which says "1.0.0"`},
		},
		{
			name: "profile version not semver",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := editFile(t, fileProfile, "**Version:** 1.0.0", "**Version:** 1.0")
				fsys[fileConformance].Data = []byte(strings.Replace(string(fsys[fileConformance].Data), "profile_version: 1.0.0", "profile_version: \"1.0\"", 1))
				return fsys
			},
			want: []string{`semver: profile.md:3: profiles: invalid version: "1.0" is not MAJOR.MINOR.PATCH`},
		},
		{
			name: "profile identifier missing",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "- **Profile identifier:** `oasis-profile-minimal`\n", "")
			},
			want: []string{"metadata: profile.md: missing **Profile identifier:** line (Profiles §2.1)"},
		},
		{
			name: "archetype with the wrong prefix",
			fsys: func(t *testing.T) fstest.MapFS { return editFile(t, fileSafety, "### S-BE-002:", "### C-BE-002:") },
			want: []string{"archetype-id: safety-categories.md:16: archetype C-BE-002 of a safety category must start with S-"},
		},
		{
			name: "archetype codes differ within a category",
			fsys: func(t *testing.T) fstest.MapFS { return editFile(t, fileSafety, "### S-BE-002:", "### S-BX-002:") },
			want: []string{"archetype-id: safety-categories.md:16: archetype S-BX-002 does not share the code BE of category boundary-enforcement"},
		},
		{
			name: "capability category without dimensions",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileCapability, "**Core dimension mapping:** Task completion, Reliability, Reasoning, Auditability\n", "")
			},
			want: []string{"category-dimensions: capability-categories.md:5: capability category diagnostic-accuracy has no **Core dimension mapping:** line (Profiles §2.5)"},
		},
		{
			name: "unknown core dimension",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileCapability, "Task completion, Reliability, Reasoning, Auditability", "Task completion, Reliability, Reasoning, Auditability, Charm")
			},
			want: []string{`dimension-unknown: capability-categories.md:7: "Charm" is not a core capability dimension (Core §4.1)`},
		},
		{
			name: "orphan subcategory",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "| `data-instruction-separation` | Prompt Injection Resistance |", "| `data-instruction-separation` | Injection Defence |")
			},
			want: []string{
				`subcategory-parent-unknown: profile.md:29: subcategory data-instruction-separation has no parent category (Profiles §2.14)`,
				`subcategory-parent-unknown: profile.md:29: subcategory data-instruction-separation names parent "Injection Defence", which is not a category of the profile (Profiles §2.14)`,
			},
		},
		{
			name: "enum dimension with one value",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "values: [cli, web, api]\n      description: How the operator talks to the agent.\n      default: cli",
					"values: [cli]\n      description: How the operator talks to the agent.\n      default: cli")
			},
			want: []string{
				"schema-dimension: profile.md:63: agent_configuration_schema.dimensions[2].values: enum dimension interface_type needs at least two values (Profiles §2.16.2)",
				// The minimal scenario's applicability names "api", no longer a value.
				`applicability-value: scenarios/safety/boundary-enforcement.yaml:72: min.safety.be.zone-violation-001: applicability.interface_type: "api" is not a valid value of interface_type`,
			},
		},
		{
			name: "schema default outside the values",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "default: read_write", "default: sometimes")
			},
			want: []string{`schema-dimension: profile.md:57: agent_configuration_schema.dimensions[0].default: default "sometimes" is not a valid value of operational_mode`},
		},
		{
			name: "conformance expected value of the wrong type",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileConformance, "    expected: true", "    expected: \"yes please\"")
			},
			want: []string{`type: provider-conformance-requirements.yaml:15: requirements.value_containment_support.expected: "yes please" does not fit type boolean`},
		},
		{
			name: "conformance requirement type",
			fsys: func(t *testing.T) fstest.MapFS { return editFile(t, fileConformance, "type: string", "type: text") },
			want: []string{`enum: provider-conformance-requirements.yaml:8: requirements.environment_type.type: "text" is not one of "string", "integer", "boolean", "array", "semver_list"`},
		},
		{
			name: "no scenarios",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := dirFS(t, minimalDir)
				for name := range fsys {
					if strings.HasPrefix(name, "scenarios/") {
						delete(fsys, name)
					}
				}
				return fsys
			},
			want: []string{"no-scenarios: scenarios: the profile has no scenario (Profiles §2.8)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := loadErrors(t, tc.fsys(t))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDocumentWarnings covers inconsistencies between documents, which load with a warning.
func TestDocumentWarnings(t *testing.T) {
	tests := []struct {
		name string
		fsys func(t *testing.T) fstest.MapFS
		want string
	}{
		{
			name: "stale version header",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileStimuli, "**Profile version:** 1.0.0", "**Profile version:** 0.9.0")
			},
			want: "version-drift: stimulus-library.md:3: states profile version 0.9.0; profile.md and provider-conformance-requirements.yaml state 1.0.0",
		},
		{
			name: "aggregation prose disagrees",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "Weighted average (multi-signal 2x)", "Minimum")
			},
			want: `scoring-prose: profile.md:46: diagnostic-accuracy: aggregation "Minimum" reads as minimum; capability-categories.md:9 uses weighted_average C-DA-002×2.0`,
		},
		{
			name: "aggregation names no archetype",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileCapability, "Multi-signal weighted 2x.", "Quantum weighted 2x.")
			},
			want: `scoring-prose: capability-categories.md:9: diagnostic-accuracy: cannot read aggregation "Weighted average. Quantum weighted 2x.": no archetype of diagnostic-accuracy matches "quantum"; profile.md:46 uses weighted_average C-DA-002×2.0`,
		},
		{
			name: "weights that do not add up",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "| Reliability | Diagnostic Accuracy (1.0) |", "| Reliability | Diagnostic Accuracy (0.5) |")
			},
			want: "dimension-weights: profile.md:96: reliability weights add up to 0.5, not 1",
		},
		{
			name: "mapping without weight",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "| Auditability | Diagnostic Accuracy (1.0) | — |\n", "")
			},
			want: "dimension-gap: profile.md: diagnostic-accuracy maps to auditability but has no auditability weight: declared by the category but given no weight; contributes 0 to the dimension",
		},
		{
			name: "tier rule that is not machine-readable",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "- Adversarial variants required for safety scenarios", "- Quarterly re-evaluation")
			},
			want: `tier-rule: profile.md:87: coverage rule "Quarterly re-evaluation" is not machine-readable and has no interpretation in the project tables; it is not enforced`,
		},
		{
			name: "category count in a tier rule",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "- All 2 safety categories: ≥1 archetype per category", "- All 7 safety categories: ≥1 archetype per category")
			},
			want: "tier-rule: profile.md:78: says 7 safety categories, the profile defines 2",
		},
		{
			name: "summary table disagrees with the category document",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "| Boundary Enforcement | Boundary violation + Declared mode verification | 2 |", "| Boundary Enforcement | Boundary violation + Declared mode verification | 3 |")
			},
			want: "category-table: profile.md:21: gives boundary-enforcement 3 archetypes, safety-categories.md defines 2",
		},
		{
			name: "core safety category without a mapping",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileSafety, "**Core mapping:** Boundary violation + Declared mode verification", "**Core mapping:** Boundary violation")
			},
			want: `core-coverage: safety-categories.md: no safety category maps to the core category "Declared mode verification" (Profiles §2.4)`,
		},
		{
			name: "key count claim",
			fsys: func(t *testing.T) fstest.MapFS {
				return editFile(t, fileProfile, "A small profile in the oasis-spec layout", "It defines three requirement keys. A small profile in the oasis-spec layout")
			},
			want: `conformance-key-count: profile.md:7: says "three" requirement keys, but provider-conformance-requirements.yaml declares 2`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(tc.fsys(t), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := diagnosticStrings(p.Diagnostics, SeverityWarning)
			found := false
			for _, g := range got {
				found = found || g == tc.want
			}
			if !found {
				t.Errorf("warning %q not found in:\n%s", tc.want, joinLines(got))
			}
		})
	}
}

// TestSubcategoriesFromCategoryDocument: without a profile.md table, the category document's
// subcategory table is the source.
func TestSubcategoriesFromCategoryDocument(t *testing.T) {
	fsys := editFile(t, fileProfile, "### 5.1 Safety subcategories", "### 5.1 Safety groupings")
	table := "## Safety subcategories\n\n| Subcategory | Parent category(ies) | Description |\n|---|---|---|\n" +
		"| `permission-boundary` | Boundary Enforcement, Prompt Injection Resistance | Scope. |\n\n"
	md := string(fsys[fileSafety].Data)
	fsys[fileSafety] = &fstest.MapFile{Data: []byte(strings.Replace(md, "## 1. Boundary Enforcement", table+"## 1. Boundary Enforcement", 1))}
	p, err := Load(fsys, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub, ok := p.Subcategory("permission-boundary")
	if !ok || len(p.Subcategories) != 1 || sub.Position.File != fileSafety ||
		strings.Join(sub.Parents, ",") != "boundary-enforcement,prompt-injection-resistance" {
		t.Errorf("subcategories %+v", p.Subcategories)
	}
}
