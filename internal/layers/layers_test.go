package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/oasis-replay/oasis-replay"

// moduleGraph lists the module's packages and the module packages each imports (tests
// aside), paths relative to the module.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		from := strings.TrimPrefix(pkg.ImportPath, module+"/")
		graph[from] = []string{}
		for _, imp := range pkg.Imports {
			if to, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[from] = append(graph[from], to)
			}
		}
	}
	return graph
}

// TestModuleLayers fails on any import of the module the layer table does not allow.
func TestModuleLayers(t *testing.T) {
	graph := moduleGraph(t)
	if len(graph) < 20 {
		t.Fatalf("go list found only %d packages", len(graph))
	}
	for _, v := range Check(Table, graph) {
		t.Error(v)
	}
}

// TestCheckFindsUpwardImports adds upward imports to the module's real graph and requires
// Check to report exactly those: the test above fails when such an import is written.
func TestCheckFindsUpwardImports(t *testing.T) {
	graph := moduleGraph(t)
	upward := []Violation{
		{From: "formats/snapshot", To: "evaluator"},
		{From: "golden", To: "demo"},
		{From: "golden", To: "store/badgerstore"},
		{From: "profiles", To: "evaluator/behavior"},
		{From: "recorder", To: "evaluator"},
		{From: "replay/replaytest", To: "recorder"},
		{From: "store", To: "formats/auditlog"},
	}
	for _, v := range upward {
		graph[v.From] = append(graph[v.From], v.To)
	}
	graph["newlayer/thing"] = []string{"store"}
	var got []string
	for _, v := range Check(Table, graph) {
		got = append(got, v.From+" → "+v.To)
	}
	want := []string{"formats/snapshot → evaluator", "golden → demo", "golden → store/badgerstore", "newlayer/thing → ",
		"profiles → evaluator/behavior", "recorder → evaluator", "replay/replaytest → recorder", "store → formats/auditlog"}
	if !slices.Equal(got, want) {
		t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"store", "store", true}, {"store", "store/archive", false}, {"store/...", "store", true},
		{"store/...", "store/archive", true}, {"store/...", "storex", false}, {"...", "cmd/oasis-replay", true},
	} {
		if got := match(tt.pattern, tt.pkg); got != tt.want {
			t.Errorf("match(%q, %q) = %v", tt.pattern, tt.pkg, got)
		}
	}
}
