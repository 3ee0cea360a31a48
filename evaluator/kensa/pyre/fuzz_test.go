package pyre

import (
	"errors"
	"testing"
)

// No pattern and subject make Compile or Search panic, and a search either decides or says it
// spent its budget.
func FuzzSearch(f *testing.F) {
	for _, seed := range []string{`(a|)*b`, `(?i)[\U00010400-\U00010410x]`, `(?(1)a|b)`, `(?<=ab)c`, `\N{x}`, `(?x)#`, `[`, `a{2,1}`} {
		f.Add(seed, "aab\nİß")
	}
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		re, err := Compile(pattern)
		if err != nil {
			return
		}
		if _, _, _, err := re.Search(subject, 100_000); err != nil && !errors.Is(err, ErrStepBudget) {
			t.Fatalf("%q over %q: %v", pattern, subject, err)
		}
	})
}
