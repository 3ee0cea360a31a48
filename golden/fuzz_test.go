package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// FuzzParseRecipe: any bytes give a recipe or an ErrRecipe error, never a panic; every YAML
// value of a parsed recipe renders as valid JSON. Seeds are the committed
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
			for i := range sc.Actions {
				if args := argumentsText(sc.Actions[i].Arguments); sc.Actions[i].Arguments.Kind() != doc.String && args != "" && !json.Valid([]byte(args)) {
					t.Fatalf("arguments gave invalid JSON %q", args)
				}
			}
			for i := range sc.Observations {
				if d := sc.Observations[i].Data; d != nil && !json.Valid(d.Compact()) {
					t.Fatalf("data gave invalid JSON %q", d.Compact())
				}
			}
		}
	})
}
