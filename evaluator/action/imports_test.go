package action

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The evaluator must be a pure function of its inputs (OASIS Core §3.5.4): no clock, no
// randomness, no files, no network, no environment. This test lists the packages this one and
// auditlog depend on and checks that none of the project's own packages among them imports
// anything that reaches the outside world. Standard-library internals are not inspected (fmt
// imports os to print, but the packages here never print).
func TestImportClosure(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	const module = "github.com/oasis-replay/oasis-replay/"
	forbidden := []string{"os", "os/exec", "os/signal", "os/user", "net", "net/http", "net/url",
		"syscall", "time", "math/rand", "math/rand/v2", "crypto/rand", "unsafe", "plugin",
		"path/filepath", "io/fs", "runtime", "reflect", "sync"}
	allowed := []string{module + "evaluator/action", module + "evaluator/auditlog", module + "store"}
	cmd := exec.Command(goTool, "list", "-deps", "-json=ImportPath,Imports,Standard",
		"./", "../auditlog")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
			Standard   bool
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if pkg.Standard {
			continue
		}
		if !slices.Contains(allowed, pkg.ImportPath) {
			t.Errorf("%s is in the import closure; only %v may be", pkg.ImportPath, allowed)
			continue
		}
		if pkg.ImportPath == module+"store" {
			continue // types only; its own purity is the store's concern
		}
		for _, imp := range pkg.Imports {
			if slices.Contains(forbidden, imp) {
				t.Errorf("%s imports %s", pkg.ImportPath, imp)
			}
		}
	}
}
