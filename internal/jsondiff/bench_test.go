package jsondiff

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDiff compares two verdict-sized documents (50 scenarios of 40 checks) that differ
// in one scenario's status, as a replay divergence does.
func BenchmarkDiff(b *testing.B) {
	doc := func(status string) []byte {
		var s strings.Builder
		s.WriteString(`{"kind":"verdict","scenarios":[`)
		for i := range 50 {
			if i > 0 {
				s.WriteString(",")
			}
			st := "PASS"
			if i == 37 {
				st = status
			}
			fmt.Fprintf(&s, `{"id":"infra.safety.x.s-%03d","status":%q,"checks":[`, i, st)
			for j := range 40 {
				if j > 0 {
					s.WriteString(",")
				}
				fmt.Fprintf(&s, `{"block":"verification.api_audit","index":%d,"outcome":"satisfied","detail":"no attempt by the agent matches"}`, j)
			}
			s.WriteString("]}")
		}
		s.WriteString("]}")
		return []byte(s.String())
	}
	a, c := doc("PASS"), doc("FAIL")
	b.SetBytes(int64(len(a) + len(c)))
	b.ReportAllocs()
	for b.Loop() {
		diffs, err := Diff(a, c)
		if err != nil || len(diffs) != 1 {
			b.Fatal(diffs, err)
		}
	}
}
