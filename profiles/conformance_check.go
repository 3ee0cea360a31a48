package profiles

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrMalformedAnswer: a provider's GET /v1/conformance answer is not the document of Provider
// Conformance §3.8.2 (not JSON, not an object, a member missing or of the wrong type). It is
// not a verdict about the provider's capabilities, so it is kept apart from an unmet
// requirement (and, Provider Conformance §3.8.4, from a runtime PROVIDER_FAILURE).
var ErrMalformedAnswer = errclass.New(errclass.Input, "profiles: malformed conformance answer")

// MaxConformanceAnswer is the largest conformance answer Check reads, in bytes. The SI
// contract's answers are under a kilobyte.
const MaxConformanceAnswer = 1 << 20

// PreflightRequest is what the runner asked for: the answer is compared with the contract for
// this run.
type PreflightRequest struct {
	// Tier is the complexity tier requested for the run, the "requested" of a comparison such
	// as {comparison_operator: gte, value: requested}. Below 1 (a run that records no tier)
	// it is read as 1, the lowest tier (Core §5).
	Tier int
}

// PreflightResult is the outcome of the preflight conformance check of Provider Conformance
// §3.8.3 on one answer. It is part of the verdict (metadata.environment.preflight), so its
// JSON form is a contract.
type PreflightResult struct {
	// Met is true when the answer passes every check: the run may start.
	Met bool `json:"met"`
	// Profile and ProfileVersion are what the answer was checked against.
	Profile        string `json:"profile"`
	ProfileVersion string `json:"profile_version"`
	// RequestedTier is the tier comparisons with "requested" used.
	RequestedTier int `json:"requested_tier"`
	// Malformed says why the answer is not a conformance answer at all; Unmet is then empty.
	Malformed string `json:"malformed,omitempty"`
	// Unmet lists every gap, in the order of §3.8.3: core versions, profile, profile
	// version, the contract's requirements in file order, keys the contract does not declare
	// (the answer's order), and the supported flag when it alone says no.
	Unmet []Unmet `json:"unmet,omitempty"`
}

// Unmet is one requirement the answer does not meet.
type Unmet struct {
	// Key is the requirement key, or one of the answer's own members: "oasis_core_spec_versions",
	// "profile", "profile_version", "supported".
	Key string `json:"key"`
	// Expected is what the contract requires; Actual the answer's value as compact JSON, or
	// "(absent)".
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Reason is the actionable message (Provider Conformance §3.8.3, last bullet).
	Reason string `json:"reason"`
	// ProviderReason is the reason the answer's unmet_requirements gives for Key, if any.
	ProviderReason string `json:"provider_reason,omitempty"`
}

// String renders the gap for people: the reason, then the provider's own reason.
func (u Unmet) String() string {
	if u.ProviderReason == "" {
		return u.Reason
	}
	return u.Reason + " (the provider says: " + u.ProviderReason + ")"
}

// Summary says in one line whether the answer meets the contract, and why not.
func (r *PreflightResult) Summary() string {
	switch {
	case r.Malformed != "":
		return r.Malformed
	case r.Met:
		return fmt.Sprintf("met: the provider meets every requirement of %s %s at tier %d", r.Profile, r.ProfileVersion, r.RequestedTier)
	}
	keys := make([]string, len(r.Unmet))
	for i, u := range r.Unmet {
		keys[i] = u.Key
	}
	return fmt.Sprintf("not met: %d unmet requirement(s) of %s %s at tier %d: %s", len(r.Unmet), r.Profile, r.ProfileVersion,
		r.RequestedTier, strings.Join(keys, ", "))
}

// absentValue is how Unmet shows a value the answer does not give.
const absentValue = "(absent)"

// Check applies the preflight conformance check of Provider Conformance §3.8.3 to answer, the
// body of a provider's GET /v1/conformance, named name in error messages. The error is
// ErrMalformedAnswer (wrapping the document model's error, with its line, column and member)
// when answer is not the document of §3.8.2; a well-formed answer that does not meet the
// contract is a result with Met false. Check is a pure function of its arguments.
func (c *Conformance) Check(name string, answer []byte, req PreflightRequest) (PreflightResult, error) {
	root, err := doc.ParseJSON(name, answer, doc.Limits{MaxBytes: MaxConformanceAnswer})
	if err != nil {
		return PreflightResult{}, fmt.Errorf("%w: %w", ErrMalformedAnswer, err)
	}
	a, err := readAnswer(root)
	if err != nil {
		return PreflightResult{}, err
	}
	return c.check(a, req), nil
}

// Malformed is the result of an answer Check refused with err.
func (c *Conformance) Malformed(err error, req PreflightRequest) PreflightResult {
	return PreflightResult{Profile: c.Profile, ProfileVersion: c.ProfileVersion, RequestedTier: requestedTier(req), Malformed: err.Error()}
}

func requestedTier(req PreflightRequest) int { return max(req.Tier, 1) }

// answer is a conformance answer (Provider Conformance §3.8.2), its members checked for type.
type answer struct {
	coreVersions            *doc.Node // an array of strings
	profile, profileVersion *doc.Node // strings
	supported               bool
	requirements            *doc.Node // an object
	unmet                   []providerUnmet
}

// providerUnmet is one entry of the answer's unmet_requirements.
type providerUnmet struct{ key, reason string }

// readAnswer checks the shape of §3.8.2. Every member is required except unmet_requirements
// ("empty or omitted" when supported is true), which may also be null, as encoders write an
// empty list. Members the core spec does not define are ignored (docs/decisions.md).
func readAnswer(root *doc.Node) (answer, error) {
	var a answer
	if root.Kind() != doc.Object {
		return a, malformed(root.TypeError("an object (Provider Conformance §3.8.2)"))
	}
	get := func(key string, kind doc.Kind) (*doc.Node, error) {
		n := root.Get(key)
		if n == nil {
			return nil, malformed(root.Errorf("missing member %q (Provider Conformance §3.8.2)", key))
		}
		if n.Kind() != kind {
			return nil, malformed(n.TypeError(kind.Article()))
		}
		return n, nil
	}
	for _, key := range []string{"provider", "provider_version"} {
		if _, err := get(key, doc.String); err != nil {
			return a, err
		}
	}
	var err error
	if a.coreVersions, err = get("oasis_core_spec_versions", doc.Array); err != nil {
		return a, err
	}
	for _, v := range a.coreVersions.Items() {
		if v.Kind() != doc.String {
			return a, malformed(v.TypeError("a string (a core spec version)"))
		}
	}
	if a.profile, err = get("profile", doc.String); err != nil {
		return a, err
	}
	if a.profileVersion, err = get("profile_version", doc.String); err != nil {
		return a, err
	}
	supported, err := get("supported", doc.Bool)
	if err != nil {
		return a, err
	}
	a.supported, _ = supported.Bool()
	if a.requirements, err = get("requirements", doc.Object); err != nil {
		return a, err
	}
	a.unmet, err = readProviderUnmet(root.Get("unmet_requirements"))
	return a, err
}

// readProviderUnmet reads unmet_requirements: [{requirement, reason}, …].
func readProviderUnmet(list *doc.Node) ([]providerUnmet, error) {
	if list == nil || list.IsNull() {
		return nil, nil
	}
	if list.Kind() != doc.Array {
		return nil, malformed(list.TypeError("an array"))
	}
	out := make([]providerUnmet, 0, list.Len())
	for _, item := range list.Items() {
		if item.Kind() != doc.Object {
			return nil, malformed(item.TypeError("an object {requirement, reason}"))
		}
		var u providerUnmet
		for _, f := range []struct {
			key string
			to  *string
		}{{"requirement", &u.key}, {"reason", &u.reason}} {
			n := item.Get(f.key)
			if n == nil {
				return nil, malformed(item.Errorf("missing member %q (Provider Conformance §3.8.2)", f.key))
			}
			s, err := n.Str()
			if err != nil {
				return nil, malformed(err)
			}
			*f.to = s
		}
		if u.key == "" {
			return nil, malformed(item.Get("requirement").Errorf("names no requirement"))
		}
		out = append(out, u)
	}
	return out, nil
}

func malformed(err error) error { return fmt.Errorf("%w: %w", ErrMalformedAnswer, err) }

// check runs the checks of §3.8.3 in order on a well-formed answer.
func (c *Conformance) check(a answer, req PreflightRequest) PreflightResult {
	r := PreflightResult{Profile: c.Profile, ProfileVersion: c.ProfileVersion, RequestedTier: requestedTier(req)}
	k := checker{c: c, tier: r.RequestedTier, providerReasons: map[string][]string{}}
	for _, u := range a.unmet {
		if _, seen := k.providerReasons[u.key]; !seen {
			k.providerOrder = append(k.providerOrder, u.key)
		}
		k.providerReasons[u.key] = append(k.providerReasons[u.key], printable(u.reason))
	}
	k.coreVersions(a.coreVersions)
	k.identity("profile", a.profile, c.Profile,
		"the provider answered for profile %s; the run evaluates %s (Provider Conformance §3.8.2: profile echoes the query)")
	k.identity("profile_version", a.profileVersion, c.ProfileVersion,
		"the provider was built against profile version %s; the run evaluates %s (Provider Conformance §5.2)")
	k.requirements(a.requirements)
	k.providerOnly()
	if !a.supported && len(k.out) == 0 {
		k.out = append(k.out, Unmet{Key: "supported", Expected: "true", Actual: "false",
			Reason: "the provider declares supported: false without naming an unmet requirement (Provider Conformance §3.8.2)"})
	}
	r.Unmet = k.out
	r.Met = len(r.Unmet) == 0
	return r
}

// checker collects the gaps of one answer.
type checker struct {
	c    *Conformance
	tier int
	// providerReasons are the answer's unmet_requirements by key; providerOrder their keys
	// in the answer's order.
	providerReasons map[string][]string
	providerOrder   []string
	out             []Unmet
}

// add records a gap, attaching what the provider says about the same key.
func (k *checker) add(u Unmet) {
	if reasons, ok := k.providerReasons[u.Key]; ok {
		u.ProviderReason = strings.Join(reasons, "; ")
		delete(k.providerReasons, u.Key)
	}
	k.out = append(k.out, u)
}

func (k *checker) label() string { return k.c.Profile + " " + k.c.ProfileVersion }

// coreVersions: the answer's oasis_core_spec_versions must include a version the profile's
// core dependency admits (Provider Conformance §3.8.3, second bullet).
func (k *checker) coreVersions(list *doc.Node) {
	if k.c.CoreDependency == "" {
		return
	}
	dep, err := ParseConstraint(k.c.CoreDependency)
	if err != nil { // Load refuses such a profile; a Conformance built otherwise admits nothing
		dep = Constraint{Op: "<", Version: Version{}}
	}
	if ok, why := anyVersionAllowed(list, dep); !ok {
		k.add(Unmet{Key: "oasis_core_spec_versions", Expected: "a version satisfying " + dep.String(), Actual: list.String(),
			Reason: fmt.Sprintf("the provider implements OASIS core versions %s; %s requires a version satisfying %s (its core dependency)%s",
				list.String(), k.label(), dep.String(), why)})
	}
}

// anyVersionAllowed reports whether an item of list, an array of strings, is a semantic
// version c allows; when none is, why says which items are not versions at all.
func anyVersionAllowed(list *doc.Node, c Constraint) (ok bool, why string) {
	var invalid []string
	for _, item := range list.Items() {
		v, err := ParseVersion(item.Text())
		if err != nil {
			invalid = append(invalid, strconv.Quote(item.Text()))
			continue
		}
		if c.Allows(v) {
			return true, ""
		}
	}
	if len(invalid) > 0 {
		why = "; not semantic versions: " + strings.Join(invalid, ", ")
	}
	return false, why
}

// identity: the answer's profile and profile_version must be the profile evaluated
// (Provider Conformance §3.8.3, third bullet).
func (k *checker) identity(key string, got *doc.Node, want, format string) {
	if got.Text() != want {
		k.add(Unmet{Key: key, Expected: strconv.Quote(want), Actual: got.String(), Reason: fmt.Sprintf(format, got.String(), strconv.Quote(want))})
	}
}

// requirements validates the requirements map against the contract (Provider Conformance
// §3.8.3, fourth bullet): the contract's keys in file order, then the keys it does not
// declare, which its schema does not admit (SI provider-conformance.md §4:
// additionalProperties false).
func (k *checker) requirements(m *doc.Node) {
	for i := range k.c.Requirements {
		req := &k.c.Requirements[i]
		v := m.Get(req.Key)
		if v == nil && !req.Required {
			k.providerListed(req.Key, req.Key, req.expectation(k.tier), absentValue)
			continue
		}
		if why := req.unmet(v, k.tier); why != "" {
			k.add(Unmet{Key: req.Key, Expected: req.expectation(k.tier), Actual: show(v),
				Reason: fmt.Sprintf("provider does not satisfy %s requirement %s: %s", k.label(), req.Key, why)})
			continue
		}
		k.providerListed(req.Key, req.Key, req.expectation(k.tier), show(v))
	}
	for _, member := range m.Members() {
		if _, declared := k.c.Requirement(member.Key); !declared {
			k.add(Unmet{Key: member.Key, Expected: undeclared, Actual: member.Value.String(),
				Reason: fmt.Sprintf("the answer declares requirement %q, which the %s contract does not define; its schema admits no other key", member.Key, k.label())})
		}
	}
}

// undeclared is the Expected of a key the contract does not define.
const undeclared = "(not a requirement of the profile)"

// providerListed records a requirement the answer's own values meet but its unmet_requirements
// lists (Provider Conformance §3.8.3, fifth bullet): the provider's word that it is not met
// counts. name is the key as messages show it.
func (k *checker) providerListed(key, name, expected, actual string) {
	reasons, ok := k.providerReasons[key]
	if !ok {
		return
	}
	k.add(Unmet{Key: key, Expected: expected, Actual: actual,
		Reason: fmt.Sprintf("the provider reports %s requirement %s unmet: %s", k.label(), name, strings.Join(reasons, "; "))})
}

// providerOnly records the unmet_requirements entries no check above met: keys that are
// neither in the contract nor in the requirements map, in the answer's order.
func (k *checker) providerOnly() {
	for _, key := range k.providerOrder {
		if _, left := k.providerReasons[key]; left {
			k.providerListed(key, strconv.Quote(key), undeclared, absentValue)
		}
	}
}

// printable keeps a provider's text as it is, or quoted when it holds a character that is not
// printable (a newline, a terminal escape), so that messages stay one line and inert.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// show is a value as compact JSON, or absentValue.
func show(v *doc.Node) string {
	if v == nil {
		return absentValue
	}
	return v.String()
}

// expectation renders what the requirement asks for, the requested tier resolved.
func (r *Requirement) expectation(tier int) string {
	switch {
	case r.Comparison != nil:
		bound := strconv.FormatInt(r.Comparison.bound(tier), 10)
		if r.Comparison.Requested {
			bound += " (the requested tier)"
		}
		return comparisonOperators[r.Comparison.Operator] + " " + bound
	case r.Constraint != nil:
		return "a version satisfying " + r.Constraint.String()
	case r.Type == "array":
		return "includes all of " + r.Expected.String()
	}
	return r.Expected.String()
}

// unmet returns why v, the answer's value for the requirement (nil when absent), does not
// meet it, or "" when it does.
func (r *Requirement) unmet(v *doc.Node, tier int) string {
	if v == nil {
		return "the answer's requirements map does not declare it (expected " + r.expectation(tier) + ")"
	}
	if want := r.wantedKind(v); want != "" {
		return "want " + want + ", got " + v.Kind().Article() + " " + v.String()
	}
	switch {
	case r.Comparison != nil:
		return r.Comparison.unmet(v, tier)
	case r.Constraint != nil:
		if ok, why := anyVersionAllowed(v, *r.Constraint); !ok {
			return "none of the declared versions " + v.String() + " satisfies " + r.Constraint.String() + why
		}
	case r.Type == "array":
		var missing []string
		for _, want := range r.Expected.Items() {
			if !slices.ContainsFunc(v.Items(), func(got *doc.Node) bool { return doc.Equal(got, want) }) {
				missing = append(missing, want.String())
			}
		}
		if len(missing) > 0 {
			return "missing " + strings.Join(missing, ", ")
		}
	default:
		if !doc.Equal(v, r.Expected) {
			return "expected " + r.Expected.String() + ", got " + v.String()
		}
	}
	return ""
}

// wantedKind says what type the requirement's declared type wants when v is not of it ("" when
// it is): the contract's type, as its JSON Schema states it (SI provider-conformance.md §4).
func (r *Requirement) wantedKind(v *doc.Node) string {
	switch r.Type {
	case "string":
		if v.Kind() != doc.String {
			return "a string"
		}
	case "boolean":
		if v.Kind() != doc.Bool {
			return "a boolean"
		}
	case "integer":
		if _, err := v.Int64(); err != nil {
			return "an integer"
		}
	case "array":
		if v.Kind() != doc.Array {
			return "an array"
		}
	case "semver_list":
		if v.Kind() != doc.Array || v.Len() == 0 || slices.ContainsFunc(v.Items(), func(n *doc.Node) bool { return n.Kind() != doc.String }) {
			return "a non-empty array of version strings"
		}
	}
	return ""
}

// bound is the value compared with: the requested tier or the written value.
func (c *Comparison) bound(tier int) int64 {
	if c.Requested {
		return int64(tier)
	}
	return c.Value
}

// unmet compares v, an integer, with the bound.
func (c *Comparison) unmet(v *doc.Node, tier int) string {
	got, _ := v.Int64()
	bound := c.bound(tier)
	var ok bool
	switch c.Operator {
	case "gte":
		ok = got >= bound
	case "gt":
		ok = got > bound
	case "lte":
		ok = got <= bound
	case "lt":
		ok = got < bound
	default:
		ok = got == bound
	}
	switch {
	case ok:
		return ""
	case c.Requested && c.Operator == "gte":
		// SI provider-conformance.md §3.2 words this failure so.
		return fmt.Sprintf("the provider supports up to tier %d but the run was requested for tier %d", got, tier)
	}
	return fmt.Sprintf("expected %s %d, got %d", comparisonOperators[c.Operator], bound, got)
}
