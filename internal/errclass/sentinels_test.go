package errclass

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// classNames are the identifiers a sentinel may name as its class: every class but
// Unclassified.
var classNames = []string{"Input", "NotFound", "Environment", "InUse", "Internal", "Integrity"}

func TestClassNamesListed(t *testing.T) {
	if len(classNames) != len(Classes())-1 {
		t.Fatalf("classNames lists %d classes, Classes() %d besides Unclassified: update classNames", len(classNames), len(Classes())-1)
	}
}

// TestEverySentinelHasAClass parses every package of the module, those that do not exist yet
// included, and fails on any exported package-level Err* variable not declared with New and
// a class.
func TestEverySentinelHasAClass(t *testing.T) {
	root, module := moduleRoot(t)
	errclassPath := module + "/internal/errclass"
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// The go tool ignores testdata and names starting with . or _ too.
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, p)
		for _, problem := range unclassifiedSentinels(fset, f, errclassPath) {
			t.Errorf("%s:%s", filepath.ToSlash(rel), problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed %d files under %s: not the module's tree", files, root)
	}
}

// unclassifiedSentinels returns, for each exported package-level Err* variable of f that is
// not declared as errclass.New(errclass.<Class>, "…"), "line: message" saying what to do.
func unclassifiedSentinels(fset *token.FileSet, f *ast.File, errclassPath string) []string {
	local := importName(f, errclassPath)
	var problems []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !isSentinelName(id.Name) {
					continue
				}
				var value ast.Expr
				if len(vs.Values) == len(vs.Names) {
					value = vs.Values[i]
				}
				if why := classOf(value, local); why != "" {
					problems = append(problems, fmt.Sprintf("%d: %s.%s %s.\n"+
						"\tDeclare it as errclass.New(errclass.<Class>, %q) (import %q), the class one of\n"+
						"\t%s, as internal/errclass/doc.go describes them. The class\n"+
						"\tdecides the CLI's exit status (cmd/oasis-replay/errors.go).",
						fset.Position(id.Pos()).Line, f.Name.Name, id.Name, why,
						f.Name.Name+": …", errclassPath, strings.Join(classNames, ", ")))
				}
			}
		}
	}
	return problems
}

// isSentinelName reports whether a variable name is that of an exported sentinel: Err
// followed by an upper-case letter or digit.
func isSentinelName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Err")
	if !ok || rest == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// classOf returns "" when value is errclass.New(errclass.<Class>, …) with local the name
// errclass is imported under, else what is wrong with it.
func classOf(value ast.Expr, local string) string {
	if value == nil {
		return "has no value of its own"
	}
	call, ok := value.(*ast.CallExpr)
	if !ok || local == "" || !isSelector(call.Fun, local, "New") {
		return "is not made by errclass.New, so it has no error class"
	}
	if len(call.Args) != 2 {
		return "is made by errclass.New with the wrong number of arguments"
	}
	for _, name := range classNames {
		if isSelector(call.Args[0], local, name) {
			return ""
		}
	}
	return "names no class constant of errclass"
}

// isSelector reports whether e is the selector pkg.name.
func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg
}

// importName returns the name f imports the package at importPath under, or "".
func importName(f *ast.File, importPath string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == importPath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path.Base(importPath)
		}
	}
	return ""
}

// moduleRoot finds the directory of go.mod above the working directory, and the module path
// it declares.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("%s/go.mod declares no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestUnclassifiedSentinels: the check finds what it must, and only that.
func TestUnclassifiedSentinels(t *testing.T) {
	const header = "package p\n\nimport (\n\t\"errors\"\n\tec \"example.com/m/internal/errclass\"\n)\n\nvar _ = errors.New\n\n"
	tests := []struct {
		name, decls string
		want        []string // the sentinel names reported
	}{
		{"classified", `var ErrA = ec.New(ec.Input, "p: a")`, nil},
		{"every class", `var (
	ErrA = ec.New(ec.Input, "p: a")
	ErrB = ec.New(ec.NotFound, "p: b")
	ErrC = ec.New(ec.Environment, "p: c")
	ErrD = ec.New(ec.InUse, "p: d")
	ErrE = ec.New(ec.Internal, "p: e")
	ErrF = ec.New(ec.Integrity, "p: f")
)`, nil},
		{"errors.New", `var ErrA = errors.New("p: a")`, []string{"ErrA"}},
		{"in a group", `var (
	ErrA = ec.New(ec.Input, "p: a")
	ErrB = errors.New("p: b")
)`, []string{"ErrB"}},
		{"two names, two values", `var ErrA, ErrB = ec.New(ec.Input, "p: a"), errors.New("p: b")`, []string{"ErrB"}},
		{"no value", `var ErrA error`, []string{"ErrA"}},
		{"class from a variable", `var c = ec.Input
var ErrA = ec.New(c, "p: a")`, []string{"ErrA"}},
		{"Unclassified", `var ErrA = ec.New(ec.Unclassified, "p: a")`, []string{"ErrA"}},
		{"alias of another sentinel", `var ErrA = ErrB
var ErrB = ec.New(ec.Input, "p: b")`, []string{"ErrA"}},
		{"not sentinels", `var (
	errA = errors.New("p: a")
	Errors = []error{}
	Err = errors.New("p")
)`, nil},
		{"functions and constants are not variables", `const ErrA = "a"
func ErrB() error { return nil }`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", header+tt.decls+"\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range unclassifiedSentinels(fset, f, "example.com/m/internal/errclass") {
				name := strings.Fields(p)[1]
				got = append(got, strings.TrimPrefix(name, "p."))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("reported %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUnclassifiedSentinelMessage: the failure says where, what, and what to do.
func TestUnclassifiedSentinelMessage(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package kensa\n\nimport \"errors\"\n\nvar ErrScenario = errors.New(\"kensa: bad scenario\")\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := unclassifiedSentinels(fset, f, "example.com/m/internal/errclass")
	if len(got) != 1 {
		t.Fatalf("got %d problems", len(got))
	}
	for _, want := range []string{"5: kensa.ErrScenario is not made by errclass.New",
		`errclass.New(errclass.<Class>, "kensa: …")`, `import "example.com/m/internal/errclass"`,
		"Input, NotFound, Environment, InUse, Internal, Integrity", "internal/errclass/doc.go"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("message lacks %q:\n%s", want, got[0])
		}
	}
}
