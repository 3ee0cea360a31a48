package snapshot

import (
	"bytes"
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzParse feeds arbitrary bytes to the snapshot reader under each state media type and to
// the state_diff reader: they never panic, fail only with ErrPayload, and every resource they
// accept has a kind. The committed seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	mediaTypes := []string{store.MediaTypeResourceState, store.MediaTypeK8sObjects, store.MediaTypeJSON}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		s, err := Parse(bytes.NewReader(data), mediaTypes[int(kind)%len(mediaTypes)], Options{KindHint: "Pod", Name: "fuzz.json"})
		if err != nil {
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("not a payload error: %v", err)
			}
		} else {
			for _, r := range s.Resources {
				if r.Kind == "" {
					t.Fatalf("resource without a kind: %+v", r)
				}
			}
		}
		if _, err := ParseDiff(bytes.NewReader(data), 0); err != nil && !errors.Is(err, ErrPayload) {
			t.Fatalf("state_diff: not a payload error: %v", err)
		}
	})
}
