package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// FuzzParseScenarios feeds arbitrary bytes to the scenario parser and then to the scenario
// validation against the minimal profile. Neither may panic, every finding must name the file,
// and parsing must be deterministic. Seeds: testdata/fuzz/FuzzParseScenarios (hand-written), the
// minimal profile's scenarios, and the real SI scenario files when the shared checkout is
// present.
func FuzzParseScenarios(f *testing.F) {
	for _, dir := range []string{filepath.Join(minimalDir, "scenarios"), sharedScenarioDir()} {
		addFileSeeds(f, dir, ".yaml")
	}
	base, err := Load(dirFS(f, minimalDir), LoadOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "scenarios/safety/fuzz.yaml"
		d1, d2 := &diagnostics{}, &diagnostics{}
		s1, s2 := parseScenarioFile(file, data, d1), parseScenarioFile(file, data, d2)
		if !cmp.Equal(s1, s2, sameNode) || !reflect.DeepEqual(d1.list, d2.list) {
			t.Fatal("parsing the same bytes twice gave different results")
		}
		for _, d := range d1.list {
			if d.File != file {
				t.Fatalf("diagnostic without the file: %v", d)
			}
		}
		for _, s := range s1 {
			if s.Position.File != file || s.Position.Line < 1 {
				t.Fatalf("scenario %q at %+v", s.ID, s.Position)
			}
		}
		// Validate the parsed scenarios next to the profile's own, without re-reading the
		// profile documents each time.
		p := *base
		p.Scenarios = append(slices.Clone(base.Scenarios), s1...)
		validateScenarios(&p, d1)
	})
}

// sameNode compares document nodes by value and position (their caches aside).
var sameNode = cmp.Comparer(func(a, b *doc.Node) bool { return doc.Equal(a, b) && a.Pos() == b.Pos() })

// FuzzLoadDocuments replaces one profile document of the minimal profile with arbitrary bytes:
// the Markdown parsers, the conformance YAML and the agent schema must give errors or
// warnings, never a panic.
func FuzzLoadDocuments(f *testing.F) {
	for i, name := range fuzzDocuments {
		data, err := os.ReadFile(filepath.Join(minimalDir, name))
		if err == nil {
			f.Add(uint8(i), data)
		}
	}
	base := dirFS(f, minimalDir)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := fuzzDocuments[int(which)%len(fuzzDocuments)]
		checkLoad(t, withFile(base, name, data))
	})
}

// fuzzDocuments are the documents FuzzLoadDocuments replaces, chosen by its first argument.
var fuzzDocuments = []string{
	fileProfile, fileBehaviors, fileSafety, fileCapability, fileInterfaces, fileStimuli,
	fileConformance, fileAgentSchema, fileContract,
}

// checkLoad loads fsys and requires a profile or a *ValidationError listing errors.
func checkLoad(t *testing.T, fsys fstest.MapFS) {
	t.Helper()
	p, err := Load(fsys, LoadOptions{})
	var ve *ValidationError
	switch {
	case err == nil:
		if p == nil || len(p.Scenarios) == 0 {
			t.Fatal("loaded a profile without scenarios")
		}
	case errors.As(err, &ve):
		if len(ve.Errors()) == 0 {
			t.Fatal("validation error without errors")
		}
	default:
		t.Fatalf("unexpected error: %v", err)
	}
}

func withFile(base fstest.MapFS, name string, data []byte) fstest.MapFS {
	fsys := make(fstest.MapFS, len(base)+1)
	for k, v := range base {
		fsys[k] = v
	}
	fsys[name] = &fstest.MapFile{Data: data}
	return fsys
}

// addFileSeeds adds every file with the extension under dir as a seed; a missing dir adds none.
func addFileSeeds(f *testing.F, dir, ext string) {
	if dir == "" {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ext) {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
}

// sharedScenarioDir finds the SI scenarios without skipping: a fuzz target must run its
// committed seeds even where the shared checkout is absent.
func sharedScenarioDir() string {
	shared, ok := sharedtest.Lookup()
	if !ok {
		return ""
	}
	dir := filepath.Join(shared, "oasis-spec", "profiles", "software-infrastructure", "scenarios")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}
