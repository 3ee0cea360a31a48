package evallib

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/formats/otlp"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// SkillSpan is the span name drafts are made from (description, "Auto-Generating from
// Telemetry": the agent's OTel skill.invoke spans).
const SkillSpan = "skill.invoke"

// Attributes of a skill.invoke span, each tried in order (docs/decisions.md, "Eval Library:
// skill.invoke spans"): the skill's name, its input, its output, and the device it ran on.
var (
	skillNameAttrs   = []string{"skill.name", "gen_ai.tool.name", "tool.name"}
	skillInputAttrs  = []string{"skill.input", "input.value", "gen_ai.tool.call.arguments", "tool.parameters"}
	skillOutputAttrs = []string{"skill.output", "output.value", "gen_ai.tool.call.result"}
	skillOutcomeAttr = "skill.outcome"
	deviceAttr       = "device.id"
)

// Draft patterns (issue "Scenarios drafted from telemetry").
const (
	PatternRecurring = "recurring_pattern"
	PatternDecision  = "decision_point"
	PatternEdge      = "edge_case"
)

// DraftNote is said with every set of drafts: the description's warning.
const DraftNote = "Drafts capture what the agent did, not what it should do: review and refine each expected_behavior (and the risk level, drafted as medium) before adding it."

// Invocation is one skill.invoke span, read.
type Invocation struct {
	Skill   string
	Input   *doc.Node // an object
	Output  *doc.Node // nil when the span carries none
	OK      bool
	Device  string
	End     int64
	TraceID string
	SpanID  string
	shape   string
	input   string
	output  string
	// run is the index of the store run the span came from (DraftFromStore), -1 for a file's.
	run int
}

// Invocations reads the skill.invoke spans among spans, in time order (then trace and span id,
// then content, so the order never depends on the order of the input files). A span is counted
// once however often it was recorded: of spans with the same trace and span id, the first in
// that order is kept.
func Invocations(spans []otlp.Span) []Invocation {
	var out []Invocation
	for i := range spans {
		s := &spans[i]
		if s.Name != SkillSpan {
			continue
		}
		inv := Invocation{Skill: firstText(s, skillNameAttrs, "unnamed skill"), End: max(s.End, s.Start),
			TraceID: s.TraceID, SpanID: s.SpanID, OK: s.Status.Code != otlp.StatusError, run: -1}
		if outcome, ok := s.AttrString(skillOutcomeAttr); ok && (outcome == "failure" || outcome == "error") {
			inv.OK = false
		}
		inv.Device, _ = s.AttrString(deviceAttr)
		if inv.Device == "" {
			inv.Device = resourceText(s.Resource, deviceAttr)
		}
		inv.Input = objectOf(attrValue(s, skillInputAttrs), "input")
		if v, ok := attrValueOK(s, skillOutputAttrs); ok {
			inv.Output = jsonOf(v)
		}
		inv.shape = inv.Skill + "\n" + shapeOf(inv.Input)
		inv.output = identity(inv.Output)
		inv.input = identity(inv.Input)
		out = append(out, inv)
	}
	return sortInvocations(out)
}

// sortInvocations puts invocations in Invocations' order and keeps the first of those with
// the same trace and span id.
func sortInvocations(out []Invocation) []Invocation {
	slices.SortFunc(out, func(a, b Invocation) int {
		return cmp.Or(cmp.Compare(a.End, b.End), strings.Compare(a.TraceID, b.TraceID), strings.Compare(a.SpanID, b.SpanID),
			strings.Compare(a.shape, b.shape), strings.Compare(a.input, b.input), strings.Compare(a.output, b.output),
			cmp.Compare(b2i(a.OK), b2i(b.OK)), strings.Compare(a.Device, b.Device), cmp.Compare(a.run, b.run))
	})
	seen := map[[2]string]bool{}
	return slices.DeleteFunc(out, func(inv Invocation) bool {
		id := [2]string{inv.TraceID, inv.SpanID}
		if inv.TraceID == "" || inv.SpanID == "" {
			return false
		}
		dup := seen[id]
		seen[id] = true
		return dup
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func attrValueOK(s *otlp.Span, keys []string) (pyvalue.Value, bool) {
	for _, k := range keys {
		if v, ok := s.Attr(k); ok {
			return v, true
		}
	}
	return pyvalue.Value{}, false
}

func attrValue(s *otlp.Span, keys []string) pyvalue.Value {
	v, _ := attrValueOK(s, keys)
	return v
}

func firstText(s *otlp.Span, keys []string, fallback string) string {
	if v, ok := attrValueOK(s, keys); ok {
		if str, ok := v.AsStr(); ok && strings.TrimSpace(str) != "" {
			return str
		}
	}
	return fallback
}

func resourceText(attrs []otlp.Attr, key string) string {
	for i := len(attrs) - 1; i >= 0; i-- {
		if attrs[i].Key == key {
			s, _ := attrs[i].Value.AsStr()
			return s
		}
	}
	return ""
}

// jsonOf turns an attribute value into a document: a string holding JSON is that JSON, any
// other string is a string, and lists and maps are themselves.
func jsonOf(v pyvalue.Value) *doc.Node {
	text := pyvalue.Dumps(v)
	if s, ok := v.AsStr(); ok {
		if n, err := doc.ParseJSON("span attribute", []byte(s), doc.Limits{MaxBytes: 1 << 20, MaxDepth: 64}); err == nil {
			return n
		}
	}
	n, err := doc.ParseJSON("span attribute", []byte(text), doc.Limits{MaxBytes: 1 << 20, MaxDepth: 64})
	if err != nil { // NaN or Infinity, which JSON has no text for: keep the text
		n, _ = doc.ParseJSON("span attribute", doc.AppendString(nil, text), doc.Limits{})
	}
	return n
}

// objectOf is the value as an object: an object stays, anything else is wrapped under key,
// and no value is an empty object.
func objectOf(v pyvalue.Value, key string) *doc.Node {
	if v.IsNull() {
		n, _ := doc.ParseJSON("input", []byte("{}"), doc.Limits{})
		return n
	}
	n := jsonOf(v)
	if n.Kind() == doc.Object {
		return n
	}
	wrapped := append(append(doc.AppendString([]byte("{"), key), ':'), n.Compact()...)
	w, _ := doc.ParseJSON("input", append(wrapped, '}'), doc.Limits{})
	return w
}

// shapeOf is an object's shape: its leaf paths and the kind of value at each, sorted.
func shapeOf(n *doc.Node) string {
	var parts []string
	for _, l := range doc.Leaves(n, doc.LeafOptions{ScalarArrays: true}) {
		parts = append(parts, l.Pointer+":"+l.Node.Kind().String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// identity names a value by its canonical JSON ("" for no value).
func identity(n *doc.Node) string {
	if n == nil {
		return ""
	}
	if b, err := doc.Canonical(n); err == nil {
		return string(b)
	}
	return string(n.Compact())
}

// DraftOptions select the spans drafts are made from.
type DraftOptions struct {
	// LookbackHours counts back from the newest span, not from the clock; 0 keeps every span.
	LookbackHours int
	// Max bounds the drafts (the most confident first); 0 means no bound.
	Max int
	// Device keeps the spans of one device only (the device.id attribute); "" keeps all.
	Device string
}

// Draft is one drafted scenario.
type Draft struct {
	Pattern    string `json:"pattern"`
	Confidence string `json:"confidence"`
	// Scenario is the draft, valid as it is (source traces, its confidence); Document is its
	// canonical JSON, what `eval scenario add` and the API take.
	Scenario *evalfmt.Scenario `json:"-"`
	Document string            `json:"scenario"`
	// Invocations counts the spans the draft rests on; Traces names up to five of their traces.
	Invocations int      `json:"invocations"`
	Traces      []string `json:"traces"`
	// Why says in a sentence what was seen.
	Why string `json:"why"`
}

// MarshalJSON writes a draft as the API answers it: its confidence a JSON number, its scenario
// the JSON object itself (the canonical document), not a string holding it (issue "The Eval
// Library API to the letter").
func (d Draft) MarshalJSON() ([]byte, error) {
	scenario := json.RawMessage(d.Document)
	if !json.Valid(scenario) {
		return nil, fmt.Errorf("evallib: draft %s: the scenario is not JSON", d.Pattern)
	}
	traces := d.Traces
	if traces == nil {
		traces = []string{}
	}
	return json.Marshal(struct {
		Pattern     string          `json:"pattern"`
		Confidence  json.Number     `json:"confidence"`
		Scenario    json.RawMessage `json:"scenario"`
		Invocations int             `json:"invocations"`
		Traces      []string        `json:"traces"`
		Why         string          `json:"why"`
	}{d.Pattern, json.Number(trimZeros(d.Confidence)), scenario, d.Invocations, traces, d.Why})
}

// DraftSet is the drafts made from a set of spans, with the window they cover.
type DraftSet struct {
	Note string `json:"note"`
	// Spans counts the skill.invoke spans in the window; From and To are its bounds (RFC 3339,
	// from the spans themselves).
	Spans  int     `json:"spans"`
	From   string  `json:"from,omitempty"`
	To     string  `json:"to,omitempty"`
	Drafts []Draft `json:"drafts"`
	// Skipped names the store runs left out (DraftFromStore), and why; empty for files.
	Skipped []SkippedRun `json:"skipped"`
}

// DraftScenarios drafts scenarios from skill.invoke invocations: recurring patterns (a skill
// invoked at least three times with the same input shape, one successful output in at least 80%
// of them), decision points (otherwise, the same input shape led to different outputs: one
// draft per output seen at least twice, with the input that most often led to it) and edge cases (an
// input shape seen at most twice, always successful, for a skill that has a more common shape).
// The same invocations always give the same drafts (docs/decisions.md, "Eval Library: drafts
// from telemetry").
func DraftScenarios(all []Invocation, opts DraftOptions) (*DraftSet, error) {
	invs := window(all, opts)
	set := &DraftSet{Note: DraftNote, Spans: len(invs), Drafts: []Draft{}, Skipped: []SkippedRun{}}
	if len(invs) == 0 {
		return set, nil
	}
	set.From = time.Unix(0, invs[0].End).UTC().Format(time.RFC3339)
	set.To = time.Unix(0, invs[len(invs)-1].End).UTC().Format(time.RFC3339)
	groups, order := groupBy(invs, func(i *Invocation) string { return i.shape })
	shapesBySkill := map[string][]string{}
	for _, shape := range order {
		skill := groups[shape][0].Skill
		shapesBySkill[skill] = append(shapesBySkill[skill], shape)
	}
	var drafts []Draft
	for _, shape := range order {
		g := groups[shape]
		d, err := draftGroup(g, shapesBySkill[g[0].Skill], groups)
		if err != nil {
			return nil, err
		}
		drafts = append(drafts, d...)
	}
	slices.SortStableFunc(drafts, func(a, b Draft) int {
		return cmp.Or(-compareValues(a.Confidence, b.Confidence), strings.Compare(patternRank(a.Pattern), patternRank(b.Pattern)),
			strings.Compare(a.Document, b.Document))
	})
	seen := map[string]bool{}
	for _, d := range drafts {
		if seen[d.Document] || opts.Max > 0 && len(set.Drafts) >= opts.Max {
			continue
		}
		seen[d.Document] = true
		set.Drafts = append(set.Drafts, d)
	}
	return set, nil
}

// window keeps the invocations of the device asked for, within LookbackHours of the newest.
func window(all []Invocation, opts DraftOptions) []Invocation {
	var kept []Invocation
	for _, inv := range all {
		if opts.Device == "" || inv.Device == opts.Device {
			kept = append(kept, inv)
		}
	}
	if len(kept) == 0 || opts.LookbackHours <= 0 {
		return kept
	}
	from := kept[len(kept)-1].End - int64(opts.LookbackHours)*int64(time.Hour)
	i, _ := slices.BinarySearchFunc(kept, from, func(inv Invocation, t int64) int { return cmp.Compare(inv.End, t) })
	return kept[i:]
}

func patternRank(p string) string {
	return map[string]string{PatternRecurring: "1", PatternDecision: "2", PatternEdge: "3"}[p]
}

// groupBy groups invocations by key, keeping the order in which keys first appear.
func groupBy(invs []Invocation, key func(*Invocation) string) (map[string][]*Invocation, []string) {
	groups := map[string][]*Invocation{}
	var order []string
	for i := range invs {
		k := key(&invs[i])
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], &invs[i])
	}
	return groups, order
}

// draftGroup drafts what one input shape of a skill shows.
func draftGroup(g []*Invocation, skillShapes []string, groups map[string][]*Invocation) ([]Draft, error) {
	var ok []Invocation
	for _, inv := range g {
		if inv.OK {
			ok = append(ok, *inv)
		}
	}
	outputs, outputOrder := groupBy(ok, func(i *Invocation) string { return i.output })
	n := len(g)
	var top []*Invocation // the most frequent output's invocations, the earliest output of ties
	for _, o := range outputOrder {
		if len(outputs[o]) > len(top) {
			top = outputs[o]
		}
	}
	switch {
	case n >= 3 && len(top)*5 >= n*4:
		inv := top[0]
		conf := confidence(evalmetric.NewRatio(int64(len(top)), int64(n)), n)
		why := fmt.Sprintf("%s was invoked %d times with this input shape; %d of them gave this output", inv.Skill, n, len(top))
		d, err := newDraft(PatternRecurring, inv, conf, g, why)
		return []Draft{d}, err
	case len(outputOrder) >= 2:
		var drafts []Draft
		for _, o := range outputOrder {
			led := outputs[o]
			if len(led) < 2 {
				continue
			}
			inv, same, total := mostFrequentInput(led, g)
			conf := confidence(evalmetric.NewRatio(int64(same), int64(total)), total)
			why := fmt.Sprintf("%s chose between %d outputs for this input shape; this one %d times, %d of %d times for this input",
				inv.Skill, len(outputOrder), len(led), same, total)
			d, err := newDraft(PatternDecision, inv, conf, led, why)
			if err != nil {
				return nil, err
			}
			drafts = append(drafts, d)
		}
		return drafts, nil
	case n <= 2 && len(ok) == n && len(skillShapes) > 1 && mostCommonElsewhere(g[0].shape, skillShapes, groups) > n:
		conf := confidence(evalmetric.NewRatio(1, 2), n)
		why := fmt.Sprintf("a rare input shape for %s (%d time(s)), which succeeded", g[0].Skill, n)
		d, err := newDraft(PatternEdge, g[0], conf, g, why)
		return []Draft{d}, err
	}
	return nil, nil
}

// mostCommonElsewhere is the size of the largest other input shape of the skill.
func mostCommonElsewhere(shape string, shapes []string, groups map[string][]*Invocation) int {
	most := 0
	for _, s := range shapes {
		if s != shape {
			most = max(most, len(groups[s]))
		}
	}
	return most
}

// mostFrequentInput returns, among the invocations that led to one output, the one whose input
// led there most often (the earliest of ties), how often, and how often that input was seen in
// the group at all.
func mostFrequentInput(led []*Invocation, group []*Invocation) (*Invocation, int, int) {
	counts := map[string]int{}
	for _, inv := range led {
		counts[inv.input]++
	}
	best := led[0]
	for _, inv := range led {
		if counts[inv.input] > counts[best.input] {
			best = inv
		}
	}
	total := 0
	for _, inv := range group {
		if inv.input == best.input {
			total++
		}
	}
	return best, counts[best.input], total
}

// confidence is the agreement seen, discounted for little evidence: agreement × n/(n+1).
func confidence(agreement evalmetric.Ratio, n int) evalmetric.Ratio {
	r := agreement.Rat()
	r.Mul(r, evalmetric.NewRatio(int64(n), int64(n+1)).Rat())
	num, den := r.Num(), r.Denom()
	return evalmetric.NewRatio(num.Int64(), den.Int64())
}

// newDraft writes the scenario of a draft and checks it reads back as a valid scenario.
func newDraft(pattern string, inv *Invocation, conf evalmetric.Ratio, evidence []*Invocation, why string) (Draft, error) {
	expected := inv.Output
	var expectedJSON []byte
	switch {
	case expected == nil:
		expectedJSON = []byte(`{"outcome":"success"}`)
	case expected.Kind() == doc.Object && expected.Len() > 0:
		expectedJSON, _ = doc.Canonical(expected)
	default:
		expectedJSON = append(append([]byte(`{"result":`), canonicalOrCompact(expected)...), '}')
	}
	label := map[string]string{PatternRecurring: "recurring pattern", PatternDecision: "decision point", PatternEdge: "edge case"}[pattern]
	var b []byte
	b = append(b, `{"name":`...)
	b = doc.AppendString(b, fmt.Sprintf("%s: %s", inv.Skill, label))
	b = append(b, `,"description":`...)
	b = doc.AppendString(b, fmt.Sprintf("Drafted from %d skill.invoke span(s): %s. It captures what the agent did, not necessarily what it should do.", len(evidence), why))
	b = append(b, `,"risk_level":"medium","source":"traces","confidence":`...)
	b = append(b, trimZeros(conf.Rounded())...)
	b = append(b, `,"input_context":`...)
	b = append(b, canonicalOrCompact(inv.Input)...)
	b = append(b, `,"expected_behavior":`...)
	b = append(b, expectedJSON...)
	b = append(b, '}')
	s, err := evalfmt.ParseScenario("draft.json", b)
	if err != nil {
		return Draft{}, &draftError{run: inv.run, err: fmt.Errorf("evallib: draft from span %s of trace %s: %w", inv.SpanID, inv.TraceID, err)}
	}
	d := Draft{Pattern: pattern, Confidence: conf.Rounded(), Scenario: s, Document: string(s.Canonical), Invocations: len(evidence), Why: why}
	for _, e := range evidence {
		if !slices.Contains(d.Traces, e.TraceID) && len(d.Traces) < 5 {
			d.Traces = append(d.Traces, e.TraceID)
		}
	}
	return d, nil
}

// draftError is a draft that is no valid scenario, with the store run of the span it came
// from (DraftFromStore leaves that run out).
type draftError struct {
	run int
	err error
}

func (e *draftError) Error() string { return e.err.Error() }
func (e *draftError) Unwrap() error { return e.err }

func canonicalOrCompact(n *doc.Node) []byte {
	if b, err := doc.Canonical(n); err == nil {
		return b
	}
	return n.Compact()
}
