package doc

import (
	"errors"
	"strings"
	"testing"
)

func TestJSONLimits(t *testing.T) {
	for _, tc := range []struct {
		json string
		lim  Limits
		want string // "" when within the limits
	}{
		{`[[1]]`, Limits{MaxDepth: 2}, ""},
		{`[[[1]]]`, Limits{MaxDepth: 2}, "t.json:1:3: [0][0]: arrays and objects nest deeper than the limit (Limits.MaxDepth is 2)"},
		{`{"a":{"b":{}}}`, Limits{MaxDepth: 2}, "t.json:1:11: a.b: arrays and objects nest deeper than the limit (Limits.MaxDepth is 2)"},
		{`{"abcde":1}`, Limits{MaxKeyBytes: 5}, ""},
		{`{"abcdef":1}`, Limits{MaxKeyBytes: 5}, "t.json:1:2: a member name is longer than the limit (Limits.MaxKeyBytes is 5)"},
		{`{"\u0061bcde":1}`, Limits{MaxKeyBytes: 5}, ""},
		{`{"\u0061bcdef":1}`, Limits{MaxKeyBytes: 5}, "t.json:1:2: a member name is longer than the limit (Limits.MaxKeyBytes is 5)"},
		{`["éé"]`, Limits{MaxStringBytes: 4}, ""},
		{`["ééé"]`, Limits{MaxStringBytes: 4}, "t.json:1:2: [0]: a string is longer than the limit (Limits.MaxStringBytes is 4)"},
		{`["\ud83d\ude00"]`, Limits{MaxStringBytes: 4}, ""},
		{`["\ud83d\ude00x"]`, Limits{MaxStringBytes: 4}, "t.json:1:2: [0]: a string is longer than the limit (Limits.MaxStringBytes is 4)"},
		{`[12345]`, Limits{MaxNumberBytes: 5}, ""},
		{`[-1234]`, Limits{MaxNumberBytes: 5}, ""},
		{`[1.2345]`, Limits{MaxNumberBytes: 5}, "t.json:1:2: [0]: a number literal is longer than the limit (Limits.MaxNumberBytes is 5)"},
		{`[1,[2]]`, Limits{MaxNodes: 4}, ""},
		{`[1,[2,3]]`, Limits{MaxNodes: 4}, "t.json:1:7: [1][1]: the document has more values than the limit (Limits.MaxNodes is 4)"},
		{`[1]`, Limits{MaxBytes: 3}, ""},
		{`[1] `, Limits{MaxBytes: 3}, "t.json: the document has 4 bytes (Limits.MaxBytes is 3)"},
	} {
		_, err := ParseJSON("t.json", []byte(tc.json), tc.lim)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s with %+v: %v", tc.json, tc.lim, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrLimit)):
			t.Errorf("%s with %+v:\n got %v\nwant %s", tc.json, tc.lim, err, tc.want)
		case tc.want != "" && !strings.Contains(tc.want, "(Limits."+err.(*Error).Limit+" is "):
			t.Errorf("%s with %+v: Error.Limit is %q", tc.json, tc.lim, err.(*Error).Limit)
		}
	}
}

// TestYAMLDepthBeyondTheParser: a nesting deeper than yaml.v3's own limit (10,000), which its
// scanner refuses before any node is built, is a limit error naming MaxDepth, at its line.
func TestYAMLDepthBeyondTheParser(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"flow", "a: " + strings.Repeat("[", 10_001), "t.yaml: arrays and objects nest deeper than the limit (Limits.MaxDepth is 512)"},
		{"block", "\n" + strings.Repeat("- ", 10_001) + "1\n", "t.yaml:2: arrays and objects nest deeper than the limit (Limits.MaxDepth is 512)"},
	} {
		_, err := ParseYAML("t.yaml", []byte(tc.yaml), Limits{})
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrLimit) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

func TestLimitsDefaultsAndPanics(t *testing.T) {
	if got := (Limits{MaxDepth: 3}).resolve(); got.MaxDepth != 3 || got.MaxBytes != DefaultLimits.MaxBytes || got.MaxAliasNodes != DefaultLimits.MaxAliasNodes {
		t.Errorf("resolve: %+v", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "MaxNodes") {
			t.Errorf("a negative limit: recovered %v", r)
		}
	}()
	Limits{MaxNodes: -1}.resolve()
}
