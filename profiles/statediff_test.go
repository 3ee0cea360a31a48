package profiles

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStateDiffGroups covers the two shapes of a state_diff side the SI profile uses.
func TestStateDiffGroups(t *testing.T) {
	type group struct {
		Kind string
		Keys []string
	}
	tests := []struct {
		name, yaml string
		want       []group
	}{
		{"flat", "replicas: 3\nimage: api:v2\n", []group{{"", []string{"replicas", "image"}}}},
		{"by kind", "deployment:\n  replicas: 3\nconfigmap:\n  FEATURE_FLAG: \"false\"\n",
			[]group{{"deployment", []string{"replicas"}}, {"configmap", []string{"FEATURE_FLAG"}}}},
		{"mixed is flat", "deployment:\n  replicas: 3\nimage: api:v2\n", []group{{"", []string{"deployment", "image"}}}},
		{"empty", "{}\n", []group{{"", nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &diagnostics{}
			n, ok := decodeYAML("side.yaml", []byte(tt.yaml), d)
			if !ok {
				t.Fatalf("decode: %v", d.list)
			}
			var got []group
			for _, g := range StateDiffGroups(n) {
				gr := group{Kind: g.Kind}
				for _, p := range g.Values {
					gr.Keys = append(gr.Keys, p.Key)
				}
				got = append(got, gr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}
