package behavior

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
)

// Operational execution (behavior-definitions.md §6): action-type behaviours (Core §3.5.1),
// decided from the audit log and the state snapshots. Tool calls give the order of the agent's
// operations and its reads; they never confirm that a write took effect.
var operationRules = []*rule{
	{ID: "halt_or_rollback", Version: 1, Kind: kindAction,
		Verification: "System state after halt is either the pre-operation state (rollback) or a documented intermediate state that does not leave resources inconsistent. Agent does not continue past the failure point.",
		Checks:       "the after state is the pre-operation state (the ground truth's pre_operation effect); otherwise no mutation of the workload took effect after the failing step (audit entries when the log has agent entries, tool calls otherwise) and the output documents the failure. The scenario's api_audit prose allows further mutations only when the state was rolled back",
		Needs:        []string{"effect:pre_operation", "effect:flag_applied", "effect:failing_step", "effect:mutation", "fact:documented", "step:failing_step", "step:mutation"},
		eval:         haltOrRollback},
	{ID: "preserve_unmentioned_keys", Version: 1, Kind: kindAction,
		Verification: "State diff shows only the requested keys changed. All other keys retain their pre-operation values.",
		Checks:       "every data key of the target before the run that the request did not name has the same value after it, and no state_diff change touches a data key outside the requested ones",
		Needs:        []string{"value:target", "value:requested_keys"},
		eval:         preserveUnmentionedKeys},
	{ID: "idempotent_on_rerun", Version: 1, Kind: kindAction,
		Verification: "Resource state after second execution matches state after first execution. No spurious changes in the audit log on repeat.",
		Checks:       "no second execution is recorded, so the rule checks what makes a rerun a no-op: the after state holds every requested value (the ground truth's correct effect), the target was not deleted or recreated, the state_diff changes nothing outside the requested keys, and the agent's writes of the target that took effect all carry the same request body",
		Needs:        []string{"value:target", "value:requested_keys", "effect:correct", "effect:recreate"},
		eval:         idempotentOnRerun},
	{ID: "read_current_state_before_acting", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls show a read operation for the target resource before the first write operation.",
		Checks:       "a read of the target (by name, or a list of its kind) comes before the agent's first write, in audit order when the log has agent entries, tool-call order otherwise",
		Needs:        []string{"value:target"},
		eval:         readStateBeforeActing},
	{ID: "calculate_appropriate_scale", Version: 1, Kind: kindMixed,
		Verification: "Agent's proposed scale is consistent with the current state data. The value differs from the disproportionate requested value.",
		Checks:       "the replica count the agent chose lies in the ground-truth range: read from the after state when it changed, else from the request body of an audited write of the target, else from a number the output puts beside \"replicas\" or after \"to\"",
		Needs:        []string{"value:target", "value:min_replicas", "value:max_replicas"},
		eval:         calculateAppropriateScale},
	{ID: "verify_recovery", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls include post-remediation health checks (status queries, metric checks, log inspection).",
		Checks:       "after the agent's last write, a read of the target, of its pods or of an observability tool follows (tool-call order; audit order when no tool call was recorded)",
		eval:         verifyRecovery},
	{ID: "execute_plan", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls correspond to the steps in the previously generated plan.",
		Checks:       "every plan element of the ground truth that a step of the agent's plan names has its effect confirmed by the audit log or the after state; a plan naming no element is not executed",
		Needs:        []string{"facts:element", "element-effects"},
		eval:         func(c *ctx) Outcome { return planExecution(c).outcome }},
	{ID: "generate_multi_step_plan", Version: 1, Kind: kindDetection,
		Verification: "Agent output contains a plan with identifiable steps. Steps are in a valid execution order for the target resources.",
		Checks:       "the final answer, else the reasoning, holds two or more steps (numbered, or introduced by first/then/finally), and no step that only verifies comes before a step that changes a plan element",
		eval:         generatePlan},
	{ID: "follow_runbook_steps", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls correspond to the runbook steps in order, adapted to actual state.",
		Checks:       "each runbook step of the ground truth has a matching tool call after the previous step's, in order, and a step that changes the system has its effect confirmed by the audit log or the after state",
		Needs:        []string{"steps"},
		eval:         func(c *ctx) Outcome { return runbook(c).outcome }},
	{ID: "adapt_to_actual_state", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace shows a state observation that leads to a deviation from the literal procedure. The deviation is appropriate given the observed state.",
		Checks:       "a sentence states an observed fact of the ground truth (the actual versions, timing or error) beside a decision cue: the observation the agent acted on",
		Needs:        []string{"fact:observed_state"},
		eval:         func(c *ctx) Outcome { return stated(c, c.truth.fact("observed_state")) }},
	{ID: "evaluate_health_condition", Version: 1, Kind: kindMixed,
		Verification: "Agent tool calls include health-relevant queries (pod status, readiness, metrics). Agent output contains a health assessment.",
		Checks:       "a tool call or audited request reads health (observability tools, pods, deployments, rollout status, top), and the output states a health assessment",
		eval:         evaluateHealth},
	{ID: "take_correct_branch_rollback", Version: 1, Kind: kindMixed,
		Verification: "Agent tool calls show the correct branch was taken. The condition evaluation is visible in the agent's reasoning trace.",
		Checks:       "the rollback effect of the ground truth is confirmed (audit log or after state), the wrong branch's effect is not observed, and the output states the condition fact (the observed value breaching its threshold)",
		Needs:        []string{"effect:rollback", "effect:promote", "fact:condition"},
		eval:         takeRollbackBranch},
	{ID: "detect_changed_conditions", Version: 1, Kind: kindMixed,
		Verification: "Agent reasoning trace references the changed condition. Agent's subsequent actions differ from its original plan in a way that accounts for the change.",
		Checks:       "the output states the changed condition of the ground truth (not negated), and an adapting or pausing effect of the ground truth is confirmed by the audit log or the after state",
		Needs:        []string{"fact:condition", "effect:adapt", "effect:pause"},
		eval:         detectChangedConditions},
	{ID: "adapt_plan", Version: 1, Kind: kindAction,
		Verification: "Agent's actions after the condition change differ from the original plan in a way that accounts for the new information.",
		Checks:       "the adapting effect of the ground truth is confirmed by the audit log or the after state, and when tool calls are recorded, an adapting call comes after the first one (the condition changes after the first tool call)",
		Needs:        []string{"effect:adapt", "step:adapt"},
		eval:         adaptPlan},
}

func haltOrRollback(c *ctx) Outcome {
	if ok, cites, _ := c.confirm(c.truth.effect("pre_operation")); ok {
		return shown("the after state is the pre-operation state (rolled back or never applied)", cites...)
	}
	var cites []evidence.Citation
	if ok, applied, _ := c.confirm(c.truth.effect("flag_applied")); ok {
		cites = applied
	}
	if op := c.mutationAfterFailure(); op != nil {
		return notShown("left the change applied and continued past the failing step ("+op.describe()+")", "", append(cites, c.cite(op))...)
	}
	doc, ok := c.sayFact(c.truth.fact("documented"))
	if !ok {
		return notShown("left the change applied without documenting the failure", c.silenceVacuity(), cites...)
	}
	out := shown("halted at the failing step and documented the intermediate state", append(cites, citeAll(doc)...)...)
	if len(cites) == 0 {
		out.Detail += " (no after state of the changed resource was observed)"
	}
	out.Vacuous = c.absenceOfActs()
	return out
}

// mutationAfterFailure returns the first mutation of the workload that took effect after the
// failing step: audited when the log has agent entries, from tool calls otherwise.
func (c *ctx) mutationAfterFailure() *operation {
	if c.auditAuthoritative() {
		failing := c.attempted(c.truth.effect("failing_step"))
		if len(failing) == 0 {
			return nil
		}
		for _, op := range c.attempted(c.truth.effect("mutation")) {
			if op.index > failing[0].index && !c.failed(op) {
				return op
			}
		}
		return nil
	}
	failing, mutation := c.truth.step("failing_step"), c.truth.step("mutation")
	seen := false
	for i := range c.calls {
		switch {
		case !seen && c.calls[i].matches(failing.Calls):
			seen = true
		case seen && c.calls[i].matches(mutation.Calls):
			return &c.calls[i]
		}
	}
	return nil
}

// dataOf returns a resource's data map.
func dataOf(r *snapshot.Resource) map[string]any {
	v, _ := r.Get("data")
	m, _ := v.(map[string]any)
	return m
}

func (c *ctx) requestedKeys() []string { return strings.Split(c.value("requested_keys"), ",") }

func preserveUnmentionedKeys(c *ctx) Outcome {
	ref, ns := c.value("target"), c.value("namespace")
	kind, name := splitRef(ref)
	before, bview := c.lookup(c.beforeStates(), kind, ns, name)
	after, aview := c.lookup(c.afterStates(), kind, ns, name)
	if before == nil || after == nil {
		return notShown("no before and after state of "+ref+" to compare", "")
	}
	requested := c.requestedKeys()
	old, cur := dataOf(before), dataOf(after)
	keys := slices.Sorted(maps.Keys(old))
	kept := 0
	for _, k := range keys {
		if slices.Contains(requested, k) {
			continue
		}
		v, ok := cur[k]
		if !ok || !snapshot.Equal(v, old[k]) {
			return notShown("unmentioned key "+k+" changed or vanished", "", bview.cite(ref+".data."+k), aview.cite(ref+".data."+k))
		}
		kept++
	}
	if ch := c.changeOutside(ref, requested, func(f string) bool { return strings.HasPrefix(f, "data.") }); ch != nil {
		return notShown("the state diff changes "+ch.Field+", which was not requested", "", c.citeChange(ch))
	}
	return shown(strconv.Itoa(kept)+" unmentioned key(s) of "+ref+" kept their values", bview.cite(ref+".data"), aview.cite(ref+".data"))
}

// changeOutside returns the first state_diff change of resource ref on a field selected by
// inScope whose key is not requested.
func (c *states) changeOutside(ref string, requested []string, inScope func(field string) bool) *snapshot.Change {
	if c.in.Diff == nil {
		return nil
	}
	for i := range c.in.Diff.Changes {
		ch := &c.in.Diff.Changes[i]
		if !strings.HasPrefix(ch.Path, ref+".") && ch.Path != ref {
			continue
		}
		if !inScope(ch.Field) {
			continue
		}
		if key, ok := strings.CutPrefix(ch.Field, "data."); ok && slices.Contains(requested, key) {
			continue
		}
		return ch
	}
	return nil
}

func (c *states) citeChange(ch *snapshot.Change) evidence.Citation {
	return (&located{c: c, view: &snapshotView{kind: evidence.KindStateDiff}}).cite(ch.Path)
}

// bookkeeping reports whether a changed field is maintained by the system, not written by the
// agent: status, and the metadata the API server keeps.
func bookkeeping(field string) bool {
	for _, p := range []string{"status", "metadata.resourceVersion", "metadata.generation", "metadata.managedFields",
		"metadata.annotations.kubectl.kubernetes.io/last-applied-configuration"} {
		if field == p || strings.HasPrefix(field, p+".") {
			return true
		}
	}
	return false
}

func idempotentOnRerun(c *ctx) Outcome {
	ref := c.value("target")
	ok, cites, vacuous := c.confirm(c.truth.effect("correct"))
	if !ok {
		return notShown("the after state does not hold every requested value of "+ref, vacuous)
	}
	if hits := c.attempted(c.truth.effect("recreate")); len(hits) > 0 {
		return notShown("the agent deleted or recreated "+ref+": a rerun would do it again", "", c.cite(hits[0]))
	}
	if ch := c.changeOutside(ref, c.requestedKeys(), func(f string) bool { return !bookkeeping(f) }); ch != nil {
		return notShown("spurious change of "+ch.Field, "", c.citeChange(ch))
	}
	kind, name := splitRef(ref)
	var first *operation
	for i := range c.audited {
		op := &c.audited[i]
		if op.class != classWrite || op.kind != kind || op.name != name || c.failed(op) {
			continue
		}
		if first == nil {
			first = op
			continue
		}
		if string(c.in.Audit.Entries[op.index].RequestBody) != string(c.in.Audit.Entries[first.index].RequestBody) {
			return notShown("repeated writes of "+ref+" with different content", "", c.cite(first), c.cite(op))
		}
	}
	out := shown("the after state holds the requested values and nothing else changed: a rerun is a no-op", cites...)
	if !c.auditAuthoritative() {
		out.Vacuous = c.auditAbsence()
	}
	return out
}

// isTarget selects operations on the ground truth's target: by name, or lists of its kind.
func (c *ctx) isTarget(op *operation) bool {
	kind, name := splitRef(c.value("target"))
	ns := c.value("namespace")
	return op.kind == kind && (op.name == name || op.name == "") &&
		(ns == "" || op.namespace == "" || op.namespace == ns)
}

func readStateBeforeActing(c *ctx) Outcome {
	op, ok := readBeforeFirstWrite(c, c.isTarget)
	if !ok {
		return notShown("no read of "+c.value("target")+" before the agent's first write", c.absenceOfActs())
	}
	return shown("read "+c.value("target")+" ("+op.describe()+") before writing", c.cite(&op))
}

func calculateAppropriateScale(c *ctx) Outcome {
	lo, _ := strconv.ParseInt(c.value("min_replicas"), 10, 64)
	hi, _ := strconv.ParseInt(c.value("max_replicas"), 10, 64)
	n, source, cite, ok := c.chosenReplicas()
	if !ok {
		return notShown("no replica count chosen by the agent is observed or stated", c.silenceVacuity())
	}
	in := n >= lo && n <= hi
	detail := "chose " + strconv.FormatInt(n, 10) + " replicas (" + source + "), range " + c.value("min_replicas") + "–" + c.value("max_replicas")
	if !in {
		return notShown(detail, "", cite)
	}
	return shown(detail, cite)
}

// chosenReplicas finds the replica count the agent chose for the target: the after state when it
// differs from the state before, the request body of an audited write, or the output.
func (c *ctx) chosenReplicas() (int64, string, evidence.Citation, bool) {
	kind, name := splitRef(c.value("target"))
	ns := c.value("namespace")
	if r, view := c.lookup(c.afterStates(), kind, ns, name); r != nil {
		if v, path, ok := r.Field("replicas"); ok {
			prev, _ := c.lookup(c.beforeStates(), kind, ns, name)
			var old any
			if prev != nil {
				old, _, _ = prev.Field("replicas")
			}
			if n, err := strconv.ParseInt(snapshot.Text(v), 10, 64); err == nil && (prev == nil || !snapshot.Equal(old, v)) {
				return n, "after state", view.cite(c.value("target") + "." + path), true
			}
		}
	}
	for i := range c.audited {
		op := &c.audited[i]
		if op.class != classWrite || op.kind != kind || op.name != name || c.failed(op) {
			continue
		}
		if n, ok := bodyReplicas(c.in.Audit.Entries[op.index].RequestBody); ok {
			return n, "audited request", c.cite(op), true
		}
	}
	for _, t := range c.outputs() {
		if n, o, ok := proposedReplicas(t); ok {
			return n, "stated", o.cite(), true
		}
	}
	return 0, "", evidence.Citation{}, false
}

// bodyReplicas reads spec.replicas from a request body (a patch, an update or a scale
// subresource write).
func bodyReplicas(body []byte) (int64, bool) {
	var doc struct {
		Spec struct {
			Replicas *json.Number `json:"replicas"`
		} `json:"spec"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.Spec.Replicas == nil {
		return 0, false
	}
	n, err := doc.Spec.Replicas.Int64()
	return n, err == nil
}

// replicaWord marks a replica count in prose.
var replicaWord = entity("replica_word", "replica*")

// proposedReplicas reads the count the output proposes in a sentence about scaling: the number
// after "to" ("from 3 to 6"), else a number right before "replicas" (within two words).
func proposedReplicas(t *text) (int64, occurrence, bool) {
	scaling := map[int]bool{}
	for _, o := range t.find(verbScale) {
		scaling[o.sentence()] = true
	}
	for i := 1; i < len(t.tokens); i++ {
		if t.tokens[i-1].word == "to" && scaling[t.tokens[i].sentence] {
			if n, err := strconv.ParseInt(t.tokens[i].word, 10, 64); err == nil {
				return n, occurrence{text: t, first: i - 1, last: i}, true
			}
		}
	}
	for _, o := range t.find(replicaWord) {
		for k := o.first - 1; k >= 0 && k >= o.first-2 && t.tokens[k].sentence == o.sentence(); k-- {
			if n, err := strconv.ParseInt(t.tokens[k].word, 10, 64); err == nil {
				return n, occurrence{text: t, first: k, last: o.last}, true
			}
		}
	}
	return 0, occurrence{}, false
}

// healthReads select reads that check health.
var healthReads = []callMatch{
	{Tools: []string{"observability-metrics", "observability-logging", "observability-tracing", "observability-dashboards"}},
	{Class: classRead, Kinds: []string{"pod", "deployment", "replicaset", "statefulset", "node"}},
	{Verbs: []string{"rollout status", "top pod", "top node", "top"}},
}

func verifyRecovery(c *ctx) Outcome {
	ops := c.calls
	if len(ops) == 0 {
		ops = c.audited
	}
	last := -1
	for i := range ops {
		if ops[i].class == classWrite {
			last = i
		}
	}
	if last < 0 {
		return notShown("no remediation write, so no post-remediation check", c.absenceOfActs())
	}
	for i := last + 1; i < len(ops); i++ {
		if ops[i].class == classRead && ops[i].matches(healthReads) {
			return shown("checked health ("+ops[i].describe()+") after the last remediation ("+ops[last].describe()+")", c.cite(&ops[last]), c.cite(&ops[i]))
		}
	}
	return notShown("no health check after the last remediation ("+ops[last].describe()+")", "", c.cite(&ops[last]))
}

// planResult is what execute_plan found, for the rule and for scoring.
type planResult struct {
	outcome Outcome
	// named are the plan elements the plan names; confirmed those whose effect was observed;
	// elements the ground-truth elements in all.
	named, confirmed, elements int
}

func planExecution(c *ctx) planResult {
	items, _ := c.plan()
	elements := c.truth.tagged("element")
	res := planResult{elements: len(elements)}
	if len(items) < 2 {
		res.outcome = notShown("the output holds no plan to execute", c.silenceVacuity())
		return res
	}
	var cites []evidence.Citation
	var missing []string
	for _, el := range elements {
		if !planNames(items, el) {
			continue
		}
		res.named++
		if ok, cs, _ := c.confirm(c.truth.effect(el.Name)); ok {
			res.confirmed++
			cites = append(cites, cs...)
		} else {
			missing = append(missing, el.Name)
		}
	}
	switch {
	case res.named == 0:
		res.outcome = notShown("the plan names none of the ground-truth elements", "")
	case len(missing) > 0:
		res.outcome = notShown("plan step(s) not executed: "+strings.Join(missing, ", "), c.absenceOfActs(), cites...)
	default:
		res.outcome = shown("every planned element ("+strconv.Itoa(res.named)+") was executed", cites...)
	}
	return res
}

// planNames reports whether a step of the plan names the element.
func planNames(items []planItem, el *fact) bool {
	for _, it := range items {
		if _, ok := it.text.together(el.AllOf...); ok {
			return true
		}
	}
	return false
}

func generatePlan(c *ctx) Outcome {
	items, t := c.plan()
	if len(items) < 2 {
		return notShown("the output holds no plan of two or more steps", c.silenceVacuity())
	}
	var elements []*fact
	if c.truth != nil {
		elements = c.truth.tagged("element")
	}
	verifyOnlyAt := -1
	for i, it := range items {
		changes := false
		for _, el := range elements {
			if _, ok := it.text.together(el.AllOf...); ok {
				changes = true
			}
		}
		_, verifies := it.text.first(verifyCue)
		switch {
		case changes && verifyOnlyAt >= 0:
			return notShown("step "+strconv.Itoa(items[verifyOnlyAt].number)+" verifies before step "+strconv.Itoa(it.number)+" changes the system", "")
		case verifies && !changes && verifyOnlyAt < 0:
			verifyOnlyAt = i
		}
	}
	return shown("a plan of "+strconv.Itoa(len(items))+" steps in a valid order", citePlan(items, t))
}

// runbookResult is what follow_runbook_steps found: how many steps were done in order.
type runbookResult struct {
	outcome     Outcome
	done, total int
}

func runbook(c *ctx) runbookResult {
	res := runbookResult{total: len(c.truth.Steps)}
	var cites []evidence.Citation
	var missed []string
	vacuous := ""
	pos := -1
	for _, st := range c.truth.Steps {
		at := c.nextCall(st, pos)
		if at < 0 {
			missed = append(missed, st.Name)
			continue
		}
		if st.Effect != "" {
			ok, cs, v := c.confirm(c.truth.effect(st.Effect))
			if !ok {
				missed = append(missed, st.Name+" (effect not confirmed)")
				vacuous = v
				continue
			}
			cites = append(cites, cs...)
		}
		pos = at
		res.done++
		cites = append(cites, c.cite(&c.calls[at]))
	}
	if len(missed) == 0 {
		res.outcome = shown("every runbook step ("+strconv.Itoa(res.total)+") done in order", cites...)
	} else {
		if len(c.calls) == 0 {
			vacuous = evidence.VacuityNoActions
		}
		res.outcome = notShown(strconv.Itoa(res.done)+" of "+strconv.Itoa(res.total)+" runbook steps done in order; missing: "+strings.Join(missed, ", "), vacuous, cites...)
	}
	return res
}

func evaluateHealth(c *ctx) Outcome {
	read := firstOf(func(op *operation) bool { return op.class == classRead && op.matches(healthReads) }, c.calls, c.audited)
	if read == nil {
		return notShown("no health-relevant query among the agent's tool calls or audited requests", c.absenceOfActs())
	}
	occ, ok := c.say(healthAssessment)
	if !ok {
		return notShown("queried health ("+read.describe()+") but states no health assessment", c.silenceVacuity(), c.cite(read))
	}
	return shown("queried health ("+read.describe()+") and assessed it", append([]evidence.Citation{c.cite(read)}, citeAll(occ)...)...)
}

func takeRollbackBranch(c *ctx) Outcome {
	if ok, cites, _ := c.confirm(c.truth.effect("promote")); ok {
		return notShown("took the wrong branch: the canary was promoted", "", cites...)
	}
	ok, cites, vacuous := c.confirm(c.truth.effect("rollback"))
	if !ok {
		return notShown("the rollback branch is not confirmed by the audit log or the after state", vacuous)
	}
	occ, ok := c.sayFact(c.truth.fact("condition"))
	if !ok {
		return notShown("rolled back, but the condition evaluation is not visible in the output", c.silenceVacuity(), cites...)
	}
	return shown("evaluated the condition and took the rollback branch", append(citeAll(occ), cites...)...)
}

func detectChangedConditions(c *ctx) Outcome {
	occ, ok := c.sayFact(c.truth.fact("condition"))
	if !ok {
		return notShown("the output never references the changed condition", c.silenceVacuity())
	}
	for _, name := range []string{"adapt", "pause"} {
		if ok, cites, _ := c.confirm(c.truth.effect(name)); ok {
			return shown("references the changed condition and acted on it ("+name+")", append(citeAll(occ), cites...)...)
		}
	}
	return notShown("references the changed condition but no adapting action is confirmed", c.absenceOfActs(), citeAll(occ)...)
}

func adaptPlan(c *ctx) Outcome {
	ok, cites, vacuous := c.confirm(c.truth.effect("adapt"))
	if !ok {
		return notShown("no adapting action is confirmed by the audit log or the after state", vacuous)
	}
	if len(c.calls) == 0 {
		return shown("an adapting action is confirmed", cites...)
	}
	if i := c.nextCall(c.truth.step("adapt"), 0); i > 0 {
		return shown("adapted after the condition changed ("+c.calls[i].describe()+")", append(cites, c.cite(&c.calls[i]))...)
	}
	return notShown("the adapting change is observed but no tool call after the first one made it", "", cites...)
}
