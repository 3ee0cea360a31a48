package evaluator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The evaluator is a pure function of its inputs (Core §3.5.4). This test lists the import
// closure of evaluator and every evaluator/... package and checks that no package of that
// closure outside the standard library — this module's evaluator, profiles, store and decimal
// packages, and third-party packages such as yaml.v3 — imports anything that reaches the
// outside world or a clock: os, net, net/http, os/exec, math/rand, math/rand/v2, crypto/rand,
// syscall, unsafe, plugin. The evaluator's own packages may not import time at all, so no
// clock read can hide behind it; the other module packages use time only for formatting, and
// every module source in the closure is scanned for clock reads. The standard library's own
// internals are not inspected (fmt imports os to print; these packages never print).
func TestImportClosure(t *testing.T) {
	forbidden := []string{"os", "os/exec", "net", "net/http", "math/rand", "math/rand/v2", "crypto/rand", "syscall", "unsafe", "plugin"}
	checked := 0
	var moduleDirs []string
	for _, pkg := range listDeps(t, "./...") {
		ownPackage := strings.HasPrefix(pkg.ImportPath, module+"evaluator")
		if ownPackage {
			checked++
		}
		if strings.HasPrefix(pkg.ImportPath, module) {
			moduleDirs = append(moduleDirs, pkg.Dir)
		}
		for _, imp := range pkg.Imports {
			if slices.Contains(forbidden, imp) || ownPackage && imp == "time" {
				t.Errorf("%s imports %s", pkg.ImportPath, imp)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no evaluator package listed")
	}
	for _, dir := range moduleDirs {
		scanForClockReads(t, dir)
	}
}

// TestLowLevelImportClosure holds the audit-log reader and the action matcher, which run over
// gigabytes of untrusted bytes, to a stricter rule: their closure holds no module package but
// store (types only; what store itself imports is its own concern) and internal/errclass (the
// classes of their sentinels), and they import nothing that reaches files, the environment,
// the clock, reflection or concurrency.
func TestLowLevelImportClosure(t *testing.T) {
	forbidden := []string{"os", "os/exec", "os/signal", "os/user", "net", "net/http", "net/url",
		"syscall", "time", "math/rand", "math/rand/v2", "crypto/rand", "unsafe", "plugin",
		"path/filepath", "io/fs", "runtime", "reflect", "sync"}
	roots := []string{module + "evaluator/action", module + "formats/auditlog"}
	allowed := append(slices.Clone(roots), module+"store", module+"internal/errclass")
	pkgs := map[string]listedPackage{}
	for _, pkg := range listDeps(t, "./action", "../formats/auditlog") {
		pkgs[pkg.ImportPath] = pkg
	}
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		pkg, inModuleOrThirdParty := pkgs[path]
		if seen[path] || !inModuleOrThirdParty {
			return
		}
		seen[path] = true
		if !slices.Contains(allowed, path) {
			t.Errorf("%s is in the import closure; only %v may be", path, allowed)
			return
		}
		if path == module+"store" {
			return // types only; its own purity is the store's concern
		}
		for _, imp := range pkg.Imports {
			if slices.Contains(forbidden, imp) {
				t.Errorf("%s imports %s", path, imp)
			}
			visit(imp)
		}
	}
	for _, root := range roots {
		visit(root)
	}
}

const module = "github.com/oasis-replay/oasis-replay/"

// listedPackage is what go list says of one package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	Standard   bool
}

// listDeps returns the packages outside the standard library in the import closure of the
// patterns. The standard library's own internals are not inspected (fmt imports os to print;
// these packages never print).
func listDeps(t *testing.T, patterns ...string) []listedPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	args := append([]string{"list", "-deps", "-json=ImportPath,Dir,Imports,Standard"}, patterns...)
	out, err := exec.Command(goTool, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg listedPackage
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if !pkg.Standard {
			pkgs = append(pkgs, pkg)
		}
	}
	return pkgs
}

// scanForClockReads reports clock reads in the non-test sources of one package directory.
func scanForClockReads(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, clock := range []string{"time.Now", "time.Since", "time.Until", "time.Tick", "time.After", "time.NewTimer", "time.NewTicker"} {
			if strings.Contains(string(b), clock) {
				t.Errorf("%s reads the clock (%s)", filepath.Join(dir, name), clock)
			}
		}
	}
}
