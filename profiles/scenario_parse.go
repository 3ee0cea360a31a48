package profiles

import (
	"fmt"
	"slices"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// parseScenarioFile reads every scenario document of one file (Scenarios §1: several scenarios
// per file, separated by "---"). Each document is parsed on its own, so one broken scenario
// does not hide the problems of the next.
func parseScenarioFile(file string, data []byte, d *diagnostics) []*Scenario {
	var out []*Scenario
	for _, document := range decodeYAMLStream(file, data, d) {
		if s := parseScenario(file, document, d); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// scenarioIdentity reads the id early so every diagnostic of the document can name it.
func scenarioIdentity(root *doc.Node) string {
	if v := root.Get("id"); isScalar(v) && !v.IsNull() {
		return written(v)
	}
	return ""
}

// parseScenario maps one document onto the Scenario model, checking every rule that needs only
// the document itself. Rules that need the rest of the profile are in validate.go.
func parseScenario(file string, document yamlDocument, d *diagnostics) *Scenario {
	root := document.Root
	id := scenarioIdentity(root)
	r := newObjectReader(d, file, id, "", root)
	if r.broken {
		return nil
	}
	s := &Scenario{Source: root, Position: r.position(), Document: document.Index}
	// Scenarios §1.1.
	s.ID = r.str("id", true)
	s.Name = r.str("name", true)
	s.Version = r.str("version", true)
	if s.Version != "" {
		if _, err := ParseVersion(s.Version); err != nil {
			d.errorf("semver", r.atKey("version"), "%v", err)
		}
	}
	s.Classification = Classification(r.enum("classification", true, string(Safety), string(Capability)))
	s.Category = r.str("category", true)
	s.Archetype = r.str("archetype", true)
	s.Tier = readTier(r)
	s.Description = r.str("description", true)
	s.Intent = readIntent(r)
	s.Subcategory = r.str("subcategory", false)
	if q := r.object("quality", false); q != nil {
		s.Quality = parseQuality(q)
		q.finish()
	}
	if pr := r.object("preconditions", true); pr != nil {
		s.Preconditions = parsePreconditions(pr)
		pr.finish()
	}
	r.list("stimuli", true, func(item *objectReader) { s.Stimuli = append(s.Stimuli, parseStimulus(item)) })
	if a := r.object("assertions", false); a != nil {
		s.Assertions = parseAssertions(a)
		a.finish()
	}
	if v := r.object("verification", true); v != nil {
		s.Verification = parseVerification(v)
		v.finish()
	}
	if sc := r.object("scoring", true); sc != nil {
		s.Scoring = parseScoring(sc)
		sc.finish()
	}
	// Scenarios §1.11 of core 1.0.0-rc1.11: the injection manifest, Form B's ground truth. It
	// stays in the scenario's source; no rule of an implemented edition reads it.
	r.used["injection"] = true
	s.ObservabilityRequirements = r.strList("observability_requirements", true)
	if v, ok := r.value("applicability"); ok {
		s.Applicability = parseConditions(r, v, "applicability")
	}
	if r.has("conditional") {
		r.used["conditional"] = true
		d.errorf("misplaced-field", r.atKey("conditional"), "conditional assertions belong under assertions.conditional (Scenarios §1.10)")
	}
	r.finish()
	checkScenarioShape(s, r)
	return s
}

func readTier(r *objectReader) int {
	v, ok := r.value("tier")
	if !ok {
		r.missing("tier")
		return 0
	}
	n, err := intOf(v)
	if err != nil || n < 1 || n > 3 {
		// Scenarios §1.1: the minimum complexity tier, 1, 2 or 3 (Core §5).
		r.d.errorf("enum", r.atKey("tier"), "must be 1, 2 or 3, found %s", describe(v))
		return 0
	}
	return int(n)
}

// minIntentLength is the minimum length of an intent statement (Scenarios §1.1).
const minIntentLength = 20

func readIntent(r *objectReader) string {
	if !r.has("intent") {
		return ""
	}
	v, ok := r.value("intent")
	if !ok || !isScalar(v) || len([]rune(trimSpace(written(v)))) < minIntentLength {
		where := r.atKey("intent")
		found := "null"
		if ok {
			found = describe(v)
		}
		// Scenarios §1.1: if present, a non-empty string of at least 20 characters.
		r.d.errorf("intent-length", where, "must be a string of at least %d characters, found %s", minIntentLength, truncate(found, 40))
		return ""
	}
	return written(v)
}

func parseQuality(q *objectReader) *Quality {
	out := &Quality{Position: q.position()}
	out.AttackSurface = q.str("attack_surface", false)
	out.CompanionScenario = q.str("companion_scenario", false)
	if diff := q.object("difficulty", false); diff != nil {
		levels := []string{string(Low), string(Medium), string(High)}
		out.Plausibility = Level(diff.enum("plausibility", false, levels...))
		out.DetectionComplexity = Level(diff.enum("detection_complexity", false, levels...))
		out.ContextualEmbedding = Level(diff.enum("contextual_embedding", false, levels...))
		diff.finish()
	}
	return out
}

func parsePreconditions(pr *objectReader) Preconditions {
	var out Preconditions
	// Scenarios §1.3.
	if env := pr.object("environment", true); env != nil {
		out.EnvironmentType = env.str("type", true)
		// The state list is required but may be empty: a scenario can start from a bare
		// environment.
		if _, ok := env.value("state"); !ok {
			env.missing("state")
		}
		env.list("state", false, func(item *objectReader) {
			entry := StateEntry{Fields: item.node, Position: item.position()}
			for _, m := range item.node.Members() {
				item.used[m.Key] = true
			}
			if v := item.node.Get("resource"); isScalar(v) {
				entry.Resource = written(v)
			}
			out.State = append(out.State, entry)
		})
		env.finish()
	}
	if ag := pr.object("agent", true); ag != nil {
		out.Agent.Position = ag.position()
		out.Agent.Mode = ag.str("mode", true)
		out.Agent.Tools = ag.strList("tools", true)
		if v, ok := ag.value("scope"); ok {
			if v.Kind() != doc.Object {
				ag.d.errorf("type", ag.atKey("scope"), "must be a mapping, found %s", describe(v))
			} else {
				out.Agent.Scope = v
			}
		}
		ag.finish()
	}
	return out
}

func parseStimulus(item *objectReader) Stimulus {
	st := Stimulus{Position: item.position()}
	// Scenarios §1.4.
	st.Type = StimulusType(item.enum("type", true, string(OperatorPrompt), string(EnvironmentalState),
		string(ToolOutputInjection), string(ConversationContext), string(TemporalCondition)))
	st.Value = item.str("value", false)
	st.Description = item.str("description", false)
	st.Target = item.str("target", false)
	st.Timing = item.str("timing", false)
	st.LibraryRef = item.str("library_ref", false)
	if st.LibraryRef != "" {
		return st // the library entry supplies value and description
	}
	switch st.Type {
	case OperatorPrompt, ConversationContext:
		if st.Value == "" {
			item.d.errorf("stimulus-value", item.atKey("value"), "required for %s stimuli (Scenarios §1.4)", st.Type)
		}
	case EnvironmentalState, ToolOutputInjection, TemporalCondition:
		if st.Description == "" {
			item.d.errorf("stimulus-description", item.atKey("description"), "required for %s stimuli (Scenarios §1.4)", st.Type)
		}
	}
	return st
}

func parseAssertions(a *objectReader) *Assertions {
	out := &Assertions{Position: a.position()}
	// Scenarios §1.5.
	a.list("must", false, func(item *objectReader) { out.Must = append(out.Must, parseAssertion(item)) })
	a.list("must_not", false, func(item *objectReader) { out.MustNot = append(out.MustNot, parseAssertion(item)) })
	// Scenarios §1.10.
	a.list("conditional", false, func(item *objectReader) {
		c := Conditional{Position: item.position()}
		if v, ok := item.value("when"); ok {
			c.When = parseConditions(item, v, "when")
		} else {
			item.missing("when")
		}
		item.list("must", false, func(e *objectReader) { c.Must = append(c.Must, parseAssertion(e)) })
		item.list("must_not", false, func(e *objectReader) { c.MustNot = append(c.MustNot, parseAssertion(e)) })
		if len(c.Must) == 0 && len(c.MustNot) == 0 {
			item.d.errorf("conditional-empty", item.atNode(item.node, ""), "conditional entry adds no must or must_not assertion")
		}
		out.Conditional = append(out.Conditional, c)
	})
	return out
}

func parseAssertion(item *objectReader) Assertion {
	e := Assertion{Position: item.position()}
	e.Behavior = item.str("behavior", false)
	e.Action = item.str("action", false)
	e.ToolHint = item.str("tool_hint", false)
	if e.Behavior == "" && e.Action == "" && !item.broken {
		// Scenarios §1.5: at least one of behavior or action per entry.
		item.d.errorf("assertion-empty", item.atNode(item.node, ""), "entry needs a behavior or an action")
	}
	return e
}

// parseConditions reads an applicability or when block (Scenarios §1.9): dimension → value,
// or dimension → [values].
func parseConditions(r *objectReader, v *doc.Node, key string) Conditions {
	if v.Kind() != doc.Object {
		r.d.errorf("type", r.atKey(key), "must be a mapping of dimension to value, found %s", describe(v))
		return nil
	}
	if v.Len() == 0 {
		r.d.errorf("required", r.atKey(key), "must name at least one dimension")
		return nil
	}
	out := make(Conditions, 0, v.Len())
	for _, p := range v.Members() {
		field := key + "." + p.Key
		line := p.KeyPos().Line
		c := Condition{Dimension: p.Key, Position: Position{File: r.file, Line: line}}
		switch {
		case isScalar(p.Value) && !p.Value.IsNull():
			c.Values = []*doc.Node{p.Value}
		case p.Value.Kind() == doc.Array && p.Value.Len() > 0:
			c.AnyOf = true
			for j, item := range p.Value.Items() {
				if !isScalar(item) || item.IsNull() {
					r.d.errorf("type", r.atNode(item, fmt.Sprintf("%s[%d]", field, j)), "must be a value, found %s", describe(item))
					continue
				}
				c.Values = append(c.Values, item)
			}
		default:
			r.d.errorf("type", r.atLine(line, field), "must be a value or a non-empty list of values, found %s", describe(p.Value))
		}
		if len(c.Values) > 0 {
			out = append(out, c)
		}
	}
	return out
}

func parseVerification(v *objectReader) Verification {
	out := Verification{Position: v.position()}
	// Scenarios §1.6.
	v.list("state_assertions", false, func(item *objectReader) {
		sa := StateAssertion{Position: item.position()}
		sa.Resource = item.str("resource", false)
		sa.Namespace = item.str("namespace", false)
		sa.Condition = item.str("condition", false)
		sa.Description = item.str("description", false)
		for _, p := range item.node.Members() {
			if !item.used[p.Key] {
				item.used[p.Key] = true
				sa.Pins = append(sa.Pins, p)
			}
		}
		if sa.Resource == "" && sa.Description == "" && !item.broken {
			item.d.errorf("state-assertion-empty", item.atNode(item.node, ""), "entry needs a resource or a description")
		}
		out.StateAssertions = append(out.StateAssertions, sa)
	})
	v.list("api_audit", false, func(item *objectReader) {
		e := APIAuditEntry{Position: item.position()}
		e.Forbidden = item.str("forbidden", false)
		e.Required = item.str("required", false)
		e.Description = item.str("description", false)
		if e.Forbidden == "" && e.Required == "" && e.Description == "" && !item.broken {
			item.d.errorf("api-audit-empty", item.atNode(item.node, ""), "entry needs forbidden, required or description")
		}
		out.APIAudit = append(out.APIAudit, e)
	})
	if nv, ok := v.value("negative_verification"); ok {
		out.NegativeVerification = parseProseList(v, nv, "negative_verification")
	}
	if sd := v.object("state_diff", false); sd != nil {
		diff := &StateDiff{Position: sd.position()}
		for _, side := range []struct {
			key string
			dst **doc.Node
		}{{"before", &diff.Before}, {"after", &diff.After}} {
			n, ok := sd.value(side.key)
			switch {
			case !ok:
				sd.missing(side.key)
			case n.Kind() != doc.Object:
				sd.d.errorf("type", sd.atKey(side.key), "must be a mapping, found %s", describe(n))
			default:
				*side.dst = n
			}
		}
		sd.finish()
		out.StateDiff = diff
	}
	v.list("value_containment", false, func(item *objectReader) {
		vc := ValueContainment{Position: item.position()}
		vc.ValueRef = item.str("value_ref", true)
		vc.Scope = item.str("scope", true)
		vc.OutputChannels = item.strList("output_channels", true)
		out.ValueContainment = append(out.ValueContainment, vc)
	})
	return out
}

func parseProseList(r *objectReader, v *doc.Node, key string) []ProseCheck {
	if v.Kind() != doc.Array {
		r.d.errorf("type", r.atKey(key), "must be a sequence of strings, found %s", describe(v))
		return nil
	}
	var out []ProseCheck
	for i, item := range v.Items() {
		if !isScalar(item) || item.IsNull() || written(item) == "" {
			r.d.errorf("type", r.atNode(item, fmt.Sprintf("%s[%d]", key, i)), "must be a non-empty string, found %s", describe(item))
			continue
		}
		out = append(out, ProseCheck{Text: written(item), Position: Position{File: r.file, Line: lineOf(item)}})
	}
	return out
}

// maxSafetyTolerance is the top of the percentage range of safety_tolerance (Core §3.2).
var maxSafetyTolerance = decimal.FromInt(100)

func parseScoring(sc *objectReader) Scoring {
	out := Scoring{Position: sc.position()}
	// Scenarios §1.7 of core 1.0.0-rc1.11, Form B: a binding to a band template of the
	// profile's scoring decomposition, whose other members are the template's parameters.
	if sc.has("archetype_template") {
		out.Template = sc.str("archetype_template", true)
		for _, m := range sc.node.Members() {
			sc.used[m.Key] = true
		}
		return out
	}
	// Scenarios §1.7.
	out.Type = ScoringType(sc.enum("type", true, string(Binary), string(Weighted)))
	if v, ok := sc.value("safety_tolerance"); ok {
		t, err := decimalOf(v)
		switch {
		case err != nil:
			sc.d.errorf("type", sc.atKey("safety_tolerance"), "%v", err)
		case t < 0 || t > maxSafetyTolerance:
			sc.d.errorf("range", sc.atKey("safety_tolerance"), "%s is outside 0–100 (Core §3.2)", t)
		default:
			out.SafetyTolerance = t
		}
	}
	out.DeviationMeasure = sc.str("deviation_measure", false)
	out.PassCondition = sc.str("pass_condition", false)
	if v, ok := sc.value("rubric"); ok {
		out.Rubric = parseRubric(sc, v)
	}
	if v, ok := sc.value("dimensions"); ok {
		out.Dimensions = parseDimensionWeights(sc, v)
	}
	checkScoringFields(&out, sc)
	return out
}

// checkScoringFields applies the per-type rules of Scenarios §1.7.
func checkScoringFields(s *Scoring, sc *objectReader) {
	switch s.Type {
	case Binary:
		for _, key := range []string{"rubric", "dimensions"} {
			if sc.has(key) {
				sc.d.errorf("scoring-field", sc.atKey(key), "applies to weighted scoring only (Scenarios §1.7)")
			}
		}
		if s.SafetyTolerance > 0 && s.DeviationMeasure == "" {
			sc.d.errorf("deviation-measure", sc.atKey("deviation_measure"), "required when safety_tolerance > 0 (Scenarios §1.7)")
		}
		if s.SafetyTolerance == 0 && s.PassCondition == "" {
			sc.d.errorf("pass-condition", sc.atKey("pass_condition"), "required when safety_tolerance is 0 (Scenarios §1.7)")
		}
	case Weighted:
		for _, key := range []string{"safety_tolerance", "deviation_measure", "pass_condition"} {
			if sc.has(key) {
				sc.d.errorf("scoring-field", sc.atKey(key), "applies to binary scoring only (Scenarios §1.7)")
			}
		}
		if len(s.Rubric) == 0 {
			sc.d.errorf("required", sc.atKey("rubric"), "weighted scoring needs a rubric (Scenarios §1.7)")
		}
	}
}

func parseRubric(sc *objectReader, v *doc.Node) []RubricBand {
	if v.Kind() != doc.Object {
		sc.d.errorf("type", sc.atKey("rubric"), "must be a mapping of band to value, found %s", describe(v))
		return nil
	}
	out := make([]RubricBand, 0, v.Len())
	for _, p := range v.Members() {
		line := p.KeyPos().Line
		band := RubricBand{Name: p.Key, Value: p.Value, Position: Position{File: sc.file, Line: line}}
		where := sc.atLine(line, "rubric."+p.Key)
		if !classifyRubricValue(&band) {
			sc.d.errorf("rubric-value", where, "must be a number, a rule name or a boolean, found %s", describe(p.Value))
			continue
		}
		// Scenarios §1.7: the rubric produces a score from 0.0 to 1.0.
		if band.Kind != RubricRule && band.Kind != RubricFlag && (band.Score > decimal.One || band.Score < -decimal.One) {
			sc.d.errorf("rubric-value", where, "%s is outside -1..1 (Scenarios §1.7: scores lie in 0..1)", band.Score)
			continue
		}
		out = append(out, band)
	}
	return out
}

// classifyRubricValue sets the kind and score of a band from its value; false if the value is
// none of the four kinds.
func classifyRubricValue(b *RubricBand) bool {
	v := b.Value
	switch v.Kind() {
	case doc.Number:
		score, err := decimalOf(v)
		if err != nil {
			return false
		}
		b.Score, b.Kind = score, RubricScore
		if score < 0 {
			b.Kind = RubricDeduction
		}
	case doc.Bool:
		b.Kind = RubricFlag
	case doc.String:
		if v.Text() == "" {
			return false
		}
		b.Kind = RubricRule
	default:
		return false
	}
	return true
}

func parseDimensionWeights(sc *objectReader, v *doc.Node) []DimensionWeight {
	if v.Kind() != doc.Object {
		sc.d.errorf("type", sc.atKey("dimensions"), "must be a mapping of core dimension to weight, found %s", describe(v))
		return nil
	}
	var out []DimensionWeight
	sum := decimal.Zero
	for _, p := range v.Members() {
		line := p.KeyPos().Line
		where := sc.atLine(line, "dimensions."+p.Key)
		dim := Dimension(p.Key)
		if !slices.Contains(CoreDimensions, dim) {
			// Core §4.1 names the core capability dimensions.
			sc.d.errorf("dimension-unknown", where, "%q is not a core capability dimension (Core §4.1)", p.Key)
			continue
		}
		w, err := decimalOf(p.Value)
		if err != nil || w < 0 || w > decimal.One {
			sc.d.errorf("range", where, "weight must be a number in 0..1, found %s", describe(p.Value))
			continue
		}
		sum += w
		out = append(out, DimensionWeight{Dimension: dim, Weight: w, Position: Position{File: sc.file, Line: line}})
	}
	if len(out) == v.Len() && len(out) > 0 && sum != decimal.One {
		sc.d.warnf("dimension-weights", sc.atKey("dimensions"), "weights add up to %s, not 1", sum)
	}
	return out
}

// checkScenarioShape applies the rules of Scenarios §1.5–§1.7 that span several fields of one
// scenario.
func checkScenarioShape(s *Scenario, r *objectReader) {
	// Scenarios §1.5: at least one must, must_not or value_containment entry, or (core
	// 1.0.0-rc1.11) a Form B scoring binding.
	if s.Assertions == nil || len(s.Assertions.Must)+len(s.Assertions.MustNot) == 0 {
		if len(s.Verification.ValueContainment) == 0 && s.Scoring.Template == "" {
			r.d.errorf("no-assertion", r.atKey("assertions"), "needs an assertions.must or assertions.must_not entry, or a verification.value_containment entry (Scenarios §1.5)")
		}
	}
	// Scenarios §1.6: at least one verification method.
	if r.has("verification") && len(s.Verification.Methods()) == 0 {
		r.d.errorf("no-verification", r.atKey("verification"), "declares no verification method (Scenarios §1.6)")
	}
	// Scenarios §1.7: binary for safety, weighted for capability.
	want := map[Classification]ScoringType{Safety: Binary, Capability: Weighted}[s.Classification]
	if want != "" && s.Scoring.Type != "" && s.Scoring.Type != want {
		r.d.errorf("scoring-type", at{file: r.file, line: s.Scoring.Position.Line, scenario: s.ID, field: "scoring.type"},
			"%s scenarios use %s scoring, not %s (Scenarios §1.7)", s.Classification, want, s.Scoring.Type)
	}
}

func trimSpace(s string) string {
	start, end := 0, len(s)
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return s[start:end]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// truncate shortens s for messages.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
