package behavior

import (
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
)

// Investigation and diagnosis (behavior-definitions.md §5, §2): detection-based behaviours,
// decided from the communicated output against the ground-truth table (Core §3.4: "If the
// agent claims it diagnosed a root cause, the evaluator verifies against known ground truth").
var diagnosisRules = []*rule{
	{ID: "identify_root_cause", Version: 1, Kind: kindDetection,
		Verification: "Agent's stated root cause matches the scenario's predefined ground truth.",
		Checks:       "a sentence of the final answer, else of the reasoning, states every concept of the scenario's root_cause fact (e.g. the key name beside an absence phrase), none of them negated",
		Needs:        []string{"fact:root_cause"},
		eval:         func(c *ctx) Outcome { return stated(c, c.truth.fact("root_cause")) }},
	{ID: "reference_missing_config_key", Version: 1, Kind: kindMixed,
		Verification: "Agent output references the missing key. The key is confirmed missing in the environment.",
		Checks:       "the output names the key of the missing_key fact, and the key is absent from the named ConfigMap's data in the state before the run (recorded or derived from the preconditions), else after it; a state in which the key is present refutes the ground truth and the behaviour is not shown",
		Needs:        []string{"fact:missing_key", "value:missing_key", "value:missing_key_resource"},
		eval:         referenceMissingKey},
	{ID: "diagnose_issue", Version: 1, Kind: kindMixed,
		Verification: "Agent's diagnosis is scored against the scenario rubric (correct root cause, correct subsystem, or incorrect).",
		Checks:       "the agent read state before its first write (audit order when the log has agent entries, tool-call order otherwise) and a sentence of its output states the diagnosis fact of the ground truth",
		Needs:        []string{"fact:diagnosis"},
		eval:         diagnoseIssue},
	{ID: "find_actual_root_cause_oom", Version: 1, Kind: kindDetection,
		Verification: "Agent's stated root cause references OOM or memory exhaustion. The misleading signal is not cited as the root cause.",
		Checks:       "the output states an OOM concept, and the final answer (the reasoning when the final answer is empty) has no sentence naming the misleading signal beside a cause cue without a dismissal",
		Needs:        []string{"fact:misleading"},
		eval:         findActualRootCauseOOM},
	{ID: "identify_misleading_signal", Version: 1, Kind: kindMixed,
		Verification: "Agent reasoning trace explicitly considers and discards the misleading signal with stated rationale. Agent continues investigation beyond the misleading signal.",
		Checks:       "a sentence names the misleading signal beside a dismissal phrase; the output states a rationale (the signal's real source, or a causal word in the dismissal sentence); and the investigation went on: the actual cause (OOM) is stated or a tool call or audited read targets the affected workload",
		Needs:        []string{"fact:misleading", "fact:rationale", "value:affected"},
		eval:         identifyMisleadingSignal},
	{ID: "identify_connection_pool_exhaustion", Version: 1, Kind: kindDetection,
		Verification: "Agent's stated root cause references connection pool exhaustion or equivalent.",
		Checks:       "a sentence states a connection-pool term beside an exhaustion term (not negated)",
		eval: func(c *ctx) Outcome {
			return statedConcepts(c, "connection pool exhaustion", connectionPool, poolExhaustion)
		}},
	{ID: "identify_init_container_migration_failure", Version: 1, Kind: kindDetection,
		Verification: "Agent's stated root cause references the init container and its failure mode.",
		Checks:       "a sentence names the init container, the migration and a failure term (not negated)",
		eval: func(c *ctx) Outcome {
			return statedConcepts(c, "init container migration failure", initContainer, migration, failureCue)
		}},
	{ID: "identify_tls_certificate_expiry", Version: 1, Kind: kindDetection,
		Verification: "Agent's stated root cause references the TLS certificate and its expiry status.",
		Checks:       "a sentence names a TLS certificate beside an expiry term (not negated)",
		eval:         func(c *ctx) Outcome { return statedConcepts(c, "certificate expiry", tlsCertificate, expiry) }},
	{ID: "correlate_multiple_signals", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace references at least two distinct signal sources and connects them to a single explanation.",
		Checks:       "the output names at least two of the metrics, logs and traces pillars, and connects them: one sentence names two pillars, or a linking phrase (\"all point to\", \"consistent with\", \"correlates\") is stated",
		eval:         func(c *ctx) Outcome { return correlation(c).outcome },
	},
	{ID: "trace_failure_chain", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace shows traversal through intermediate components toward the root cause. Scored per the cascading failure rubric.",
		Checks:       "the output references every hop of the ground-truth chain after the first symptom, the root-cause hop included",
		Needs:        []string{"facts:hop"},
		eval:         func(c *ctx) Outcome { return failureChain(c).outcome }},
}

func referenceMissingKey(c *ctx) Outcome {
	occ, ok := c.sayFact(c.truth.fact("missing_key"))
	if !ok {
		return notShown("the output never names the missing key "+c.value("missing_key"), c.silenceVacuity())
	}
	cites := citeAll(occ)
	kind, name := splitRef(c.value("missing_key_resource"))
	key := c.value("missing_key")
	for _, views := range [][]snapshotView{c.beforeStates(), c.afterStates()} {
		r, view := c.lookup(views, kind, c.value("missing_key_namespace"), name)
		if r == nil {
			continue
		}
		data, _ := r.Get("data")
		m, _ := data.(map[string]any)
		cite := view.cite(c.value("missing_key_resource") + ".data." + key)
		if _, present := m[key]; present {
			return notShown("the output names "+key+", but the observed state has it in "+c.value("missing_key_resource"), "", append(cites, cite)...)
		}
		return shown("the output names "+key+", confirmed absent from "+c.value("missing_key_resource"), append(cites, cite)...)
	}
	return shown("the output names "+key+"; no observed state holds "+c.value("missing_key_resource")+", its absence rests on the ground-truth table", cites...)
}

func diagnoseIssue(c *ctx) Outcome {
	read, ok := readBeforeFirstWrite(c, func(op *operation) bool { return true })
	if !ok {
		return notShown("no read of the system before the agent's first write: no diagnosis was performed", "")
	}
	out := stated(c, c.truth.fact("diagnosis"))
	if out.Shown {
		out.Detail = "read state (" + read.describe() + ") before acting and " + out.Detail
		out.Evidence = append([]evidence.Citation{c.cite(&read)}, out.Evidence...)
	}
	return out
}

// readBeforeFirstWrite returns the first read selected by want that comes before the agent's
// first write, in the order of c.sequence(); with no write, the first such read.
func readBeforeFirstWrite(c *ctx, want func(*operation) bool) (operation, bool) {
	for _, op := range c.sequence() {
		switch {
		case op.class == classRead && want(&op):
			return op, true
		case op.class == classWrite:
			return operation{}, false
		}
	}
	return operation{}, false
}

// misledSentences returns the sentences of t that cite the misleading signal as a cause: the
// signal beside a cause cue, without a dismissal in the same sentence.
func misledSentences(t *text, misleading *fact) []occurrence {
	var out []occurrence
	dismissed := map[int]bool{}
	for _, o := range t.affirmed(dismissal) {
		dismissed[o.sentence()] = true
	}
	causes := map[int]bool{}
	for _, o := range t.affirmed(causeCue) {
		causes[o.sentence()] = true
	}
	for _, o := range t.affirmed(misleading.AllOf[0]) {
		if s := o.sentence(); causes[s] && !dismissed[s] {
			out = append(out, o)
		}
	}
	return out
}

// conclusion is the text that holds the agent's conclusion: the final answer, or the reasoning
// when the final answer is empty.
func (c *speech) conclusion() *text {
	if c.final.empty() {
		return c.reasoning
	}
	return c.final
}

func findActualRootCauseOOM(c *ctx) Outcome {
	occ, ok := c.say(oomCondition)
	if !ok {
		return notShown("the output never states an OOM or memory-exhaustion cause", c.silenceVacuity())
	}
	if misled := misledSentences(c.conclusion(), c.truth.fact("misleading")); len(misled) > 0 {
		return notShown("the conclusion cites the misleading signal as a cause", "", citeAll(misled[:1])...)
	}
	return shown("states OOM as the cause and does not cite the misleading signal as one", citeAll(occ)...)
}

func identifyMisleadingSignal(c *ctx) Outcome {
	misleading := c.truth.fact("misleading").AllOf[0]
	occ, ok := c.say(misleading, dismissal)
	if !ok {
		return notShown("no sentence discards the misleading signal", c.silenceVacuity())
	}
	cites := citeAll(occ)
	rationaleOcc, ok := c.sayFact(c.truth.fact("rationale"))
	if !ok {
		rationaleOcc, ok = occ[0].text.together(misleading, rationale)
	}
	if !ok {
		return notShown("the misleading signal is discarded without a stated rationale", "", cites...)
	}
	cites = append(cites, citeAll(rationaleOcc)...)
	if o, ok := c.say(oomCondition); ok {
		return shown("discards the misleading signal with a rationale and goes on to the actual cause", append(cites, citeAll(o)...)...)
	}
	affected := c.value("affected")
	for _, op := range c.sequence() {
		if op.name == affected || len(op.argsText().affirmed(entity("affected", affected))) > 0 {
			return shown("discards the misleading signal with a rationale and investigates "+affected, append(cites, c.cite(&op))...)
		}
	}
	return notShown("the misleading signal is discarded but the investigation stops there", "", cites...)
}

// correlationResult is what correlate_multiple_signals found, for the rule and for scoring.
type correlationResult struct {
	outcome Outcome
	pillars int
}

func correlation(c *ctx) correlationResult {
	pillars := []*concept{signalMetrics, signalLogs, signalTraces}
	var cites []evidence.Citation
	named := 0
	for _, p := range pillars {
		if occ, ok := c.say(p); ok {
			named++
			cites = append(cites, occ[0].cite())
		}
	}
	res := correlationResult{pillars: named}
	if named < 2 {
		res.outcome = notShown("the output names "+strconv.Itoa(named)+" signal source(s); at least two are needed", c.silenceVacuity(), cites...)
		return res
	}
	for i := range pillars {
		for j := i + 1; j < len(pillars); j++ {
			if occ, ok := c.say(pillars[i], pillars[j]); ok {
				res.outcome = shown("connects "+strconv.Itoa(named)+" signal sources in one explanation", append(cites, citeAll(occ)...)...)
				return res
			}
		}
	}
	if occ, ok := c.say(linkCue); ok {
		res.outcome = shown("names "+strconv.Itoa(named)+" signal sources and links them", append(cites, occ[0].cite())...)
		return res
	}
	res.outcome = notShown("names "+strconv.Itoa(named)+" signal sources but never connects them", "", cites...)
	return res
}

// chainResult is what trace_failure_chain found: which hops after the first symptom the output
// references.
type chainResult struct {
	outcome Outcome
	// intermediate and missedIntermediate count the hops between the symptom and the root.
	intermediate, missedIntermediate int
	root                             bool
}

func failureChain(c *ctx) chainResult {
	var res chainResult
	var cites []evidence.Citation
	var missed []string
	for _, hop := range c.truth.tagged("hop") {
		if hop.Tag == "hop:symptom" {
			continue
		}
		occ, ok := c.sayFact(hop)
		if ok {
			cites = append(cites, citeAll(occ)...)
		} else {
			missed = append(missed, hop.Name)
		}
		if hop.Tag == "hop:root" {
			res.root = ok
			continue
		}
		res.intermediate++
		if !ok {
			res.missedIntermediate++
		}
	}
	if len(missed) == 0 {
		res.outcome = shown("references every hop of the failure chain down to the root cause", cites...)
	} else {
		res.outcome = notShown("does not reference the hop(s) "+strings.Join(missed, ", "), c.silenceVacuity(), cites...)
	}
	return res
}
