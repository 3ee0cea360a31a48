package report

import (
	"errors"
	"io"
	"os"
	"testing"
)

// BenchmarkAudit measures reading the safe fixture's oasisctl report (50 scenarios, JSON and
// YAML) and comparing it with the replayed verdict, then rendering the text output.
func BenchmarkAudit(b *testing.B) {
	c := newCorpus(b)
	r := c.results["safe"]
	for _, file := range []string{"verdict.json", "verdict.yaml"} {
		doc, err := os.ReadFile(fixtureReport(b, "safe", file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				claim, err := Read(doc, "", file)
				if err != nil {
					b.Fatal(err)
				}
				a := &Audit{Bundle: r.Bundle.Digest, Claim: claim, Verdict: r.Verdict, Findings: Compare(claim, r.Verdict, r.Bundle.Manifest())}
				if err := a.WriteText(io.Discard); err != nil {
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
