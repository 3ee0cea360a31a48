package textout

import (
	"errors"
	"strings"
	"testing"
)

// failingWriter accepts one write and fails every later one.
type failingWriter struct{ calls int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls > 1 {
		return 0, errDiskFull
	}
	return len(p), nil
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	p := New(&b)
	p.Line("a %d", 1)
	p.Line("b")
	if b.String() != "a 1\nb\n" || p.Err() != nil {
		t.Fatalf("got %q, %v", b.String(), p.Err())
	}

	fw := &failingWriter{}
	p = New(fw)
	p.Line("one")
	p.Line("two")
	p.Line("three")
	if !errors.Is(p.Err(), errDiskFull) || fw.calls != 2 {
		t.Fatalf("got %v after %d writes; want the first error, and no write after it", p.Err(), fw.calls)
	}

	p = New(&b)
	p.Fail(errDiskFull)
	p.Fail(errors.New("later"))
	p.Line("dropped")
	if !errors.Is(p.Err(), errDiskFull) || strings.Contains(b.String(), "dropped") {
		t.Fatalf("Fail: got %v, output %q", p.Err(), b.String())
	}
}
