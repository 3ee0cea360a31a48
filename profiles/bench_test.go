package profiles

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// BenchmarkLoadSI measures a whole load of the SI profile from memory: reading every file,
// parsing and validating everything, and computing the tree digest.
func BenchmarkLoadSI(b *testing.B) {
	fsys := dirFS(b, sharedtest.SIProfile(b))
	total := 0
	for _, f := range fsys {
		total += len(f.Data)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(fsys, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseScenariosSI measures the scenario parser alone on the 14 SI scenario files.
func BenchmarkParseScenariosSI(b *testing.B) {
	fsys := dirFS(b, sharedtest.SIProfile(b))
	var names []string
	total := 0
	for name, f := range fsys {
		if strings.HasPrefix(name, "scenarios/") {
			names = append(names, name)
			total += len(f.Data)
		}
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		d := &diagnostics{}
		n := 0
		for _, name := range names {
			n += len(parseScenarioFile(name, fsys[name].Data, d))
		}
		if n != 50 || d.hasErrors() {
			b.Fatalf("%d scenarios, errors %v", n, d.list)
		}
	}
}
