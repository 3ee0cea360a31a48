package main

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const concreteStore = "github.com/oasis-replay/oasis-replay/store/badgerstore"

// TestOneStoreOpener: the CLI names the concrete store in storeopen.go only; every command
// works through store.Store.
func TestOneStoreOpener(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "storeopen.go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == concreteStore {
				t.Errorf("%s imports %s; open stores in storeopen.go", name, path)
			}
		}
	}
}

// TestNoConcreteStoreBelowCmd: no library package imports the concrete store; they consume
// store.Store or smaller interfaces of their own, and the CLI (or a test) chooses the store.
// Tools under tools/ are programs of their own, like the CLI.
func TestNoConcreteStoreBelowCmd(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/oasis-replay/oasis-replay/"
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := fields[0]
		if pkg == module+"cmd/oasis-replay" || pkg == concreteStore || strings.HasPrefix(pkg, module+"tools/") {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == concreteStore {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
