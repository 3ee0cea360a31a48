package recorder

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTreeDuplicateKeys: a member given twice is an error naming file, line and member, in
// JSON and in YAML, also after many members.
func TestTreeDuplicateKeys(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		yaml bool
		line int
	}{
		{"json", "{\"a\": 1,\n\"a\": 2}", false, 2},
		{"yaml", "a: 1\na: 2\n", true, 2},
		{"json after many members", wideJSON(1000) + ",\n\"k7\": 0}", false, 1001},
		{"yaml after many members", wideYAMLDoc(1000) + "k7: 0\n", true, 1001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.yaml {
				_, err = parseYAML("doc", []byte(tt.doc))
			} else {
				_, err = parseJSON("doc", []byte(tt.doc), nil)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError", err)
			}
			if ie.File != "doc" || ie.Line != tt.line || !strings.Contains(ie.Msg, "duplicate") {
				t.Errorf("got %s line %d field %q: %s; want doc line %d, a duplicate", ie.File, ie.Line, ie.Field, ie.Msg, tt.line)
			}
		})
	}
}

// BenchmarkTreeWideObject parses objects of 100,000 members: duplicate detection must stay
// linear in the number of members.
func BenchmarkTreeWideObject(b *testing.B) {
	jsonDoc := []byte(wideJSON(100_000) + "}")
	yamlDoc := []byte(wideYAMLDoc(100_000))
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(jsonDoc)))
		for b.Loop() {
			if _, err := parseJSON("wide.json", jsonDoc, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yaml", func(b *testing.B) {
		b.SetBytes(int64(len(yamlDoc)))
		for b.Loop() {
			if _, err := parseYAML("wide.yaml", yamlDoc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// wideJSON is an unterminated JSON object of n members, one a line: "{" then "k0": 0 … .
func wideJSON(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "\"k%d\": 0", i)
	}
	return b.String()
}

// wideYAMLDoc is a YAML mapping of n members, one a line.
func wideYAMLDoc(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: 0\n", i)
	}
	return b.String()
}
