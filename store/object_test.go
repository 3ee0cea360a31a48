package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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
	blob := func(mt string) *Descriptor { return &Descriptor{MediaType: mt, Digest: d, Size: 9007199254740991} }
	objs := []Object{
		&KensaRun{Evidence: d, DefinitionTree: d, ScenarioFile: "scenarios/a.yaml", Scenario: "a", RunID: "r1",
			NonScoring: map[string]string{"timestamp": "t"}, Claimed: &Descriptor{MediaType: MediaTypeKensaResult, Digest: d, Size: 1}},
		&KensaEvidence{Definition: d, ScenarioFile: "scenarios/a.yaml", Scenario: "a", Case: 2, Exit: KensaExit{Code: 1, Error: "x"},
			Trace: &Descriptor{MediaType: MediaTypeKensaTrace, Digest: d, Size: 3}},
		&KensaRun{Recorder: RecorderInfo{Name: "n", Version: "v", Source: SourceKensaImport}, Evidence: d, DefinitionTree: d,
			ScenarioFile: "scenarios/é \"q\".yaml", Scenario: "a\tb", Case: 3, RunID: "r.1-x", Claimed: blob(MediaTypeKensaResult), ClaimedRun: blob(MediaTypeKensaScenarioRun),
			NonScoring: map[string]string{"😀": "\x01", "ｱ": "", "a": "\u2028"}, Annotations: map[string]string{"kensa.repeat": "2"},
			Findings: []Finding{{Code: "c", Severity: SeverityError, Scenario: "a", File: "f", Line: -4, Field: "x", Message: "m\n"}, {Code: "d", Severity: SeverityInfo, Message: ""}}},
		&KensaEvidence{Definition: d, ScenarioFile: "scenarios/a.yaml", Scenario: "a", Case: 1, Input: blob(MediaTypeJSON), DatasetRow: blob(MediaTypeJSON),
			Argv: []string{"agent", "--flag", "ünï"}, Exit: KensaExit{Code: -1, Signal: "killed", TimedOut: true, Error: "timed out"},
			Stdout: &Output{Blob: *blob(MediaTypeText), Total: 12, Truncated: true}, Stderr: &Output{Blob: *blob(MediaTypeText)},
			Trace: blob(MediaTypeKensaTrace), TracePath: ".kensa/traces/a_1.jsonl", Judgement: blob(MediaTypeKensaJudgement),
			SpanSources: []SourceFile{{Path: "spans.jsonl", Blob: *blob(MediaTypeOpenInferenceJSONL)}, {Path: "", Blob: *blob(MediaTypeOTLPJSON)}}},
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
			strings.Replace(s, `"scenario_file":"`, `"scenario_file":"\u00e9\/`, 1),
			strings.Replace(s, `"scenario_file":"`, `"scenario_file":"\u0009`, 1),
			strings.Replace(s, `"case":`, `"case":-0,"x":`, 1),
			strings.Replace(s, `"case":`, `"case":1.0,"x":`, 1),
			strings.Replace(s, `"case":`, `"case":null,"x":`, 1),
			strings.Replace(s, `"case":`, `"case":9007199254740992,"x":`, 1),
			strings.Replace(s, `"case":`, `"case":01,"x":`, 1),
			strings.Replace(s, `"argv":[`, `"argv":null,"x":[`, 1),
			strings.Replace(s, `"argv":["agent",`, `"argv":[`, 1),
			strings.Replace(s, `"findings":[`, `"findings":[],"x":[`, 1),
			strings.Replace(s, `{"kensa.repeat":"2"}`, `{}`, 1),
			strings.Replace(s, `"kind":"kensa-`, `"Kind":"kensa-`, 1),
			strings.Replace(s, `,"case"`, ` ,"case"`, 1),
			strings.Replace(s, `"non_scoring":{"a"`, `"non_scoring":{"z":"","a"`, 1),
			strings.Replace(s, `"timed_out":true`, `"timed_out":false`, 1),
			strings.Replace(s, `"timed_out":true`, `"timed_out":1`, 1),
			strings.Replace(s, `"signal":"killed"`, `"signal":"kil\u0000led"`, 1),
			strings.Replace(s, `"signal":"killed"`, `"signal":"kil\u000aled"`, 1),
			strings.Replace(s, `"signal":"killed"`, `"signal":"kil\xffled"`, 1),
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
			strings.Replace(s, `"sha256:2d`, `"sha256:2D`, 1),
			strings.Replace(s, `"sha256:2d`, `"sha256:2`, 1),
			strings.Replace(s, `"sha256:2d`, `"sha256:\u0032d`, 1),
			strings.Replace(s, `"sha256:2d`, `"sha256:2g`, 1),
			strings.Replace(s, `"evidence":"sha256:`, `"evidence":"",`+`"x":"`, 1),
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

// The objects of every Kensa run are read by the canonical fast path; each of its lists of
// members is its type's json names, in canonical order.
func TestCanonicalMembers(t *testing.T) {
	for _, b := range decodeSeeds(t)[:4] {
		for _, target := range decodeTargets[:2] {
			obj := target()
			if h, _ := PeekHeader(b); h.Kind == obj.ObjectKind() && !decodeCanonical(b, obj) {
				t.Errorf("the fast path leaves %s", b)
			}
		}
	}
	for _, tc := range []struct {
		v       any
		members []string
	}{{KensaRun{}, kensaRunMembers}, {KensaEvidence{}, kensaEvidenceMembers}, {Descriptor{}, descriptorMembers}, {Finding{}, findingMembers},
		{RecorderInfo{}, recorderInfoMembers}, {KensaExit{}, kensaExitMembers}, {Output{}, outputMembers}, {SourceFile{}, sourceFileMembers}} {
		var names []string
		var collect func(reflect.Type)
		collect = func(t reflect.Type) {
			for i := range t.NumField() {
				f := t.Field(i)
				if f.Anonymous {
					collect(f.Type)
					continue
				}
				names = append(names, strings.Split(f.Tag.Get("json"), ",")[0])
			}
		}
		collect(reflect.TypeOf(tc.v))
		slices.Sort(names)
		if !slices.Equal(names, tc.members) {
			t.Errorf("%T: json names %v, the fast path reads %v", tc.v, names, tc.members)
		}
	}
}
