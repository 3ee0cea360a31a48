package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gowebpki/jcs"
)

func TestCanonicalizeIsJCSFixedPoint(t *testing.T) {
	cases := map[string]string{
		"empty object":     `{}`,
		"sorted keys":      `{"b":1,"a":2,"c":{"z":[],"y":null}}`,
		"utf16 order":      "{\"\U0001F600\":1,\"\uE000\":2,\"a\":3}",
		"escapes":          `{"s":"quote \" backslash \\ tab \t nl \n ctl \u0001 del \u007f"}`,
		"html untouched":   `{"s":"<a href=\"x\">&amp;</a>"}`,
		"line separators":  "{\"s\":\"a\u2028b\u2029c\"}",
		"negative integer": `{"n":-9007199254740991}`,
		"whitespace":       " { \"a\" : [ 1 , 2 , true , false , null ] } ",
		"escaped solidus":  `{"s":"a\/b"}`,
		"surrogate escape": `{"s":"\ud83d\ude00"}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Canonicalize([]byte(in))
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			want, err := jcs.Transform([]byte(in))
			if err != nil {
				t.Fatalf("jcs.Transform: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			again, err := Canonicalize(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("not a fixed point: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	cases := map[string]string{
		"float":             `{"a":1.5}`,
		"exponent":          `{"a":1e3}`,
		"too large":         `{"a":9007199254740992}`,
		"duplicate key":     `{"a":1,"a":2}`,
		"invalid utf8":      "{\"a\":\"\xff\"}",
		"lone surrogate":    `{"a":"\ud800"}`,
		"trailing data":     `{} {}`,
		"unterminated":      `{"a":`,
		"control in string": "{\"a\":\"\x01\"}",
		"bare word":         `nope`,
		"too deep":          string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Canonicalize([]byte(in)); !errors.Is(err, ErrNotCanonical) {
				t.Fatalf("Canonicalize(%q) = %v, want ErrNotCanonical", in, err)
			}
		})
	}
}

func TestMarshalObjectsAreJCSFixedPoints(t *testing.T) {
	d := Sum([]byte("payload"))
	objs := []Object{
		&ScenarioEvidence{
			ScenarioID: "infra.safety.be.zone-violation-001",
			Transcript: Transcript{FinalAnswer: "I won't <do> that & more", Actions: []Action{{Tool: "k", Arguments: `{"command":"kubectl get pods"}`}}},
			Observations: []Observation{{Type: ObservationAuditLog, Source: &EvidenceSource{Type: "kube", Status: StatusAvailable},
				Data: Descriptor{MediaType: MediaTypeAuditLog, Digest: d, Size: 7}}},
			NonScoring: map[string]string{"steps": "3", "duration": "1.2s"},
		},
		&RunManifest{Profile: ProfileRef{ID: "p", Version: "1", Tree: d}, Tier: 1,
			AgentConfiguration: map[string]string{"zone_model": "true", "interface_type": "api"},
			Scenarios:          []ScenarioRef{{ScenarioID: "a", Evidence: &Descriptor{MediaType: MediaTypeScenarioEvidence, Digest: d, Size: 1}}, {ScenarioID: "b"}}},
		&ProfileTree{ProfileID: "p", Version: "1", Entries: []TreeEntry{{Path: "a.md", Blob: Descriptor{MediaType: MediaTypeOctetStream, Digest: d, Size: 7}}}},
		&Receipt{Bundle: d, Profile: d, Verdict: d, Evaluator: EvaluatorInfo{Name: "e", Version: "1", RulesDigest: d}},
	}
	for _, obj := range objs {
		b, desc, err := Encode(obj)
		if err != nil {
			t.Fatalf("Encode %s: %v", obj.ObjectKind(), err)
		}
		want, err := jcs.Transform(b)
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%s is not a JCS fixed point:\n%s\n%s", obj.ObjectKind(), b, want)
		}
		if desc.Digest != Sum(b) || desc.Size != int64(len(b)) {
			t.Fatalf("%s: descriptor does not match bytes", obj.ObjectKind())
		}
		kind, _, err := ReferencesOf(b)
		if err != nil || kind != obj.ObjectKind() {
			t.Fatalf("ReferencesOf %s: %v %v", obj.ObjectKind(), kind, err)
		}
	}
}
