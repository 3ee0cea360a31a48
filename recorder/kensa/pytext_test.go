package kensa

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// python runs python3 with script and stdin and returns its stdout lines; it skips t without
// python3.
func python(t *testing.T, script string, stdin []byte) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.Bytes())
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// randomBytes is n random byte strings built from pieces that exercise every branch of a
// UTF-8 decoder: ASCII, valid sequences of each length, lead bytes without their
// continuations, stray continuations, overlong and surrogate forms, bytes past U+10FFFF.
func randomBytes(n int) [][]byte {
	pieces := [][]byte{{'a'}, {'\n'}, {'\r'}, {0x1c}, []byte("é"), []byte("€"), []byte("😀"), {0xc3}, {0xe2, 0x82}, {0xf0, 0x9f, 0x98},
		{0x80}, {0xbf}, {0xc0, 0xaf}, {0xc1}, {0xe0, 0x80, 0x80}, {0xe0, 0x9f}, {0xed, 0xa0, 0x80}, {0xf0, 0x8f}, {0xf4, 0x90, 0x80, 0x80},
		{0xf5}, {0xff}, {0xfe}, {0xf8, 0x88, 0x80, 0x80, 0x80}}
	rng := rand.New(rand.NewPCG(21, 3))
	out := make([][]byte, n)
	for i := range out {
		var b []byte
		for range rng.IntN(6) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		out[i] = b
	}
	return out
}

// pyUTF8Error gives python3's UnicodeDecodeError text for every input, and none where python3
// decodes; the universal newlines, strip and splitlines are Python's too.
func TestPyTextIsPython(t *testing.T) {
	inputs := randomBytes(4000)
	var stdin strings.Builder
	for _, b := range inputs {
		stdin.WriteString(hex.EncodeToString(b) + "\n")
	}
	const script = `
import sys, json
for line in sys.stdin:
    b = bytes.fromhex(line.strip())
    try:
        s = b.decode('utf-8')
    except UnicodeDecodeError as e:
        print(json.dumps([str(e)])); continue
    t = s.replace('\r\n', '\n').replace('\r', '\n')
    print(json.dumps(['', t, s.strip(), s.splitlines()]))
`
	lines := python(t, script, []byte(stdin.String()))
	if len(lines) != len(inputs) {
		t.Fatalf("%d answers for %d inputs", len(lines), len(inputs))
	}
	for i, b := range inputs {
		var want []any
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		got := pyUTF8Error(b, false)
		if got != want[0] {
			t.Errorf("%x: error %q, python3 %q", b, got, want[0])
			continue
		}
		if got != "" {
			continue
		}
		s := string(b)
		split := []any{}
		for _, l := range pySplitLines(s) {
			split = append(split, l)
		}
		if pyNewlines(s) != want[1] || pyStrip(s) != want[2] || !equalJSON(split, want[3]) {
			t.Errorf("%q: newlines %q strip %q splitlines %q; python3 %q", s, pyNewlines(s), pyStrip(s), split, want[1:])
		}
	}
	// A prefix cut inside a character is no error; a cut elsewhere still is.
	if got := pyUTF8Error([]byte("ok\xe2\x82"), true); got != "" {
		t.Errorf("cut output: %q", got)
	}
	if got := pyUTF8Error([]byte("ok\xff\xe2\x82"), true); got == "" {
		t.Error("cut output with a bad byte before the cut: no error")
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// loadDotenv reads .env files as Kensa's runner.load_dotenv does (compared with Kensa's own
// function over generated files); the nearest .env walking up wins.
func TestLoadDotenvIsKensas(t *testing.T) {
	pieces := []string{"KEY", "K2", " ", "=", "==", "\"", "'", "#", "export ", "\n", "\r\n", "\r", "\x0b", "\x1c", "\u2028", "\u00a0", "v a", "é", "\t"}
	rng := rand.New(rand.NewPCG(21, 5))
	root := t.TempDir()
	var files []string
	for i := range 300 {
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		dir := filepath.Join(root, "p"+strconv3(i))
		if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, "a", "b"))
	}
	// Kensa's _find_dotenv and load_dotenv, taken from its runner.py as they are (the module
	// itself imports OpenTelemetry).
	const script = `
import sys, os, json
src = open(os.environ["KENSA_RUNNER"]).read()
start = src.index("def _find_dotenv"); end = src.index("def ensure_dotenv_loaded")
ns = {}
exec("from pathlib import Path\n" + src[start:end], ns)
for d in sys.stdin.read().split("\n"):
    if not d: continue
    os.chdir(d)
    print(json.dumps(sorted(ns["load_dotenv"]().items())))
`
	t.Setenv("KENSA_RUNNER", sharedtest.Path(t, "third_party", "kensa-v0.7.0", "src", "kensa", "runner.py"))
	lines := python(t, script, []byte(strings.Join(files, "\n")+"\n"))
	for i, dir := range files {
		d := loadDotenv(dir)
		got := map[string]string{}
		for _, kv := range d.Vars {
			got[kv.Name] = kv.Value
		}
		var pairs [][2]string
		if err := json.Unmarshal([]byte(lines[i]), &pairs); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, p := range pairs {
			want[p[0]] = p[1]
		}
		if !equalJSON(got, want) {
			data, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(dir)), ".env"))
			t.Errorf("%q: %q, Kensa's load_dotenv %q", data, got, want)
		}
	}
	if d := loadDotenv(t.TempDir()); d.Path != "" && !strings.HasPrefix(d.Path, root) {
		t.Logf("a .env above the temporary directory: %s", d.Path)
	}
}

func strconv3(i int) string { return pyvalue.Repr(pyvalue.NewInt(int64(i))) }

// buildArgv is runner._build_command for a list-form run_command: the input appended last, a
// literal "{{input}}" element left as it is (real Kensa's runs of literal_input in
// testdata/behaviours); a run_command written as a string puts the input in place of {{input}}.
func TestBuildArgv(t *testing.T) {
	dict := pyvalue.NewDict([]string{"q", "n"}, []pyvalue.Value{pyvalue.NewStr("é"), pyvalue.NewInt(2)})
	cases := []struct {
		name     string
		command  []string
		fromText bool
		input    pyvalue.Value
		has      bool
		want     []string
	}{
		{"no input", []string{"a", "{{input}}"}, false, pyvalue.Value{}, false, []string{"a", "{{input}}"}},
		{"literal element stays", []string{"a", "{{input}}"}, false, pyvalue.NewStr("x y"), true, []string{"a", "{{input}}", "x y"}},
		{"embedded stays", []string{"a", "--q={{input}}"}, false, pyvalue.NewStr("x"), true, []string{"a", "--q={{input}}", "x"}},
		{"empty string appended", []string{"a"}, false, pyvalue.NewStr(""), true, []string{"a", ""}},
		{"dict as json.dumps", []string{"a"}, false, dict, true, []string{"a", `{"q": "\u00e9", "n": 2}`}},
		{"number as str", []string{"a"}, false, pyvalue.NewInt(7), true, []string{"a", "7"}},
		{"string form substitutes", []string{"a", "{{input}}"}, true, pyvalue.NewStr("x"), true, []string{"a", "x"}},
		{"string form without placeholder appends", []string{"a"}, true, pyvalue.NewStr("x"), true, []string{"a", "x"}},
	}
	for _, c := range cases {
		if got := buildArgv(c.command, c.fromText, c.input, c.has); !equalJSON(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// pyUTF8ErrorOf, reading a buffer at a time, gives what pyUTF8Error gives over the whole,
// wherever a character falls across buffers.
func TestPyUTF8ErrorOfReader(t *testing.T) {
	for _, b := range randomBytes(300) {
		for _, cut := range []bool{false, true} {
			data := append(bytes.Repeat([]byte("é"), (64<<10)/2-1), b...) // characters across the first buffer's end
			want := pyUTF8Error(data, cut)
			got, err := pyUTF8ErrorOf(iotest.OneByteReader(bytes.NewReader(data)), cut)
			if err != nil || got != want {
				t.Fatalf("%x (cut %v): %q %v, want %q", b, cut, got, err, want)
			}
			if got, _ := pyUTF8ErrorOf(bytes.NewReader(data), cut); got != want {
				t.Fatalf("%x (cut %v): %q, want %q", b, cut, got, want)
			}
		}
	}
}

// A PATH set by the .env is where the agent's program is looked for, as Python's subprocess
// looks for it in the environment it passes; otherwise the name is left to kensa run's PATH.
func TestProgramInDotenvPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, program string
		env           []EnvPair
		want          string
	}{
		{"no PATH in .env", "agent", []EnvPair{{"X", "1"}}, "agent"},
		{"found on the .env's PATH", "agent", []EnvPair{{"PATH", "/nowhere:venv/bin"}}, filepath.Join(dir, "venv", "bin", "agent")},
		{"the last PATH wins", "agent", []EnvPair{{"PATH", "venv/bin"}, {"PATH", "/nowhere"}}, "agent"},
		{"a name with a slash", "./agent", []EnvPair{{"PATH", "venv/bin"}}, "./agent"},
		{"not found", "other", []EnvPair{{"PATH", "venv/bin"}}, "other"},
	}
	for _, c := range cases {
		if got := programIn(c.program, c.env, dir); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
