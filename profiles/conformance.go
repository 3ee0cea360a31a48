package profiles

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Conformance is the profile's machine-readable provider conformance contract
// (provider-conformance-requirements.yaml; Profiles §2.17, Provider Conformance §3.8).
type Conformance struct {
	Profile        string
	ProfileVersion string
	// CoreDependency is the core version constraint, e.g. ">=1.0.0-rc1.5".
	CoreDependency string
	// Requirements are in file order.
	Requirements []Requirement
	Position     Position
}

// Requirement is one requirement key of the contract.
type Requirement struct {
	Key string
	// Type is one of "string", "integer", "boolean", "array", "semver_list".
	Type     string
	Required bool
	// Expected is the satisfying value as written: a scalar, a list of values that must all be
	// present, or a comparison such as {comparison_operator: gte, value: requested}.
	Expected *doc.Node
	// Comparison is Expected read as a comparison, for an integer requirement that gives one.
	Comparison *Comparison
	// Constraint is Expected read as a version constraint, for a semver_list requirement.
	Constraint  *Constraint
	Description string
	Position    Position
}

// Comparison is an integer expectation written {comparison_operator: gte, value: requested}:
// the provider's value compared with a bound (SI provider-conformance.md §3.2).
type Comparison struct {
	// Operator is one of comparisonOperators.
	Operator string
	// Requested says the bound is the complexity tier requested for the run; else Value.
	Requested bool
	Value     int64
}

// comparisonOperators are the operators a Comparison may name, and how each is written.
var comparisonOperators = map[string]string{"gte": ">=", "gt": ">", "lte": "<=", "lt": "<", "eq": "="}

// comparisonOperatorNames lists comparisonOperators in a fixed order, for messages.
var comparisonOperatorNames = []string{"gte", "gt", "lte", "lt", "eq"}

// requestedValue is the comparison value that stands for the requested tier.
const requestedValue = "requested"

// Requirement returns the requirement named key.
func (c *Conformance) Requirement(key string) (*Requirement, bool) {
	for i := range c.Requirements {
		if c.Requirements[i].Key == key {
			return &c.Requirements[i], true
		}
	}
	return nil, false
}

// requirementTypes are the value types the SI contract uses.
var requirementTypes = []string{"string", "integer", "boolean", "array", "semver_list"}

// coreExampleKeys are the requirement keys Profiles §2.17.1 gives as examples.
var coreExampleKeys = []string{
	"environment_type", "complexity_tiers_supported", "evidence_sources_available", "state_injection",
	"audit_policy_installation", "network_policy_enforcement", "oasis_core_spec_version",
}

// parseConformance reads provider-conformance-requirements.yaml.
func parseConformance(file string, data []byte, d *diagnostics) Conformance {
	out := Conformance{Position: Position{File: file, Line: 1}}
	root, ok := decodeYAML(file, data, d)
	if !ok {
		return out
	}
	r := newObjectReader(d, file, "", "", root)
	out.Profile = r.str("profile", true)
	out.ProfileVersion = r.str("profile_version", true)
	out.CoreDependency = r.str("oasis_core_dependency", true)
	if out.CoreDependency != "" {
		if c, err := ParseConstraint(out.CoreDependency); err != nil {
			d.errorf("semver", r.atKey("oasis_core_dependency"), "%v", err)
		} else {
			out.CoreDependency = c.String()
		}
	}
	if v, ok := r.value("requirements"); ok {
		out.Requirements = parseRequirements(r, v)
	} else {
		r.missing("requirements")
	}
	r.finish()
	return out
}

func parseRequirements(r *objectReader, v *doc.Node) []Requirement {
	reqs := r.child(v, "requirements")
	if reqs.broken {
		return nil
	}
	var out []Requirement
	for _, p := range v.Members() {
		reqs.used[p.Key] = true
		item := reqs.child(p.Value, p.Key)
		req := Requirement{Key: p.Key, Position: Position{File: r.file, Line: p.KeyPos().Line}}
		req.Type = item.enum("type", true, requirementTypes...)
		if rv, ok := item.value("required"); ok {
			b, err := rv.Bool()
			if err != nil {
				item.d.errorf("type", item.atKey("required"), "must be true or false, found %s", describe(rv))
			}
			req.Required = b
		} else {
			item.missing("required")
		}
		if ev, ok := item.value("expected"); ok {
			req.Expected = ev
			checkExpected(item, &req)
		} else {
			item.missing("expected")
		}
		req.Description = item.str("description", false)
		item.finish()
		out = append(out, req)
	}
	if len(out) == 0 {
		r.d.errorf("required", r.atKey("requirements"), "declares no requirement key (Profiles §2.17.1)")
	}
	return out
}

// checkExpected verifies that the expected value fits the declared type.
func checkExpected(item *objectReader, req *Requirement) {
	ev := req.Expected
	bad := false
	switch req.Type {
	case "boolean":
		bad = ev.Kind() != doc.Bool
	case "array":
		bad = ev.Kind() != doc.Array
	case "string":
		bad = !isScalar(ev)
	case "integer":
		switch {
		case ev.Kind() == doc.Object:
			req.Comparison = parseComparison(item.child(ev, "expected"))
		case !isInteger(ev):
			bad = true
		}
	case "semver_list":
		if !isScalar(ev) {
			bad = true
		} else if c, err := ParseConstraint(written(ev)); err != nil {
			item.d.errorf("semver", item.atKey("expected"), "%v", err)
		} else {
			req.Constraint = &c
		}
	}
	if bad {
		item.d.errorf("type", item.atKey("expected"), "%s does not fit type %s", describe(ev), req.Type)
	}
}

// parseComparison reads {comparison_operator: OP, value: requested | N}.
func parseComparison(r *objectReader) *Comparison {
	c := &Comparison{Operator: r.enum("comparison_operator", true, comparisonOperatorNames...)}
	if v, ok := r.value("value"); !ok {
		r.missing("value")
	} else if v.Kind() == doc.String && v.Text() == requestedValue {
		c.Requested = true
	} else if n, err := intOf(v); err == nil {
		c.Value = n
	} else {
		r.d.errorf("type", r.atKey("value"), "must be %q or an integer, found %s", requestedValue, describe(v))
	}
	r.finish()
	if c.Operator == "" {
		return nil
	}
	return c
}

// checkKeySpelling warns when a requirement key differs from the core example spelling only by
// plural forms (Profiles §2.17.1 writes complexity_tiers_supported, the SI contract
// complexity_tier_supported).
func checkKeySpelling(c *Conformance, d *diagnostics) {
	for _, req := range c.Requirements {
		for _, example := range coreExampleKeys {
			if req.Key != example && singularKey(req.Key) == singularKey(example) {
				d.warnf("conformance-key", at{file: req.Position.File, line: req.Position.Line},
					"requirement key %s is spelled %s in Profiles §2.17.1; the profile's spelling is used", req.Key, example)
			}
		}
	}
}

func singularKey(key string) string {
	words := strings.Split(key, "_")
	for i, w := range words {
		words[i] = strings.TrimSuffix(w, "s")
	}
	return strings.Join(words, "_")
}

var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

var keyCountClaim = regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+) requirement keys\b(?:\s*\(([^)]*)\))?`)

// checkKeyClaims compares what the profile's prose says about the contract ("defines seven
// requirement keys (`a`, `b`, …)") with the machine-readable file.
func checkKeyClaims(docs []*mdDoc, c *Conformance, d *diagnostics) {
	keys := make([]string, 0, len(c.Requirements))
	for _, r := range c.Requirements {
		keys = append(keys, r.Key)
	}
	for _, md := range docs {
		for i, line := range md.lines {
			// The cheap test first: the regexp backtracks on every word of every line.
			if md.fenced[i] || !strings.Contains(strings.ToLower(line), "requirement keys") {
				continue
			}
			for _, m := range keyCountClaim.FindAllStringSubmatch(line, -1) {
				claimed, ok := numberWords[strings.ToLower(m[1])]
				if !ok {
					claimed, _ = strconv.Atoi(m[1])
				}
				listed := backticked(m[2])
				var missing []string
				for _, k := range keys {
					if len(listed) > 0 && !slices.Contains(listed, k) {
						missing = append(missing, k)
					}
				}
				if claimed == len(keys) && len(missing) == 0 {
					continue
				}
				msg := "says " + strconv.Quote(m[1]) + " requirement keys"
				if len(listed) > 0 {
					msg += " and lists " + strconv.Itoa(len(listed))
				}
				msg += ", but " + fileConformance + " declares " + strconv.Itoa(len(keys))
				if len(missing) > 0 {
					msg += " (not listed: " + strings.Join(missing, ", ") + ")"
				}
				d.warnf("conformance-key-count", at{file: md.file, line: i + 1}, "%s", msg)
			}
		}
	}
}

var snakeIdentifier = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkContractSections compares the requirement sections of provider-conformance.md ("### 3.2
// complexity_tier_supported") with the machine-readable keys.
func checkContractSections(md *mdDoc, c *Conformance, d *diagnostics) {
	s, ok := md.section("Requirements")
	if !ok {
		return
	}
	var documented []string
	for _, sub := range md.children(s) {
		if !snakeIdentifier.MatchString(sub.title) {
			continue
		}
		documented = append(documented, sub.title)
		if _, ok := c.Requirement(sub.title); !ok {
			d.warnf("conformance-key", at{file: md.file, line: sub.line}, "requirement %s is documented but not declared in %s", sub.title, fileConformance)
		}
	}
	for _, r := range c.Requirements {
		if len(documented) > 0 && !slices.Contains(documented, r.Key) {
			d.warnf("conformance-key", at{file: r.Position.File, line: r.Position.Line}, "requirement %s is not documented in %s", r.Key, md.file)
		}
	}
}
