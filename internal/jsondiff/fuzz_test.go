package jsondiff

import (
	"errors"
	"testing"
)

// FuzzDiff feeds arbitrary pairs of documents. Whatever the bytes: no panic; a document never
// differs from itself; the differences of (a, b) and (b, a) are at the same paths with the
// sides swapped; no path is reported twice. (The order of paths is pinned by the golden cases.)
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":2}`))
	f.Add([]byte(`[1,2,3]`), []byte(`[1,2]`))
	f.Add([]byte(`{"a/b":{"~":null}}`), []byte(`{"a/b":{"~":false}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab, errAB := DiffN(a, b, 1000)
		ba, errBA := DiffN(b, a, 1000)
		if (errAB == nil) != (errBA == nil) && !errors.Is(errAB, ErrTruncated) && !errors.Is(errBA, ErrTruncated) {
			t.Fatalf("asymmetric errors: %v / %v", errAB, errBA)
		}
		if errAB != nil {
			return
		}
		if self, err := Diff(a, a); err != nil || len(self) != 0 {
			t.Fatalf("a differs from itself: %v %v", self, err)
		}
		if len(ab) != len(ba) {
			t.Fatalf("%d differences one way, %d the other", len(ab), len(ba))
		}
		seen := map[string]bool{}
		for i := range ab {
			if ab[i].Path != ba[i].Path || ab[i].Want != ba[i].Got || ab[i].Got != ba[i].Want {
				t.Fatalf("difference %d: %v vs %v", i, ab[i], ba[i])
			}
			if seen[ab[i].Path] {
				t.Fatalf("path %q reported twice", ab[i].Path)
			}
			seen[ab[i].Path] = true
		}
	})
}
