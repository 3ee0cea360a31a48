package pyre

import (
	"errors"
	"strings"
	"testing"
)

// The claim of DefaultBudget: `.*refund` that finds nothing in 7,000 characters of one line
// stays within it; and a catastrophic pattern spends a budget, at the same step every time.
func TestBudget(t *testing.T) {
	re, err := Compile(`.*refund`)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, found, err := re.Search(strings.Repeat("a", 7000), DefaultBudget); found || err != nil {
		t.Errorf(".*refund over 7,000 characters: found %v, %v", found, err)
	}
	re, err = Compile(`(a+)+$`)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for range 2 {
		_, _, _, err := re.Search(strings.Repeat("a", 40)+"!", 1_000_000)
		if !errors.Is(err, ErrStepBudget) {
			t.Fatalf("(a+)+$ over 40 a's and a '!': %v, where sre takes hours", err)
		}
		texts = append(texts, err.Error())
	}
	if texts[0] != texts[1] {
		t.Errorf("two searches spent the budget differently: %q, %q", texts[0], texts[1])
	}
}

func BenchmarkQuadratic(b *testing.B) {
	re, _ := Compile(`.*foo`)
	s := strings.Repeat("a", 4000)
	for b.Loop() {
		if _, _, _, err := re.Search(s, DefaultBudget); err != nil {
			b.Fatal(err)
		}
	}
}
