package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeTwoPasses is Decode as it was before it parsed an object once: the header read on its
// own (PeekHeader), then the object. Decode must give what it gave, value and error.
func decodeTwoPasses(b []byte, obj Object) error {
	h, err := PeekHeader(b)
	if err != nil {
		return err
	}
	if h.Kind != obj.ObjectKind() {
		return fmt.Errorf("%w: object is a %s, expected a %s", ErrInvalidObject, h.Kind, obj.ObjectKind())
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidObject, h.Kind, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: %s: trailing data", ErrInvalidObject, h.Kind)
	}
	if v, ok := obj.(interface{ validate() error }); ok {
		return v.validate()
	}
	return nil
}

// decodeTargets are fresh objects of a few kinds to decode into.
var decodeTargets = []func() Object{
	func() Object { return new(KensaRun) },
	func() Object { return new(KensaEvidence) },
	func() Object { return new(Receipt) },
	func() Object { return new(ProfileTree) },
}

// checkDecodeAsBefore requires Decode(b) into each target to give decodeTwoPasses' value and
// error.
func checkDecodeAsBefore(t *testing.T, b []byte) {
	t.Helper()
	for _, target := range decodeTargets {
		got, want := target(), target()
		errGot, errWant := Decode(b, got), decodeTwoPasses(b, want)
		if fmt.Sprint(errGot) != fmt.Sprint(errWant) {
			t.Fatalf("Decode(%q) into a %s: error %v, want %v", b, got.ObjectKind(), errGot, errWant)
		}
		if errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) into a %s: %+v, want %+v", b, got.ObjectKind(), got, want)
		}
	}
}

// decodeSeeds are a valid object of each target kind.
func decodeSeeds(t testing.TB) [][]byte {
	d := Sum([]byte("x"))
	objs := []Object{
		&KensaRun{Evidence: d, DefinitionTree: d, ScenarioFile: "scenarios/a.yaml", Scenario: "a", RunID: "r1",
			NonScoring: map[string]string{"timestamp": "t"}, Claimed: &Descriptor{MediaType: MediaTypeKensaResult, Digest: d, Size: 1}},
		&KensaEvidence{Definition: d, ScenarioFile: "scenarios/a.yaml", Scenario: "a", Case: 2, Exit: KensaExit{Code: 1, Error: "x"},
			Trace: &Descriptor{MediaType: MediaTypeKensaTrace, Digest: d, Size: 3}},
		&Receipt{Bundle: d, Profile: d, Verdict: d},
		&ProfileTree{ProfileID: "p", Version: "1", Entries: []TreeEntry{{Path: "a.yaml", Blob: Descriptor{MediaType: MediaTypeYAML, Digest: d, Size: 1}}}},
	}
	var out [][]byte
	for _, obj := range objs {
		b, _, err := Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// Decode reads an object once and gives what reading its header first gave: the same value,
// and for every kind of bad input the same error.
func TestDecodeAsBefore(t *testing.T) {
	for _, seed := range decodeSeeds(t) {
		s := string(seed)
		for _, b := range []string{
			s,
			s + " \n\t\r",
			s + "}",
			s + " {}",
			s + "x",
			"\ufeff" + s,
			strings.Replace(s, `{`, `{"extra":1,`, 1),
			strings.Replace(s, `"schema_version":1`, `"schema_version":2`, 1),
			strings.Replace(s, `"schema_version":1`, `"schema_version":"1"`, 1),
			strings.Replace(s, `"schema_version":1`, `"schema_version":1,"kind":"photo"`, 1),
			strings.Replace(s, `"schema_version":1`, `"schema_version":1,"kind":"receipt"`, 1),
			strings.Replace(s, `"schema_version":1`, `"SCHEMA_VERSION":1`, 1),
			strings.Replace(s, `"kind":`, `"Kind":`, 1),
			strings.Replace(s, `"kind":"`, `"kind":"x`, 1),
			strings.Replace(s, `,"schema_version":1`, ``, 1),
			strings.Replace(s, `"sha256:`, `"md5:`, 1),
			s[:len(s)-1],
			"null", "[]", "", "{}", `{"kind":"receipt","schema_version":1}`,
		} {
			checkDecodeAsBefore(t, []byte(b))
		}
	}
}

// Any bytes decode as they did when the header was read first.
func FuzzDecode(f *testing.F) {
	for _, seed := range decodeSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeAsBefore(t, b) })
}
