package profiles

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrInvalidVersion: a string is not a semantic version or version constraint.
var ErrInvalidVersion = errclass.New(errclass.Input, "profiles: invalid version")

// Version is a semantic version (semver.org 2.0.0): profile, scenario and core spec versions
// are semver (Profiles §5, Scenarios §1.1).
type Version struct {
	Major, Minor, Patch uint64
	// Pre holds the dot-separated pre-release identifiers ("rc1", "5" for "-rc1.5").
	Pre []string
	// Build is the build metadata after "+", ignored in comparisons.
	Build string
}

// ParseVersion parses "MAJOR.MINOR.PATCH[-PRE][+BUILD]" strictly: no "v" prefix, no leading
// zeros, no empty identifiers.
func ParseVersion(s string) (Version, error) {
	var v Version
	rest, build, hasBuild := strings.Cut(s, "+")
	if hasBuild {
		if !validIdentifiers(build, false) {
			return v, fmt.Errorf("%w: %q: bad build metadata", ErrInvalidVersion, s)
		}
		v.Build = build
	}
	core, pre, hasPre := strings.Cut(rest, "-")
	if hasPre {
		if !validIdentifiers(pre, true) {
			return v, fmt.Errorf("%w: %q: bad pre-release", ErrInvalidVersion, s)
		}
		v.Pre = strings.Split(pre, ".")
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("%w: %q is not MAJOR.MINOR.PATCH", ErrInvalidVersion, s)
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, ok := numericIdentifier(p)
		if !ok {
			return v, fmt.Errorf("%w: %q: %q is not a number", ErrInvalidVersion, s, p)
		}
		*nums[i] = n
	}
	return v, nil
}

func numericIdentifier(p string) (uint64, bool) {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(p, 10, 64)
	return n, err == nil
}

// validIdentifiers checks dot-separated [0-9A-Za-z-] identifiers; pre-release numeric
// identifiers may not have leading zeros.
func validIdentifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		allDigits := true
		for _, c := range id {
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				allDigits = false
			default:
				return false
			}
		}
		if pre && allDigits && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// String renders the version as parsed.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// Compare orders versions by semver precedence (semver.org §11): a pre-release sorts before
// its release; build metadata is ignored.
func (v Version) Compare(w Version) int {
	if c := cmp.Or(cmp.Compare(v.Major, w.Major), cmp.Compare(v.Minor, w.Minor), cmp.Compare(v.Patch, w.Patch)); c != 0 {
		return c
	}
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := comparePreIdentifier(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(v.Pre), len(w.Pre))
}

// comparePreIdentifier: numeric identifiers compare numerically and sort before
// alphanumeric ones, which compare in ASCII order.
func comparePreIdentifier(a, b string) int {
	an, aNum := numericIdentifier(a)
	bn, bNum := numericIdentifier(b)
	switch {
	case aNum && bNum:
		return cmp.Compare(an, bn)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(a, b)
}

// Constraint is a version requirement such as ">=1.0.0-rc1.5", the form profiles use for their
// core dependency and the conformance contract for oasis_core_spec_version.
type Constraint struct {
	// Op is one of ">=", ">", "<=", "<", "=".
	Op      string
	Version Version
}

// ParseConstraint parses an operator and a version, with or without spaces between them.
// The Markdown spellings "≥" and "≤" are accepted; a bare version means "=".
func ParseConstraint(s string) (Constraint, error) {
	t := strings.TrimSpace(s)
	t = strings.NewReplacer("≥", ">=", "≤", "<=").Replace(t)
	var c Constraint
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if rest, ok := strings.CutPrefix(t, op); ok {
			c.Op, t = op, strings.TrimSpace(rest)
			break
		}
	}
	if c.Op == "" {
		c.Op = "="
	}
	v, err := ParseVersion(t)
	if err != nil {
		return Constraint{}, fmt.Errorf("%w: constraint %q", ErrInvalidVersion, s)
	}
	c.Version = v
	return c, nil
}

// String renders the constraint without spaces: ">=1.0.0-rc1.5".
func (c Constraint) String() string { return c.Op + c.Version.String() }

// Allows reports whether v satisfies the constraint.
func (c Constraint) Allows(v Version) bool {
	r := v.Compare(c.Version)
	switch c.Op {
	case ">=":
		return r >= 0
	case ">":
		return r > 0
	case "<=":
		return r <= 0
	case "<":
		return r < 0
	}
	return r == 0
}

// Line reads a pre-release as oasisctl's version matcher does: a class that starts with a
// letter ("rc1") and an optional iteration ("5" in "rc1.5", 0 when absent). rc1 and rc2 are
// different lines; within a line the iteration orders releases. ok is false for a final
// release and for pre-releases not of that form ("rc" alone, "1.2", "rc1.x", "rc1.2.3").
func (v Version) Line() (class string, iteration uint64, ok bool) {
	if len(v.Pre) == 0 || len(v.Pre) > 2 {
		return "", 0, false
	}
	class = v.Pre[0]
	if c := class[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') || class == "rc" {
		return "", 0, false
	}
	if len(v.Pre) == 2 {
		if iteration, ok = numericIdentifier(v.Pre[1]); !ok {
			return "", 0, false
		}
	}
	return class, iteration, true
}

// SameLine reports whether v and w are pre-releases of one line: the same major, minor and
// patch and the same pre-release class.
func (v Version) SameLine(w Version) bool {
	vc, _, vok := v.Line()
	wc, _, wok := w.Line()
	return vok && wok && vc == wc && v.Major == w.Major && v.Minor == w.Minor && v.Patch == w.Patch
}
