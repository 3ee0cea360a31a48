package redact

import (
	"cmp"
	"slices"
	"sync"
)

// Tally counts what a Redactor replaced (see WithTally): per marker and encoding, the number
// of spans in which the value was found. It never holds a value. The zero Tally is empty and
// ready to use; it is safe for concurrent use.
type Tally struct {
	mu sync.Mutex
	n  map[Hit]int64 // Hit.Count is always 0 in the keys
}

// Hit is how many times (Count) a value, named by its marker, was found under an encoding.
//
// Encoding names the outer form: "plain" (the value's bytes), "form" (spaces written '+'),
// "hex" (lower or upper case), "base64" or "base64url" (alone, padded or not, or inside a
// longer base64 text); followed by "+json" when JSON escapes were read through, and
// "+percent" when percent escapes were. Without a key every marker is UnkeyedMarker, so the
// hits of all values are counted together.
type Hit struct {
	Marker   string
	Encoding string
	Count    int64
}

type hitCount struct{ marker, encoding string }

func (t *Tally) add(counts []hitCount) {
	if t == nil || len(counts) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range counts {
		t.inc(Hit{Marker: c.marker, Encoding: c.encoding}, 1)
	}
}

func (t *Tally) inc(k Hit, n int64) {
	if t.n == nil {
		t.n = map[Hit]int64{}
	}
	t.n[k] += n
}

// Merge adds the counts of o to t.
func (t *Tally) Merge(o *Tally) {
	hits := o.Hits()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range hits {
		t.inc(Hit{Marker: h.Marker, Encoding: h.Encoding}, h.Count)
	}
}

// Hits lists the counts, sorted by marker, then encoding.
func (t *Tally) Hits() []Hit {
	t.mu.Lock()
	defer t.mu.Unlock()
	hits := make([]Hit, 0, len(t.n))
	for k, n := range t.n {
		k.Count = n
		hits = append(hits, k)
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(a.Marker, b.Marker), cmp.Compare(a.Encoding, b.Encoding))
	})
	return hits
}

// Empty reports whether nothing was counted.
func (t *Tally) Empty() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.n) == 0
}

// encodingNames of every encoding with every combination of escapes.
var escapedNames = func() (names [numEncodings][4]string) {
	for e := range numEncodings {
		for esc := range uint8(4) {
			n := encodingNames[e]
			if esc&escJSON != 0 {
				n += "+json"
			}
			if esc&escPercent != 0 {
				n += "+percent"
			}
			names[e][esc] = n
		}
	}
	return names
}()

func encodingName(e encoding, escapes uint8) string { return escapedNames[e][escapes] }
