package doc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

type testCheck struct {
	Name   string `json:"name" doc:"required"`
	Params struct {
		Tools []string `json:"tools"`
	} `json:"params"`
	// Input is "a string or an object": the reader looks at the node itself.
	Input  *Node            `json:"input"`
	Weight *decimal.Decimal `json:"weight"`
	Raw    Raw              `json:"raw"`
	Count  int8             `json:"count"`
}

type testBase struct {
	Version int `json:"version"`
}

type testScenario struct {
	testBase
	ID      string            `json:"id" doc:"required"`
	Checks  []testCheck       `json:"checks"`
	Tags    map[string]string `json:"tags"`
	Meta    any               `json:"meta"`
	Limit   *int              `json:"limit"`
	Pair    [2]bool           `json:"pair"`
	Data    []byte            `json:"data"`
	Ratio   float64           `json:"ratio"`
	Kind    label             `json:"kind"`
	Ignored string            `json:"-"`
	private string
}

// label decodes itself: a string or {"name": string}.
type label string

func (l *label) UnmarshalDoc(n *Node) error {
	if n.Kind() == Object {
		n = n.Get("name")
	}
	s, err := n.Str()
	*l = label(strings.ToUpper(s))
	return err
}

const scenarioYAML = `version: 2
id: s1
checks:
  - name: first
    params: {tools: [grep, jq]}
    input: plain text
    weight: 0.35
    raw: {b: [1, 2.50], a: "x"}
    count: 7
  - name: second
    input: {messages: [hi]}
    weight: "1.5"
tags: {team: infra}
meta: {n: 1.50, l: [true, ~]}
limit: 5
pair: [true, false]
data: aGk=
ratio: 0.25
kind: {name: deploy}
`

func TestDecode(t *testing.T) {
	n := mustYAML(t, scenarioYAML)
	var s testScenario
	if err := Decode(n, &s); err != nil {
		t.Fatal(err)
	}
	if s.Version != 2 || s.ID != "s1" || len(s.Checks) != 2 || s.Tags["team"] != "infra" || *s.Limit != 5 ||
		s.Pair != [2]bool{true, false} || string(s.Data) != "hi" || s.Ratio != 0.25 || s.Kind != "DEPLOY" {
		t.Errorf("decoded %+v", s)
	}
	first, second := s.Checks[0], s.Checks[1]
	if strings.Join(first.Params.Tools, ",") != "grep,jq" || first.Count != 7 || first.Input.Kind() != String ||
		second.Input.Kind() != Object || second.Input.Get("messages").Len() != 1 {
		t.Errorf("checks %+v", s.Checks)
	}
	if *first.Weight != decimal.MustParse("0.35") || *second.Weight != decimal.MustParse("1.5") {
		t.Errorf("weights %v %v", first.Weight, second.Weight)
	}
	if string(first.Raw) != `{"b":[1,2.50],"a":"x"}` {
		t.Errorf("raw %s", first.Raw)
	}
	if want := map[string]any{"n": json.Number("1.50"), "l": []any{true, nil}}; !reflect.DeepEqual(s.Meta, want) {
		t.Errorf("meta %#v", s.Meta)
	}
	if p := first.Input.Pos(); p.Line != 6 || p.Column != 12 {
		t.Errorf("input position %v", p)
	}
}

// A JSON raw member keeps its text as written, escapes and all.
func TestDecodeRawKeepsText(t *testing.T) {
	var v struct {
		Data Raw `json:"data"`
	}
	if err := Decode(mustJSON(t, "{\"data\": {\"s\": \"caf\\u00e9\",\n \"n\": 1.0E+2}}"), &v); err != nil {
		t.Fatal(err)
	}
	if string(v.Data) != `{"s":"caf\u00e9","n":1.0E+2}` {
		t.Errorf("raw %s", v.Data)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"wrong types", "id: 1\nchecks:\n  - name: a\n    params: {tools: grep}\n    count: 300\n  - x\npair: [true]\n", []string{
			"s.yaml:1:5: id: want a string, got a number",
			"s.yaml:4:21: checks[0].params.tools: want an array of strings, got a string",
			"s.yaml:5:12: checks[0].count: want an integer within the range of int8, got 300",
			"s.yaml:6:5: checks[1]: want an object, got a string",
			"s.yaml:7:7: pair: want 2 items, got 1",
		}},
		{"unknown and missing fields", "id: s\nchecks:\n  - params: {tool: x}\n    nmae: typo\n", []string{
			"s.yaml:3:14: checks[0].params.tool: unknown field (known: tools)",
			"s.yaml:4:5: checks[0].nmae: unknown field (known: name, params, input, weight, raw, count)",
			"s.yaml:3:5: checks[0].name: missing required field",
		}},
		{"null is absent", "id: ~\n", []string{"s.yaml:1:1: id: missing required field"}},
		{"decimal out of its places", "id: s\nchecks: [{name: a, weight: 0.1234567}]\n", []string{
			`s.yaml:2:28: checks[0].weight: decimal: invalid number: "0.1234567"`,
		}},
		{"not base64", "id: s\ndata: '!!'\n", []string{"s.yaml:2:7: data: want base64 text: illegal base64 data at input byte 0"}},
		{"an Unmarshaler's error", "id: s\nkind: 3\n", []string{"s.yaml:2:7: kind: want a string, got a number"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := ParseYAML("s.yaml", []byte(tc.yaml), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var s testScenario
			err = Decode(n, &s)
			if got, want := fmt.Sprint(err), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("no *Error in %v", err)
			}
		})
	}
}

func TestDecodeClasses(t *testing.T) {
	var s testScenario
	err := Decode(mustJSON(t, `{"id": 1, "nope": 2}`), &s)
	if !errors.Is(err, ErrType) || !errors.Is(err, ErrUnknownField) {
		t.Errorf("classes of %v", err)
	}
	var withExtra struct {
		ID    string `json:"id"`
		Other Extra
	}
	if err := Decode(mustJSON(t, `{"z": 1, "id": "x", "a": [true]}`), &withExtra); err != nil {
		t.Fatal(err)
	}
	if len(withExtra.Other) != 2 || withExtra.Other[0].Key != "z" || withExtra.Other[1].KeyPos().Column != 21 {
		t.Errorf("extra %+v", withExtra.Other)
	}
	if err := Decode(mustJSON(t, `1`), s); err == nil {
		t.Error("Decode into a non-pointer")
	}
	var many []int
	err = Decode(mustJSON(t, "["+strings.Repeat(`"x",`, 50)+`"x"]`), &many)
	if got := strings.Count(err.Error(), "\n") + 1; got != maxDecodeErrors {
		t.Errorf("%d errors reported, want %d", got, maxDecodeErrors)
	}
}
