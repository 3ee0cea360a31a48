package doc

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllLines returns, for each call to Next up to io.EOF, "line N: compact" or the error.
func readAllLines(t *testing.T, r io.Reader, lim Limits) []string {
	t.Helper()
	l := NewLines("log.jsonl", r, lim)
	var out []string
	for range 100 {
		n, err := l.Next()
		switch {
		case err == io.EOF:
			return out
		case err != nil:
			out = append(out, "error: "+err.Error())
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %v is not an *Error", err)
			}
			if e != nil && !errors.Is(e.Err, ErrSyntax) && !errors.Is(e.Err, ErrLimit) && !errors.Is(e.Err, ErrDuplicateKey) {
				return out // a read error stops the reader
			}
		default:
			out = append(out, "line "+strconv.Itoa(l.Line())+": "+string(n.Compact()))
		}
	}
	t.Fatal("Next never returned io.EOF")
	return nil
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"plain", "{\"a\":1}\n[2]\n", []string{`line 1: {"a":1}`, `line 2: [2]`}},
		{"blank lines and CRLF", "\n{\"a\": 1}\r\n  \r\n\"x\"\r\n\n", []string{`line 2: {"a":1}`, `line 4: "x"`}},
		{"last line without newline", "1\n2", []string{"line 1: 1", "line 2: 2"}},
		{"bad line in the middle", "1\n{\"a\":}\n3\n", []string{
			"line 1: 1",
			"error: log.jsonl:2:6: a: unexpected character '}', want a value",
			"line 3: 3"}},
		{"duplicate key", "{\"a\":1,\"a\":2}\n", []string{`error: log.jsonl:1:8: a: duplicate key "a" (first at line 1, column 2)`}},
		{"truncated last line", "{\"a\":1}\n{\"b\": [1, 2", []string{
			`line 1: {"a":1}`,
			"error: log.jsonl:2:12: b: the last line is truncated: it ends in the middle of a JSON value, without a newline (unexpected end of input, want ',' or ']')"}},
		{"unterminated line that has its newline", "{\"b\": [1, 2\n3\n", []string{
			"error: log.jsonl:1:12: b: unexpected end of input, want ',' or ']'",
			"line 2: 3"}},
		{"two values on a line", "1 2\n", []string{"error: log.jsonl:1:3: unexpected character '2' after the JSON value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readAllLines(t, iotest.OneByteReader(strings.NewReader(tc.in)), Limits{})
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestLinesPositions(t *testing.T) {
	l := NewLines("log.jsonl", strings.NewReader("{}\n\n  {\"é\": [true]}\n"), Limits{})
	l.Next()
	n, err := l.Next()
	if err != nil {
		t.Fatal(err)
	}
	item := n.Get("é").Index(0)
	if want := (Pos{File: "log.jsonl", Line: 3, Column: 10, Offset: 14}); item.Pos() != want {
		t.Errorf("Pos %+v, want %+v", item.Pos(), want)
	}
	if want := (Pos{File: "log.jsonl", Line: 3, Column: 4, Offset: 7}); n.Member("é").KeyPos() != want {
		t.Errorf("KeyPos %+v, want %+v", n.Member("é").KeyPos(), want)
	}
}

func TestLinesTooLong(t *testing.T) {
	in := "[1]\n[\"" + strings.Repeat("x", 100) + "\"]\n[3]\n" + strings.Repeat("y", 50)
	got := readAllLines(t, iotest.HalfReader(strings.NewReader(in)), Limits{MaxBytes: 20})
	want := []string{
		"line 1: [1]",
		"error: log.jsonl:2:1: the line is longer than the limit (Limits.MaxBytes is 20)",
		"line 3: [3]",
		"error: log.jsonl:4:1: the line is longer than the limit (Limits.MaxBytes is 20)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLinesReadError(t *testing.T) {
	broken := io.MultiReader(strings.NewReader("1\n"), iotest.ErrReader(errors.New("disk on fire")))
	l := NewLines("log.jsonl", broken, Limits{})
	if n, err := l.Next(); err != nil || n.Text() != "1" {
		t.Fatalf("first line: %v, %v", n, err)
	}
	_, err := l.Next()
	if err == nil || err.Error() != "log.jsonl:2: read: disk on fire" {
		t.Errorf("read error: %v", err)
	}
	if _, again := l.Next(); again != err {
		t.Errorf("after a read error Next returns %v, want the same error", again)
	}
}
