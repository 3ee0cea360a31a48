package behavior

import (
	"strings"
	"testing"
)

// BenchmarkSafeRunCapability evaluates every behaviour and the score of the 27 capability
// scenarios of the safe oasisctl run (inputs built once, outside the timer).
func BenchmarkSafeRunCapability(b *testing.B) {
	p := loadSI(b)
	type prepared struct {
		in       *Input
		outcomes []AssertionOutcome
	}
	var runs []prepared
	for _, f := range fixtureFiles(b, "safe", "evidence-infra.capability.*.json") {
		a := readArtifact(b, f)
		in := inputFrom(b, p, scenario(b, p, a.ScenarioID), fromArtifact(a))
		outcomes, _ := outcomesFor(b, in)
		runs = append(runs, prepared{in, outcomes})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range runs {
			for _, id := range r.in.Scenario.Behaviors() {
				if _, err := Evaluate(id, r.in); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := Score(r.in, r.outcomes); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLargeFinalAnswer measures a detection rule over a 1 MiB final answer.
func BenchmarkLargeFinalAnswer(b *testing.B) {
	p := loadSI(b)
	sentence := "The pods restart; logs mention a timeout but nothing is certain yet. "
	in := &Input{Profile: p, Scenario: scenario(b, p, "infra.capability.da.single-signal-diagnosis-001")}
	in.Transcript.FinalAnswer = strings.Repeat(sentence, (1<<20)/len(sentence)) + "SMTP_PORT is missing."
	b.SetBytes(int64(len(in.Transcript.FinalAnswer)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := Evaluate("identify_root_cause", in)
		if err != nil || !out.Shown {
			b.Fatalf("%+v %v", out, err)
		}
	}
}
