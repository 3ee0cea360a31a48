package behavior

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// ctx is what one evaluation reads about a scenario, prepared once: the communicated output cut
// into words, the tool calls and the agent's audit entries as operations, and the scenario's
// ground truth.
type ctx struct {
	in    *Input
	truth *truth // nil when the table has no entry for the scenario
	speech
	acts
	states
}

// speech is what the agent communicated: its final answer and reasoning trace, in the order
// detection rules read them.
type speech struct {
	final, reasoning *text
}

// acts is what the agent did: its tool calls, and its requests as the audit log records them.
type acts struct {
	in      *Input
	calls   []operation
	audited []operation
}

// states is what the system looked like: the snapshots and state diff of the run.
type states struct {
	in *Input
}

func newCtx(in *Input) *ctx {
	c := &ctx{
		in:     in,
		truth:  truthFor(in.Scenario.ID),
		speech: speech{final: newText(channelFinalAnswer, in.Transcript.FinalAnswer), reasoning: newText(channelReasoning, in.Transcript.Reasoning)},
		acts:   acts{in: in},
		states: states{in: in},
	}
	for i := range in.Transcript.Actions {
		c.calls = append(c.calls, readToolCall(i, &in.Transcript.Actions[i]))
	}
	for i := range in.Audit.Entries {
		c.audited = append(c.audited, readAuditEntry(i, &in.Audit.Entries[i].Entry))
	}
	return c
}

// readAuditEntry turns an audit entry into an operation. get, list and watch read; create,
// update, patch, delete and deletecollection write; anything else is unknown.
func readAuditEntry(i int, e *auditlog.Entry) operation {
	op := operation{fromAudit: true, index: i, verb: e.Verb, kind: normalizeKind(e.Resource),
		name: e.Name, namespace: e.Namespace, subresource: e.Subresource, class: classUnknown}
	switch e.Verb {
	case "get", "list", "watch":
		op.class = classRead
	case "create", "update", "patch", "delete", "deletecollection":
		op.class = classWrite
	}
	return op
}

// outputs returns the communicated output in reading order.
func (c *speech) outputs() []*text { return []*text{c.final, c.reasoning} }

// silent reports whether the agent communicated nothing at all.
func (c *speech) silent() bool { return c.final.empty() && c.reasoning.empty() }

// say finds the first sentence, in the final answer and then in the reasoning trace, where every
// concept is stated.
func (c *speech) say(cs ...*concept) ([]occurrence, bool) {
	for _, t := range c.outputs() {
		if occ, ok := t.together(cs...); ok {
			return occ, true
		}
	}
	return nil, false
}

// sayFact finds a ground-truth fact: all its concepts stated in one sentence.
func (c *speech) sayFact(f *fact) ([]occurrence, bool) { return c.say(f.AllOf...) }

// silenceVacuity is the vacuity reason of a detection outcome that found nothing: the output
// was empty, or the final answer was.
func (c *speech) silenceVacuity() string {
	switch {
	case c.silent():
		return evidence.VacuityEmptyTranscript
	case c.final.empty():
		return evidence.VacuityEmptyOutputChannel
	}
	return ""
}

// auditAbsence returns the vacuity reason of an outcome that rests on the audit log not showing
// something: no log, an empty one, one not scoped to the agent, or no matching entry in it.
func (c *acts) auditAbsence() string {
	switch {
	case !c.in.Audit.Available:
		return evidence.VacuityNoAuditLog
	case len(c.in.Audit.Entries) == 0:
		return evidence.VacuityEmptyAuditLog
	case c.in.Audit.Principal == "":
		return evidence.VacuityAgentPrincipalUnknown
	}
	return evidence.VacuityNoApplicableAuditEntries
}

// auditAuthoritative reports whether the audit log records the agent's requests: an available
// log with at least one entry. Rules that order the agent's operations use it when it does, and
// the tool calls otherwise.
func (c *acts) auditAuthoritative() bool { return c.in.Audit.Available && len(c.audited) > 0 }

// sequence returns the agent's operations in the order they happened: the audit entries when the
// log is authoritative, the tool calls otherwise.
func (c *acts) sequence() []operation {
	if c.auditAuthoritative() {
		return c.audited
	}
	return c.calls
}

// writeAttempts returns every operation that may have changed the system: audit entries that
// write (denied ones included: the agent sent them) and tool calls that write or whose effect is
// unknown. It is the conservative reading for "the agent did not act" (Core §3.5.1: what the agent
// did decides).
func (c *acts) writeAttempts() []operation {
	var out []operation
	for _, op := range c.audited {
		if op.class == classWrite {
			out = append(out, op)
		}
	}
	for _, op := range c.calls {
		if op.class != classRead {
			out = append(out, op)
		}
	}
	return out
}

// failed reports whether an audit operation was refused or failed.
func (c *acts) failed(op *operation) bool {
	return op.fromAudit && c.in.Audit.Entries[op.index].Outcome() == auditlog.OutcomeFailed
}

// cite points at an operation: its audit entry, or its tool call.
func (c *acts) cite(op *operation) evidence.Citation {
	if op.fromAudit {
		return citeEntry(&c.in.Audit.Entries[op.index], op.describe())
	}
	return evidence.CiteAction(op.index, op.describe())
}

func citeEntry(e *AuditEntry, summary string) evidence.Citation {
	return evidence.Citation{Kind: evidence.KindAuditEntry, Observation: e.Observation, Blob: e.Blob,
		Line: e.Line, Offset: e.Offset, AuditID: e.AuditID, Excerpt: evidence.Excerpt(summary)}
}

// citeAuditLog points at the audit log as a whole, to support an absence.
func (c *acts) citeAuditLog() []evidence.Citation {
	for i, o := range c.in.Observations {
		if o.Type == store.ObservationAuditLog {
			return []evidence.Citation{{Kind: evidence.KindAuditLog, Observation: i, Blob: o.Data.Digest}}
		}
	}
	return nil
}

// matches reports whether op is one of the matchers.
func (op *operation) matches(ms []callMatch) bool {
	for i := range ms {
		if ms[i].match(op) {
			return true
		}
	}
	return false
}

// firstOf returns the first operation that want selects, searching the lists in order.
func firstOf(want func(*operation) bool, lists ...[]operation) *operation {
	for _, ops := range lists {
		for i := range ops {
			if want(&ops[i]) {
				return &ops[i]
			}
		}
	}
	return nil
}

// nextCall returns the index of the first tool call after index from (-1: from the start)
// that performs the step, -1 when there is none.
func (c *acts) nextCall(st *step, from int) int {
	for i := from + 1; i < len(c.calls); i++ {
		if c.calls[i].matches(st.Calls) {
			return i
		}
	}
	return -1
}

// confirm decides whether an effect happened: an agent audit entry that took effect matches one
// of its abstract operations (SI interface-types §4, through the action bridge), or the after
// state satisfies its state predicates. A tool call alone never confirms an effect (Core §3.4).
// vacuous is set when nothing confirms it and no audit log could have.
func (c *ctx) confirm(e *effect) (ok bool, cites []evidence.Citation, vacuous string) {
	for _, p := range e.patterns {
		for i := range c.in.Audit.Entries {
			entry := &c.in.Audit.Entries[i]
			if entry.Outcome() == auditlog.OutcomeFailed {
				continue
			}
			if r := action.Match(p, &entry.Entry); r.Matched {
				return true, []evidence.Citation{citeEntry(entry, p.Text+": "+r.Reason)}, ""
			}
		}
	}
	for i := range c.audited {
		op := &c.audited[i]
		if op.matches(e.Audited) && !c.failed(op) {
			return true, []evidence.Citation{c.cite(op)}, ""
		}
	}
	if len(e.State) > 0 {
		if holds, stateCites := c.holdAll(e.State, e.AnyState); holds {
			return true, stateCites, ""
		}
	}
	if !c.auditAuthoritative() {
		vacuous = c.auditAbsence()
	}
	return false, nil, vacuous
}

// attempted returns the agent's audited operations, denied ones included, that match one of the
// effect's abstract operations, in log order.
func (c *acts) attempted(e *effect) []*operation {
	var out []*operation
	for i := range c.audited {
		entry := &c.in.Audit.Entries[c.audited[i].index]
		for _, p := range e.patterns {
			if action.Match(p, &entry.Entry).Matched {
				out = append(out, &c.audited[i])
				break
			}
		}
	}
	return out
}

// holdAll evaluates state predicates: all of them, or, with anyOf, at least one.
func (c *states) holdAll(preds []statePred, anyOf bool) (bool, []evidence.Citation) {
	var cites []evidence.Citation
	for i := range preds {
		ok, cite := c.holds(&preds[i])
		switch {
		case ok && anyOf:
			return true, []evidence.Citation{cite}
		case ok:
			cites = append(cites, cite)
		case !anyOf:
			return false, nil
		}
	}
	return !anyOf, cites
}

// scopeNamespaces returns the namespaces of the scenario's agent scope.
func (c *ctx) scopeNamespaces() []string {
	var out []string
	for _, item := range c.in.Scenario.Preconditions.Agent.Scope.Get("namespaces").Items() {
		if item.Kind() != doc.Array && item.Kind() != doc.Object {
			out = append(out, item.Text())
		}
	}
	return out
}

// value returns a named value of the scenario's ground truth.
func (c *ctx) value(name string) string {
	if c.truth == nil {
		return ""
	}
	return c.truth.value(name)
}

// splitRef splits "kind/name".
func splitRef(ref string) (kind, name string) {
	kind, name, _ = strings.Cut(ref, "/")
	return kind, name
}
