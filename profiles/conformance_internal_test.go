package profiles

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestComparisonLoadErrors: a comparison expectation the preflight check could not apply is a
// load error naming the field, not a surprise at check time.
func TestComparisonLoadErrors(t *testing.T) {
	const tier = "requirements:\n  complexity_tier_supported:\n    type: integer\n    required: true\n    expected:\n"
	tests := []struct {
		name, expected string
		want           []string
	}{
		{"unknown operator", "      comparison_operator: about\n      value: requested\n",
			[]string{`enum: provider-conformance-requirements.yaml:11: requirements.complexity_tier_supported.expected.comparison_operator: "about" is not one of "gte", "gt", "lte", "lt", "eq"`}},
		{"value neither requested nor an integer", "      comparison_operator: gte\n      value: soon\n",
			[]string{`type: provider-conformance-requirements.yaml:12: requirements.complexity_tier_supported.expected.value: must be "requested" or an integer, found "soon"`}},
		{"value missing, unknown member", "      comparison_operator: lt\n      bound: 3\n",
			[]string{
				"required: provider-conformance-requirements.yaml:11: requirements.complexity_tier_supported.expected.value: missing required field",
				"unknown-field: provider-conformance-requirements.yaml:12: requirements.complexity_tier_supported.expected.bound: unknown field",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := loadErrors(t, editFile(t, fileConformance, "requirements:\n", tier+tt.expected))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
