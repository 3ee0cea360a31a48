package jsondiff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Absent is the rendering of a side on which a node does not exist.
const Absent = "(absent)"

// MaxDifferences is the number of differences Diff lists before it stops.
const MaxDifferences = 50

// MaxValueBytes bounds the rendering of one side of a difference.
const MaxValueBytes = 1024

// MaxDepth bounds the nesting of arrays and objects in a document.
const MaxDepth = 512

var (
	// ErrSyntax: a document is not exactly one valid JSON value, nests deeper than MaxDepth,
	// or repeats an object key.
	ErrSyntax = errclass.New(errclass.Input, "jsondiff: invalid JSON")
	// ErrTruncated: there are more differences than the limit. It is returned together with
	// the first differences, in order.
	ErrTruncated = errclass.New(errclass.Input, "jsondiff: too many differences")
)

// Difference is one node where the documents differ.
type Difference struct {
	// Path is the node's JSON Pointer (RFC 6901); "" is the whole document.
	Path string
	// Want and Got are the canonical JSON of the node in the first and second document, or
	// Absent.
	Want, Got string
}

// String renders the difference on one line: "path: want → got".
func (d Difference) String() string {
	path := d.Path
	if path == "" {
		path = "(document)"
	}
	return path + ": " + d.Want + " → " + d.Got
}

// Diff compares a (what was expected) with b (what was got) and returns their differences
// sorted by path, at most MaxDifferences of them; if there are more it returns those with an
// error wrapping ErrTruncated.
func Diff(a, b []byte) ([]Difference, error) {
	return DiffN(a, b, MaxDifferences)
}

// DiffN is Diff with a limit of its own (at least 1).
func DiffN(a, b []byte, limit int) ([]Difference, error) {
	va, err := parse(a)
	if err != nil {
		return nil, fmt.Errorf("first document: %w", err)
	}
	vb, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("second document: %w", err)
	}
	w := walker{limit: max(limit, 1)}
	w.compare(nil, va, vb)
	if w.truncated {
		return w.out, fmt.Errorf("%w: stopped after %d", ErrTruncated, len(w.out))
	}
	return w.out, nil
}

// walker compares two trees in path order, collecting differences up to its limit.
type walker struct {
	limit     int
	out       []Difference
	truncated bool
}

// compare records the differences between a and b at path; either may be nil (absent).
// It returns false once the limit is reached, which stops the walk.
func (w *walker) compare(path []string, a, b *value) bool {
	if a != nil && b != nil && a.kind == b.kind {
		switch a.kind {
		case kindObject:
			return w.compareObjects(path, a, b)
		case kindArray:
			return w.compareArrays(path, a, b)
		}
		if a.equalScalar(b) {
			return true
		}
	}
	if len(w.out) == w.limit {
		w.truncated = true
		return false
	}
	w.out = append(w.out, Difference{Path: pointer(path), Want: render(a), Got: render(b)})
	return true
}

func (w *walker) compareObjects(path []string, a, b *value) bool {
	i, j := 0, 0
	for i < len(a.members) || j < len(b.members) {
		var key string
		var va, vb *value
		switch {
		case j == len(b.members) || i < len(a.members) && a.members[i].key < b.members[j].key:
			key, va = a.members[i].key, a.members[i].value
			i++
		case i == len(a.members) || b.members[j].key < a.members[i].key:
			key, vb = b.members[j].key, b.members[j].value
			j++
		default:
			key, va, vb = a.members[i].key, a.members[i].value, b.members[j].value
			i++
			j++
		}
		if !w.compare(append(path, key), va, vb) {
			return false
		}
	}
	return true
}

func (w *walker) compareArrays(path []string, a, b *value) bool {
	for i := range max(len(a.items), len(b.items)) {
		var va, vb *value
		if i < len(a.items) {
			va = a.items[i]
		}
		if i < len(b.items) {
			vb = b.items[i]
		}
		if !w.compare(append(path, strconv.Itoa(i)), va, vb) {
			return false
		}
	}
	return true
}

// pointer renders a path as a JSON Pointer (RFC 6901 §3: "~" is "~0", "/" is "~1").
func pointer(path []string) string {
	var b strings.Builder
	for _, seg := range path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(seg))
	}
	return b.String()
}

// render returns the canonical JSON of v, bounded by MaxValueBytes, or Absent.
func render(v *value) string {
	if v == nil {
		return Absent
	}
	var b strings.Builder
	v.write(&b, MaxValueBytes+1)
	s := b.String()
	if len(s) <= MaxValueBytes {
		return s
	}
	cut := MaxValueBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
