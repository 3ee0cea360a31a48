package replay

import (
	"math/rand/v2"
	"strings"
	"testing"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
)

// The tail of a stream read through a window is fkensa.RunTail of the whole text, whatever
// the text (whitespace runs longer than the window inside it or at its end, characters of
// every width, invalid bytes, a character cut between two writes) and however it is written.
func TestTailerIsRunTail(t *testing.T) {
	const n = 5 // a window of 28 bytes
	pieces := []string{"a", "é", "€", "😀", " ", "\n", "\u3000", "\x1d", "\xff", "\xe2\x82", "\r\n", "b"}
	texts := []string{"", "   ", "abc", "  abc  ", strings.Repeat(" ", 1000) + "x" + strings.Repeat(" ", 1000),
		"x" + strings.Repeat(" ", 1000) + "y", strings.Repeat("😀", 100) + strings.Repeat("\u3000", 100),
		"\xe2\x82" + strings.Repeat("a", 100) + "\xe2", strings.Repeat("ab ", 20)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(120) {
			p := pieces[rng.IntN(len(pieces))]
			b.WriteString(strings.Repeat(p, 1+rng.IntN(3)*rng.IntN(20)))
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		want := fkensa.RunTail(text, n)
		tl := newTailer(n)
		for rest := text; rest != ""; {
			k := min(len(rest), 1+rng.IntN(7))
			_, _ = tl.Write([]byte(rest[:k]))
			rest = rest[k:]
		}
		if got := tl.result(); got != want {
			t.Fatalf("%q: %q, want %q", text, got, want)
		}
	}
}
