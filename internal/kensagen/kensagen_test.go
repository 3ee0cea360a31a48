package kensagen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One seed is one scenario, byte for byte: a failing seed reproduces.
func TestGenerateIsAFunctionOfTheSeed(t *testing.T) {
	for seed := range uint64(200) {
		a, b := Generate(seed, Config{}), Generate(seed, Config{})
		if a.Describe() != b.Describe() || !slices.Equal(a.Features, b.Features) || a.Runs != b.Runs {
			t.Fatalf("seed %d generated two different scenarios", seed)
		}
	}
	if Generate(1, Config{}).Describe() == Generate(2, Config{}).Describe() {
		t.Error("seeds 1 and 2 generated the same scenario")
	}
}

// A few hundred seeds use all ten check types and every feature.
func TestGenerateCoversEverything(t *testing.T) {
	types, features := map[string]int{}, map[string]int{}
	for seed := range uint64(600) {
		s := Generate(seed, Config{})
		for _, line := range strings.Split(s.body, "\n") {
			if typ, ok := strings.CutPrefix(strings.TrimSpace(line), "- type: "); ok {
				types[typ]++
			}
		}
		for _, f := range s.Features {
			features[f]++
		}
	}
	for _, typ := range checkTypes {
		if types[typ] == 0 {
			t.Errorf("no scenario has a %s check", typ)
		}
	}
	for _, f := range allFeatures {
		if features[f] == 0 {
			t.Errorf("no scenario uses %s", f)
		}
	}
}

// An excluded feature is never generated.
func TestGenerateExcludes(t *testing.T) {
	for _, f := range allFeatures {
		if f == FeatureTSNanos {
			continue // the form every other form falls back to
		}
		cfg := Config{Exclude: []string{f}}
		for seed := range uint64(300) {
			if s := Generate(seed, cfg); slices.Contains(s.Features, f) {
				t.Fatalf("seed %d uses %s, excluded", seed, f)
			}
		}
	}
}

func TestPyRepr(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{{0, "0.0"}, {2.5, "2.5"}, {100, "100.0"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1.7955588031e18, "1.7955588031e+18"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1795558803.125, "1795558803.125"}, {-3, "-3.0"}} {
		if got := pyRepr(tt.f); got != tt.want {
			t.Errorf("pyRepr(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestPyDumps(t *testing.T) {
	o := obj{}.with("q", "ask ß #r0# \"x\"\n🎉\x7f").with("n", 2)
	want := `{"q": "ask \u00df #r0# \"x\"\n\ud83c\udf89\u007f", "n": 2}`
	if got := pyDumpsObj(o); got != want {
		t.Errorf("pyDumpsObj = %s, want %s", got, want)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return
	}
	out, err := exec.Command("python3", "-c", `import json; print(json.dumps({"q": "ask ß #r0# \"x\"\n🎉\x7f", "n": 2}))`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("python3's json.dumps = %s, want %s", got, want)
	}
}

// The agent picks the behaviour the input's tag names, writes its spans with the tokens
// replaced, its stdout as bytes, and exits with its status.
func TestAgent(t *testing.T) {
	dir := t.TempDir()
	bs := `{"by_tag": {"3": {"spans": "{\"x\": \"@@ARGC@@ @@ARG@@ @@ENV:KGEN_T@@\"}\n", "stdout": "/w==", "exit": 4}},
		"default": {"no_file": true, "stdout": "ZGVm", "exit": 0}}`
	file := filepath.Join(dir, "b.json")
	if err := os.WriteFile(file, []byte(bs), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := filepath.Join(dir, "traces")
	if err := os.Mkdir(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KENSA_TRACE_DIR", traces)
	t.Setenv("KGEN_T", `a"b`)
	var stdout, stderr bytes.Buffer
	if code := Agent([]string{file, "{{input}}", "ask #r3#"}, &stdout, &stderr); code != 4 {
		t.Fatalf("exit %d, want 4 (%s)", code, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), []byte{0xff}) {
		t.Errorf("stdout %q", stdout.Bytes())
	}
	spans, err := os.ReadFile(filepath.Join(traces, "spans.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"x": "2 ask #r3# a\"b"}` + "\n"; string(spans) != want {
		t.Errorf("spans %s, want %s", spans, want)
	}
	stdout.Reset()
	if code := Agent([]string{file, "no tag"}, &stdout, &stderr); code != 0 || stdout.String() != "def" {
		t.Errorf("default behaviour: exit %d, stdout %q", code, stdout.String())
	}
}
