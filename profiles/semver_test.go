package profiles

import (
	"errors"
	"slices"
	"testing"
)

func TestParseVersion(t *testing.T) {
	good := []string{"0.2.0-rc3", "1.0.0-rc1.5", "1.0.0", "10.20.30+build.1", "1.0.0-alpha-1"}
	for _, s := range good {
		v, err := ParseVersion(s)
		if err != nil || v.String() != s {
			t.Errorf("ParseVersion(%q) = %v, %v", s, v, err)
		}
	}
	bad := []string{"", "v1.0.0", "1.0", "1.0.0.0", "01.0.0", "1.0.0-", "1.0.0-rc..1", "1.0.0-01", "1.0.0+", "1.x.0"}
	for _, s := range bad {
		if _, err := ParseVersion(s); !errors.Is(err, ErrInvalidVersion) {
			t.Errorf("ParseVersion(%q) err = %v, want ErrInvalidVersion", s, err)
		}
	}
}

// TestVersionOrder checks the precedence example of semver.org §11.
func TestVersionOrder(t *testing.T) {
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0-rc1", "1.0.0-rc1.5", "1.0.0", "1.0.1", "1.1.0"}
	var vs []Version
	for _, s := range order {
		v, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if !slices.IsSortedFunc(vs, Version.Compare) {
		t.Error("versions are not in semver order")
	}
	for i := 1; i < len(vs); i++ {
		if vs[i-1].Compare(vs[i]) >= 0 {
			t.Errorf("%s !< %s", vs[i-1], vs[i])
		}
	}
}

func TestConstraint(t *testing.T) {
	c, err := ParseConstraint("≥ 1.0.0-rc1.5")
	if err != nil || c.String() != ">=1.0.0-rc1.5" {
		t.Fatalf("ParseConstraint = %v, %v", c, err)
	}
	tests := []struct {
		version string
		ok      bool
	}{
		{"1.0.0-rc1.5", true}, {"1.0.0-rc1.12", true}, {"1.0.0", true}, {"1.0.0-rc1", false}, {"0.4.0", false},
	}
	for _, tc := range tests {
		v, _ := ParseVersion(tc.version)
		if got := c.Allows(v); got != tc.ok {
			t.Errorf("%s allows %s = %t", c, tc.version, got)
		}
	}
	for _, s := range []string{"=1.0.0", "1.0.0", "<2.0.0", ">0.1.0", "<=1.0.0"} {
		if _, err := ParseConstraint(s); err != nil {
			t.Errorf("ParseConstraint(%q): %v", s, err)
		}
	}
	if _, err := ParseConstraint(">= one"); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("bad constraint err = %v", err)
	}
}
