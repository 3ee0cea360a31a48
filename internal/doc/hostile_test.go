//go:build linux

package doc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileCases build hostile inputs and say which limit must refuse them ("" when the input
// is within the limits and must be read). Each runs in a process of its own so that its peak
// resident set size can be measured.
var hostileCases = map[string]struct {
	limit string
	// long marks the cases that take more than a few seconds, run with OASIS_REPLAY_LONG=1.
	long bool
	run  func() error
}{
	"json-key-100MB": {"MaxKeyBytes", false, func() error {
		return parseJSONBytes(repeated(`{"`, "k", 100<<20, `":1}`), Limits{MaxBytes: 1 << 30})
	}},
	"json-key-100MB-defaults": {"MaxBytes", true, func() error {
		return parseJSONBytes(repeated(`{"`, "k", 100<<20, `":1}`), Limits{})
	}},
	"json-escaped-string-100MB": {"MaxStringBytes", true, func() error {
		return parseJSONBytes(repeated(`["\n`, `\u0041`, 100<<20/6, `"]`), Limits{MaxBytes: 1 << 30})
	}},
	"json-number-100MB": {"MaxNumberBytes", true, func() error {
		return parseJSONBytes(repeated(`[1`, "0", 100<<20, `]`), Limits{MaxBytes: 1 << 30})
	}},
	"json-deep": {"MaxDepth", false, func() error {
		return parseJSONBytes(repeated("", "[", 30<<20, ""), Limits{})
	}},
	"json-wide-array": {"MaxNodes", false, func() error {
		return parseJSONBytes(repeated("[", "0,", 15<<20, "0]"), Limits{})
	}},
	"json-wide-object": {"MaxNodes", true, func() error {
		b := make([]byte, 0, 30<<20+16)
		b = append(b, '{')
		for i := 0; len(b) < 30<<20; i++ {
			b = fmt.Appendf(b, `"%x":[],`, i)
		}
		return parseJSONBytes(append(b, `"":0}`...), Limits{})
	}},
	// The most memory a document within the default limits can take: as many members as
	// MaxNodes allows, with names and values that fill MaxBytes.
	"json-largest-accepted": {"", true, func() error {
		members := DefaultLimits.MaxNodes/2 - 1
		pad := strings.Repeat("v", 50)
		b := make([]byte, 0, members*(2*len(pad)+16)+16)
		b = append(b, '{')
		for i := range members {
			b = fmt.Appendf(b, `"%s%08x":"%s",`, pad, i, pad)
		}
		b = append(b, `"":0}`...)
		if int64(len(b)) > DefaultLimits.MaxBytes {
			return fmt.Errorf("input of %d bytes", len(b))
		}
		return parseJSONBytes(b, Limits{})
	}},
	"yaml-alias-bomb": {"MaxAliasNodes", false, func() error {
		return parseYAMLBytes([]byte(aliasBomb), Limits{})
	}},
	"yaml-flow-map": {"MaxNodes", true, func() error {
		return parseYAMLBytes(repeated("{", "a,", 15<<20, "b}"), Limits{})
	}},
	// Values up to the bound MaxNodes is checked against before yaml.v3 runs: its own tree is
	// the larger part of the memory. A flow mapping of keys without values is the densest.
	"yaml-largest-accepted": {"", true, func() error {
		b := []byte("{")
		for i := 0; i < DefaultLimits.MaxNodes/4; i++ {
			b = fmt.Appendf(b, "%x,", i)
		}
		b = append(b, "z}"...)
		if bound := yamlValueBound(b); bound > DefaultLimits.MaxNodes {
			return fmt.Errorf("bound %d", bound)
		}
		return parseYAMLBytes(b, Limits{})
	}},
	"jsonl-long-line": {"MaxBytes", true, func() error {
		data := io.MultiReader(strings.NewReader(`{"a":"`), &repeatReader{unit: []byte("x"), n: 200 << 20}, strings.NewReader("\"}\n{}\n"))
		l := NewLines("hostile.jsonl", data, Limits{})
		_, err := l.Next()
		if n, next := l.Next(); next != nil || n.Kind() != Object {
			return fmt.Errorf("the line after a long one: %v, %v", n, next)
		}
		return err
	}},
}

// repeated builds head, n copies of unit and tail in one allocation.
func repeated(head, unit string, n int, tail string) []byte {
	b := make([]byte, 0, len(head)+n*len(unit)+len(tail))
	b = append(b, head...)
	for range n {
		b = append(b, unit...)
	}
	return append(b, tail...)
}

// repeatReader reads n copies of unit without holding them.
type repeatReader struct {
	unit []byte
	n    int
	at   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.unit[r.at:])
		k += c
		if r.at += c; r.at == len(r.unit) {
			r.at = 0
			r.n--
		}
	}
	return k, nil
}

func parseJSONBytes(data []byte, lim Limits) error {
	_, err := ParseJSON("hostile.json", data, lim)
	return err
}

func parseYAMLBytes(data []byte, lim Limits) error {
	_, err := ParseYAML("hostile.yaml", data, lim)
	return err
}

// maxHostileRSS is the budget of DESIGN §7: hostile input ≤ 256 MiB.
const maxHostileRSS = 256 << 20

// TestHostileInputMemory runs each hostile case in a child process and checks that the right
// limit refuses it, and that the child's peak resident set stays within 256 MiB.
func TestHostileInputMemory(t *testing.T) {
	if name := os.Getenv("DOC_HOSTILE_CASE"); name != "" {
		return // the child runs it in TestHostileChild
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from the child's rusage on Linux")
	}
	if testing.Short() {
		t.Skip("builds inputs of up to 200 MB")
	}
	long := os.Getenv("OASIS_REPLAY_LONG") == "1"
	for _, name := range sortedKeys(hostileCases) {
		t.Run(name, func(t *testing.T) {
			if hostileCases[name].long && !long {
				t.Skip("set OASIS_REPLAY_LONG=1 to run it")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChild$", "-test.v")
			cmd.Env = append(os.Environ(), "DOC_HOSTILE_CASE="+name)
			// The child dies with this process, whatever ends it.
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("peak RSS %d MiB: %s", rss>>20, strings.TrimSpace(lastLine(string(out))))
			if rss > maxHostileRSS {
				t.Errorf("peak RSS %d MiB, more than %d MiB", rss>>20, maxHostileRSS>>20)
			}
		})
	}
}

func TestHostileChild(t *testing.T) {
	name := os.Getenv("DOC_HOSTILE_CASE")
	if name == "" {
		t.Skip("run by TestHostileInputMemory")
	}
	c := hostileCases[name]
	err := c.run()
	switch {
	case c.limit == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case c.limit != "" && (!errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "Limits."+c.limit+" ")):
		t.Fatalf("got %v, want an error naming Limits.%s", err, c.limit)
	}
	fmt.Printf("RESULT %v\n", shorten(err))
}

func shorten(err error) string {
	if err == nil {
		return "accepted"
	}
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func lastLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "RESULT ") {
			return line
		}
	}
	return s
}
