package profiles

import (
	"errors"
	"testing"
)

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.yaml", Line: 4, Scenario: "s-1", Field: "tier", Message: "bad"}, "a.yaml:4: s-1: tier: bad"},
		{Diagnostic{File: "profile.md", Message: "no schema"}, "profile.md: no schema"},
		{Diagnostic{File: "p.md", Line: 3, Message: "stale"}, "p.md:3: stale"},
		{Diagnostic{Message: "whole profile"}, "whole profile"},
	}
	for _, tc := range tests {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestValidationError(t *testing.T) {
	d := &diagnostics{}
	d.warnf("w", at{file: "b.md", line: 2}, "a warning")
	d.errorf("e", at{file: "b.md", line: 9}, "second")
	d.errorf("e", at{file: "a.md", line: 1}, "first")
	d.errorf("e", at{file: "a.md", line: 1}, "first") // reported twice, listed once
	err := &ValidationError{Diagnostics: d.sorted()}
	want := "profiles: invalid profile: 2 error(s)\n  a.md:1: first\n  b.md:9: second"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, ErrInvalidProfile) || len(err.Diagnostics) != 3 {
		t.Errorf("errors.Is = %t, %d diagnostics", errors.Is(err, ErrInvalidProfile), len(err.Diagnostics))
	}
}
