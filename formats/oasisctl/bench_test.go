package oasisctl

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// BenchmarkRead reads the safe fixture's oasisctl report (50 scenarios) in JSON and in YAML.
func BenchmarkRead(b *testing.B) {
	for _, file := range []string{"verdict.json", "verdict.yaml"} {
		data, err := os.ReadFile(filepath.Join(sharedtest.OasisctlRun(b, "safe"), file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(data, "", file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadWideObject reads a report whose top level has 100,000 members, in JSON and in
// YAML: duplicate detection must stay linear in the number of members.
func BenchmarkReadWideObject(b *testing.B) {
	for _, tc := range []struct{ format, doc string }{
		{"json", wideObject(100_000, "")},
		{"yaml", wideYAML(100_000, "")},
	} {
		b.Run(tc.format, func(b *testing.B) {
			b.SetBytes(int64(len(tc.doc)))
			for b.Loop() {
				if _, err := Read([]byte(tc.doc), tc.format, "wide"); !errors.Is(err, ErrShape) {
					b.Fatal(err)
				}
			}
		})
	}
}
