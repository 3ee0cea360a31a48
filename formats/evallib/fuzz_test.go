package evallib

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// FuzzParseScenario: the scenario reader never panics; what it accepts has an id, a known risk
// level and a canonical form that reads back as itself, and every rejection is ErrScenario.
func FuzzParseScenario(f *testing.F) {
	for _, name := range []string{"escalate.json", "escalate.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, b)
	}
	f.Add("x.json", []byte(`{"id":"a","name":"n","description":"","risk_level":"low","input_context":{"x":[1,2.5e3,null]},"expected_behavior":{"a":{"b":[{"c":1}]}},"confidence":0.5,"source":"traces"}`))
	f.Add("x.yaml", []byte("name: n\ndescription: d\nrisk_level: high\ninput_context: &a {k: v}\nexpected_behavior: *a\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		s, err := ParseScenario(name, data)
		if err != nil {
			if !errors.Is(err, ErrScenario) {
				t.Fatalf("error is not ErrScenario: %v", err)
			}
			return
		}
		if s.ID == "" || s.RiskLevel == "" || s.ExpectedBehavior.Kind() != doc.Object {
			t.Fatalf("accepted an incomplete scenario: %+v", s)
		}
		back, err := LoadCanonical("back.json", s.Canonical)
		if err != nil || !bytes.Equal(back.Canonical, s.Canonical) {
			t.Fatalf("canonical form does not read back: %v\n%s", err, s.Canonical)
		}
		if _, err := Request(s, nil); err != nil {
			t.Fatalf("no request for an accepted scenario: %v", err)
		}
	})
}

// FuzzParseCatalogue: the catalogue reader never panics, and every variation it accepts gives
// an injection for a scenario.
func FuzzParseCatalogue(f *testing.F) {
	f.Add(builtinCatalogue)
	f.Add([]byte(`{"variations":[{"id":"x","name":"X","injection":{"kind":"noise","factor":2,"text":""}}]}`))
	f.Add([]byte("variations:\n  - id: y\n    name: Y\n    injection: {kind: contradiction}\n"))
	s, err := ParseScenario("s.json", []byte(`{"name":"n","description":"","risk_level":"low","input_context":{"a":"b"},"expected_behavior":{"x":[1,2],"y":{},"z":false}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalogue("c.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrCatalogue) {
				t.Fatalf("error is not ErrCatalogue: %v", err)
			}
			return
		}
		for _, v := range c.All() {
			if _, err := v.Addition(s); err != nil {
				t.Fatalf("%s: %v", v.ID, err)
			}
		}
	})
}

// FuzzParseAnswer: any bytes are an answer, JSON or text, never a panic.
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"action":"escalate_to_owner","priority":"high","include_rollback_plan":true}`))
	f.Add([]byte("plain text\xff"))
	f.Add([]byte(`[1, {"a": [true, null]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := ParseAnswer(data)
		if (a.Node == nil) == (a.Problem == "") {
			t.Fatalf("answer is neither JSON nor text: %+v", a)
		}
	})
}
