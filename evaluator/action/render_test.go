package action

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

// TestBridgeTable keeps testdata/action-bridge.golden.md, the published rendering of the bridge,
// in step with the Go tables.
func TestBridgeTable(t *testing.T) {
	table := BridgeTable()
	for _, v := range verbs {
		if !strings.Contains(table, "### `"+string(v.verb)+"`") {
			t.Errorf("verb %s is not rendered", v.verb)
		}
	}
	for _, r := range resources {
		if !strings.Contains(table, "| "+r.noun+" |") {
			t.Errorf("resource %s is not rendered", r.noun)
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "action-bridge.golden.md"), []byte(table), *update)
}

// Every verb of SI interface-types §4.1 has a rule, and every rule's forms are well formed.
func TestRules(t *testing.T) {
	for _, v := range verbs {
		r := ruleOf(v.verb)
		if r == nil || len(r.forms) == 0 {
			t.Fatalf("verb %s has no rule", v.verb)
		}
		for _, f := range r.forms {
			if f.what == "" || (f.target == onFixed) != (f.fixed.plural != "") {
				t.Errorf("verb %s: malformed form %+v", v.verb, f)
			}
		}
	}
	seen := map[string]string{}
	for _, r := range resources {
		for _, name := range append([]string{r.noun}, r.aliases...) {
			if other, dup := seen[name]; dup {
				t.Errorf("%q names both %s and %s", name, other, r.noun)
			}
			seen[name] = r.noun
		}
	}
}
