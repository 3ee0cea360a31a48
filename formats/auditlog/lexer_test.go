package auditlog

import (
	"math/rand/v2"
	"testing"
)

// TestSafeRun holds the word-at-a-time search to the byte table: for every byte value at
// every position of a word, after every prefix length, and on random strings of bytes that
// are mostly safe.
func TestSafeRun(t *testing.T) {
	byTable := func(d []byte, i int) int {
		for i < len(d) && strSafe[d[i]] {
			i++
		}
		return i
	}
	d := make([]byte, 24)
	for c := range 256 {
		for at := range len(d) {
			for i := range d {
				d[i] = 'a' + byte(i%26)
			}
			d[at] = byte(c)
			for from := 0; from <= at; from++ {
				if got, want := safeRun(d, from), byTable(d, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: safeRun %d, the table %d", c, at, from, got, want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		d := make([]byte, rng.IntN(40))
		for i := range d {
			d[i] = byte(0x20 + rng.IntN(0x60))
			if rng.IntN(8) == 0 {
				d[i] = byte(rng.IntN(256))
			}
		}
		from := rng.IntN(len(d) + 1)
		if got, want := safeRun(d, from), byTable(d, from); got != want {
			t.Fatalf("%q from %d: safeRun %d, the table %d", d, from, got, want)
		}
	}
}
