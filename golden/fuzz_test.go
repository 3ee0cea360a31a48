package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParseRecipe: any bytes give a recipe or an ErrRecipe error, never a panic; every YAML
// value of a parsed recipe renders as valid JSON or as an error. Seeds are the committed
// corpus's recipes and testdata/fuzz/FuzzParseRecipe.
func FuzzParseRecipe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*"+RecipeSuffix))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRecipe("fuzz.recipe.yaml", data)
		if err != nil {
			return
		}
		if r.Synthetic == nil {
			return
		}
		for _, sc := range r.Synthetic.Scenarios {
			var nodes []*yaml.Node
			for i := range sc.Actions {
				nodes = append(nodes, &sc.Actions[i].Arguments)
			}
			for i := range sc.Observations {
				nodes = append(nodes, &sc.Observations[i].Data)
			}
			for _, n := range nodes {
				if n.IsZero() {
					continue
				}
				if out, err := jsonOf(n); err == nil && !json.Valid(out) {
					t.Fatalf("jsonOf gave invalid JSON %q", out)
				}
			}
		}
	})
}
