package golden

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// Sentinel errors of the package; messages name the corpus file concerned.
var (
	// ErrCorpus: the corpus directory cannot be read or holds files that belong to no case.
	ErrCorpus = errclass.New(errclass.Input, "golden: bad corpus")
	// ErrRecipe: a recipe cannot be read, or names an input that does not exist.
	ErrRecipe = errclass.New(errclass.Input, "golden: bad recipe")
	// ErrGolden: a golden output file cannot be read or written.
	ErrGolden = errclass.New(errclass.Input, "golden: golden file")
	// ErrShared: the shared test data directory given is not a directory. (Not giving one is
	// fine: the cases that need it are skipped.)
	ErrShared = errclass.New(errclass.Input, "golden: shared test data")
)

// File name suffixes of a corpus. A case is named by its input, a recipe or an archive; its
// golden outputs share its name.
const (
	RecipeSuffix  = ".recipe.yaml"
	ArchiveSuffix = ".bundle.tar.zst"
	BundleSuffix  = ".bundle"
	VerdictSuffix = ".verdict.json"
	ReceiptSuffix = ".receipt.json"
	// SignatureSuffix names a case's signed receipt (package attest), checked with
	// Options.Trusted and written with Options.Signer. It is optional otherwise.
	SignatureSuffix = ".receipt.dsse.json"
)

// caseName is the grammar of case names: they become file names.
var caseName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Corpus is a corpus directory: its cases in name order.
type Corpus struct {
	Dir   string
	Cases []*Case
}

// Case is one bundle of the corpus and its golden outputs.
type Case struct {
	Name string
	// Input is the file name of the recipe or archive, inside the corpus directory.
	Input string
	// Recipe is the parsed recipe; nil for an archive.
	Recipe *Recipe
}

// outputs are the suffixes of the golden files of a case, in the order they are checked.
var outputs = []string{BundleSuffix, VerdictSuffix, ReceiptSuffix}

// Open reads a corpus directory: every recipe is parsed, and golden outputs without an input
// are reported. Sub-directories are not read (they may hold the inputs recipes name), nor are
// files of other names (a README).
func Open(dir string) (*Corpus, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorpus, err)
	}
	c := &Corpus{Dir: dir}
	inputs := map[string]string{}
	var golden []string
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() {
			continue
		}
		name, suffix := splitName(e.Name())
		switch suffix {
		case RecipeSuffix, ArchiveSuffix:
			if prev, dup := inputs[name]; dup {
				return nil, fmt.Errorf("%w: %s: case %q already has input %s", ErrCorpus, filepath.Join(dir, e.Name()), name, prev)
			}
			if !caseName.MatchString(name) {
				return nil, fmt.Errorf("%w: %s: case names are lowercase letters, digits, '.', '_' and '-'", ErrCorpus, filepath.Join(dir, e.Name()))
			}
			inputs[name] = e.Name()
		case BundleSuffix, VerdictSuffix, ReceiptSuffix, SignatureSuffix:
			golden = append(golden, e.Name())
		}
	}
	for _, g := range golden {
		if name, _ := splitName(g); inputs[name] == "" {
			return nil, fmt.Errorf("%w: %s: golden output of no case (no %s%s or %s%s)", ErrCorpus, filepath.Join(dir, g), name, RecipeSuffix, name, ArchiveSuffix)
		}
	}
	// Parsed in name order, so that of several broken recipes the same one is reported.
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		cs := &Case{Name: name, Input: inputs[name]}
		if strings.HasSuffix(cs.Input, RecipeSuffix) {
			if cs.Recipe, err = readRecipe(filepath.Join(dir, cs.Input)); err != nil {
				return nil, err
			}
		}
		c.Cases = append(c.Cases, cs)
	}
	return c, nil
}

// splitName cuts a corpus file name into case name and known suffix ("" if none). The
// longest suffix wins: x.bundle.tar.zst is an archive, not x.bundle.tar with an unknown
// suffix.
func splitName(file string) (name, suffix string) {
	for _, s := range []string{ArchiveSuffix, RecipeSuffix, SignatureSuffix, VerdictSuffix, ReceiptSuffix, BundleSuffix} {
		if n, ok := strings.CutSuffix(file, s); ok && n != "" {
			return n, s
		}
	}
	return file, ""
}

func readRecipe(file string) (*Recipe, error) {
	f, err := inputfile.Open(context.Background(), file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRecipe, err)
	}
	defer f.Close()
	data, err := readAtMost(f, maxRecipeSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRecipe, file, err)
	}
	return ParseRecipe(file, data)
}

// Select returns the cases named, in corpus order; an unknown name is an error.
func (c *Corpus) Select(names []string) ([]*Case, error) {
	if len(names) == 0 {
		return c.Cases, nil
	}
	var out []*Case
	for _, cs := range c.Cases {
		if slices.Contains(names, cs.Name) {
			out = append(out, cs)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(c.Cases, func(cs *Case) bool { return cs.Name == n }) {
			return nil, fmt.Errorf("%w: %s: no case %q", ErrCorpus, c.Dir, n)
		}
	}
	return out, nil
}

// goldenPath is the path of one of a case's golden files.
func (c *Corpus) goldenPath(cs *Case, suffix string) string {
	return filepath.Join(c.Dir, cs.Name+suffix)
}
