package report

import (
	"io"
	"os"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
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
				claim, err := oasisctl.Read(doc, "", file)
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
