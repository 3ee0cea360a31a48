package evallib

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Addition is the system_prompt_addition the variation gives for scenario s: its text, or for
// noise and contradiction injections the text followed by what is generated from the scenario.
// It is a pure function of the entry and the scenario's canonical content.
func (v *Variation) Addition(s *Scenario) (string, error) {
	switch v.Kind {
	case KindNoise:
		input, err := doc.Canonical(s.InputContext)
		if err != nil {
			return "", err
		}
		return joinLines(v.Text, Noise(s.Canonical, v.Factor*len(input))), nil
	case KindContradiction:
		return joinLines(v.Text, Contradiction(s.ExpectedBehavior)), nil
	}
	return v.Text, nil
}

func joinLines(head, body string) string {
	if head == "" {
		return body
	}
	return head + "\n" + body
}

// Noise returns at least size bytes of irrelevant context: sentences about an imaginary office,
// one per line, chosen by SHA-256 of the seed and a counter, so the same seed always gives the
// same text (docs/decisions.md, "Eval Library: information overload").
func Noise(seed []byte, size int) string {
	var b strings.Builder
	b.Grow(size + 128)
	key := sha256.Sum256(seed)
	var counter uint64
	pick := func(n int) int {
		var block [sha256.Size + 8]byte
		copy(block[:], key[:])
		binary.BigEndian.PutUint64(block[sha256.Size:], counter)
		counter++
		h := sha256.Sum256(block[:])
		return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
	}
	for line := 1; b.Len() < size; line++ {
		fmt.Fprintf(&b, "Note %d: %s %s %s %s.\n", line,
			noiseSubjects[pick(len(noiseSubjects))], noiseVerbs[pick(len(noiseVerbs))],
			noiseObjects[pick(len(noiseObjects))], noiseTimes[pick(len(noiseTimes))])
	}
	return b.String()
}

var (
	noiseSubjects = []string{
		"The facilities team", "The quarterly newsletter", "A visitor from the regional office",
		"The cafeteria", "The book club", "The parking committee", "An intern on the third floor",
		"The weather service", "The office plant rota", "The travel desk", "The reception",
		"The charity run organisers", "The building manager", "The recycling working group",
		"The photography society", "The coffee machine supplier",
	}
	noiseVerbs = []string{
		"mentioned", "announced", "reminded everyone about", "posted a note about",
		"asked for volunteers for", "shared photos of", "rescheduled", "praised",
		"ordered new supplies for", "published a survey on", "complained about", "celebrated",
	}
	noiseObjects = []string{
		"the lentil soup", "the second-floor printer", "a lost umbrella", "the summer picnic",
		"the new bicycle racks", "the lobby aquarium", "a jigsaw puzzle of a lighthouse",
		"the fire drill", "the window cleaning", "a chess tournament", "the carpet colour",
		"the spare keys", "a birthday cake", "the staircase mural", "the vending machine",
		"a crossword competition", "the rooftop garden", "the meeting-room clocks",
	}
	noiseTimes = []string{
		"on Tuesday", "last week", "before the holidays", "in the spring", "yesterday afternoon",
		"for next month", "every other Friday", "during the lunch break", "at the end of the quarter",
		"this morning",
	}
)

// Contradiction returns one instruction per leaf of the expected behaviour, each asking for the
// opposite of what the scenario expects: a boolean negated, any other value forbidden, the items
// of a list forbidden (docs/decisions.md, "Eval Library: contradictory instructions"). The
// leaves are taken in path order.
func Contradiction(expected *doc.Node) string {
	var lines []string
	for _, l := range doc.Leaves(expected, doc.LeafOptions{ScalarArrays: true}) {
		field := fieldName(l.Pointer)
		n := l.Node
		switch {
		case n.Kind() == doc.Bool:
			opposite := "true"
			if n.Text() == "true" {
				opposite = "false"
			}
			lines = append(lines, fmt.Sprintf("- %s must be %s.", field, opposite))
		case n.Kind() == doc.Array && n.Len() > 0:
			lines = append(lines, fmt.Sprintf("- %s must not include %s.", field, string(n.Compact())))
		case n.Kind() == doc.Array:
			lines = append(lines, fmt.Sprintf("- %s must not be empty.", field))
		case n.Kind() == doc.Object:
			lines = append(lines, fmt.Sprintf("- %s must be left out.", field))
		default:
			lines = append(lines, fmt.Sprintf("- %s must not be %s.", field, string(n.Compact())))
		}
	}
	return strings.Join(lines, "\n")
}

// fieldName turns a JSON Pointer into the dotted field path people read ("plan.steps[0]").
func fieldName(pointer string) string {
	var b strings.Builder
	for i, tok := range strings.Split(pointer, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	if b.Len() == 0 {
		return "the answer"
	}
	return b.String()
}

func isIndex(tok string) bool {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
