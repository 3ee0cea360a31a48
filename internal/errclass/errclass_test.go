package errclass

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

var (
	errInput     = New(Input, "pkg: bad input")
	errNotFound  = New(NotFound, "pkg: not found")
	errIntegrity = New(Integrity, "pkg: corrupt")
	errInternal  = New(Internal, "pkg: defect")
)

// classified is an error type with a class of its own that wraps a sentinel of another.
type classified struct{ err error }

func (c classified) Error() string     { return "classified: " + c.err.Error() }
func (c classified) Unwrap() error     { return c.err }
func (c classified) ErrorClass() Class { return InUse }

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, Unclassified},
		{"foreign error", fs.ErrNotExist, Unclassified},
		{"sentinel", errNotFound, NotFound},
		{"wrapped", fmt.Errorf("open bundle x: %w", errNotFound), NotFound},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", errIntegrity)), Integrity},
		{"foreign cause under a sentinel", fmt.Errorf("%w: %w", errInput, fs.ErrPermission), Input},
		{"wrapper ranks below its cause", fmt.Errorf("%w: %w", errInput, errNotFound), NotFound},
		{"cause ranks below the wrapper", fmt.Errorf("%w: %w", errInternal, errNotFound), Internal},
		{"integrity wins whatever the order", fmt.Errorf("%w: %w: %w", errInternal, errInput, errIntegrity), Integrity},
		{"joined", errors.Join(errInput, fmt.Errorf("x: %w", errIntegrity)), Integrity},
		{"deep in a join", errors.Join(fs.ErrClosed, errors.Join(errNotFound)), NotFound},
		{"own class", classified{errInput}, InUse},
		{"own class below its cause", classified{errIntegrity}, Integrity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestSentinel: a sentinel behaves as errors.New's values do: its message is exactly the one
// given, errors.Is finds it through wrapping, and two sentinels of the same message and class
// are different errors.
func TestSentinel(t *testing.T) {
	a, b := New(Input, "pkg: same"), New(Input, "pkg: same")
	if a.Error() != "pkg: same" {
		t.Errorf("message %q", a.Error())
	}
	wrapped := fmt.Errorf("file x line 3: %w", a)
	if !errors.Is(wrapped, a) {
		t.Error("errors.Is does not find the sentinel through %w")
	}
	if errors.Is(wrapped, b) || errors.Is(a, b) {
		t.Error("two sentinels made by New compare equal")
	}
	if wrapped.Error() != "file x line 3: pkg: same" {
		t.Errorf("wrapped message %q", wrapped.Error())
	}
}

func TestClassNames(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Classes() {
		if int(c) != i {
			t.Errorf("Classes()[%d] = %v: not in rank order", i, c)
		}
		name := c.String()
		if name == "" || seen[name] {
			t.Errorf("class %d has name %q (empty or repeated)", c, name)
		}
		seen[name] = true
	}
	if got := Class(200).String(); got != "class(200)" {
		t.Errorf("unknown class renders as %q", got)
	}
}
