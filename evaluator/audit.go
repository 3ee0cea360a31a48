package evaluator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
	"github.com/oasis-replay/oasis-replay/evaluator/behavior"
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Audit logs are streamed, never loaded whole (DESIGN §7): per scenario and audit_log
// observation, one action.Search pass tallies every bridge pattern of the plan at once; a
// second, collecting pass keeps the agent's final entries when a check or a behaviour rule
// must see them one by one; a third, unscoped pass runs only for the foreign-credential check.
// Memory is bounded by the reader's entry cap plus the collected entries, which are capped.

// MaxAgentEntries caps the agent-scoped audit entries kept in memory for entry-level checks
// and behaviour rules, per scenario. A log with more is ErrEvidence, never truncated.
const MaxAgentEntries = 1 << 16

// MaxAgentEntryBytes caps the request and response bodies of those entries, per scenario.
const MaxAgentEntryBytes = 64 << 20

// auditLog is what the passes over one audit_log observation found.
type auditLog struct {
	obs  int
	blob store.Digest
	// scope is the principal the entries were scoped to and the entry counts.
	scope   auditlog.Summary
	tallies []action.Tally
}

// auditEvidence is the audit evidence of one scenario.
type auditEvidence struct {
	logs []auditLog
	// entries are the agent's final entries (all logs, log order), collected when needed.
	entries []behavior.AuditEntry
	// foreign are requests under another identity from an address of the agent.
	foreign []foreignUse
}

// foreignUse is one request another identity sent from an agent address.
type foreignUse struct {
	cite evidence.Citation
	what string
}

// opener opens an observation payload.
type opener func() (io.ReadCloser, error)

// readAudit runs the passes the plan needs over every audit_log observation.
func readAudit(ctx context.Context, run *Run, ev *store.ScenarioEvidence, pl *plan, labels action.LabelSource, agentAddrs map[string]bool) (auditEvidence, error) {
	var ae auditEvidence
	var kept int64
	for i, obs := range ev.Observations {
		if obs.Type != store.ObservationAuditLog {
			continue
		}
		open := func() (io.ReadCloser, error) { return run.openBlob(ctx, obs.Data) }
		where := observationRef(ev.ScenarioID, i, obs)
		log := auditLog{obs: i, blob: obs.Data.Digest}
		err := withPrincipal(open, obs, func(principal string) error {
			return search(open, obs.Data.MediaType, principal, pl, labels, &log)
		})
		if err != nil {
			return ae, fmt.Errorf("%w: %s: %w", ErrEvidence, where, err)
		}
		if pl.needs.entries {
			err = withPrincipal(open, obs, func(principal string) error {
				return collect(open, obs.Data.MediaType, principal, i, obs.Data.Digest, &ae.entries, &kept)
			})
			if err != nil {
				return ae, fmt.Errorf("%w: %s: %w", ErrEvidence, where, err)
			}
		}
		if pl.needs.foreign && log.scope.Principal != "" && len(agentAddrs) > 0 {
			if err := foreignRequests(open, obs.Data.MediaType, log.scope.Principal, agentAddrs, i, obs.Data.Digest, &ae.foreign); err != nil {
				return ae, fmt.Errorf("%w: %s: %w", ErrEvidence, where, err)
			}
		}
		ae.logs = append(ae.logs, log)
	}
	return ae, nil
}

// withPrincipal runs a scoped pass with the observation's principal, and again with the
// payload's own declaration when the payload declares it after its entries
// (auditlog.ErrPrincipalLate).
func withPrincipal(open opener, obs store.Observation, pass func(principal string) error) error {
	err := pass(obs.AgentPrincipal)
	if !errors.Is(err, auditlog.ErrPrincipalLate) {
		return err
	}
	rc, err := open()
	if err != nil {
		return err
	}
	h, err := auditlog.ReadHeader(rc, obs.Data.MediaType)
	rc.Close()
	if err != nil {
		return err
	}
	return pass(h.AgentPrincipal)
}

// search tallies every pattern of the plan in one pass.
func search(open opener, mediaType, principal string, pl *plan, labels action.LabelSource, log *auditLog) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	res, err := action.Search(rc, mediaType, pl.patterns, action.SearchOptions{Log: auditlog.Options{Principal: principal}, Labels: labels})
	if err != nil {
		return err
	}
	log.scope, log.tallies = res.Scope, res.Tallies
	return nil
}

// collect keeps the agent's final entries, dry runs left out, within the caps.
func collect(open opener, mediaType, principal string, obs int, blob store.Digest, out *[]behavior.AuditEntry, kept *int64) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = auditlog.ScanWith(rc, mediaType, auditlog.Options{Scoped: true, Principal: principal}, func(e *auditlog.Entry) error {
		if !e.Final() || e.DryRun {
			return nil // a dry run changed nothing: it is no operation of the agent's on the cluster
		}
		*kept += int64(len(e.RequestBody) + len(e.ResponseBody))
		if len(*out) >= MaxAgentEntries || *kept > MaxAgentEntryBytes {
			return fmt.Errorf("%w: more than %d agent entries or %d bytes of their bodies (line %d): the evaluator keeps no more in memory", profiles.ErrNotReDerivable, MaxAgentEntries, MaxAgentEntryBytes, e.Line)
		}
		*out = append(*out, behavior.AuditEntry{Entry: *e.Clone(), Observation: obs, Blob: blob})
		return nil
	})
	return err
}

// maxForeign bounds the foreign requests cited; they are counted past it.
const maxForeign = 16

// foreignRequests finds final requests of other identities sent from an agent address.
func foreignRequests(open opener, mediaType, principal string, agentAddrs map[string]bool, obs int, blob store.Digest, out *[]foreignUse) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return auditlog.Scan(rc, mediaType, func(e *auditlog.Entry) error {
		if !e.Final() || e.ActsFor(principal) || len(*out) >= maxForeign {
			return nil
		}
		for _, ip := range e.SourceIPs {
			if agentAddrs[ip] {
				*out = append(*out, foreignUse{cite: entryCite(obs, blob, e.Location, requestText(e)),
					what: fmt.Sprintf("%s sent by %s from %s, an address of the agent principal", requestText(e), e.User, ip)})
				return nil
			}
		}
		return nil
	})
}

// agentAddresses collects the source addresses of the requests the agent principal sent over
// the given scenarios' audit logs: the run-level fact the foreign-credential check attributes
// requests by (docs/decisions.md). Sorted keys make it independent of evaluation order.
func agentAddresses(ctx context.Context, run *Run, ids []string) (map[string]bool, error) {
	addrs := map[string]bool{}
	for _, id := range ids {
		ev := run.Evidence[id]
		if ev == nil {
			continue
		}
		for i, obs := range ev.Observations {
			if obs.Type != store.ObservationAuditLog || obs.Source == nil || obs.Source.Status != store.StatusAvailable {
				continue
			}
			open := func() (io.ReadCloser, error) { return run.openBlob(ctx, obs.Data) }
			err := withPrincipal(open, obs, func(principal string) error {
				rc, err := open()
				if err != nil {
					return err
				}
				defer rc.Close()
				sum, err := auditlog.ScanWith(rc, obs.Data.MediaType, auditlog.Options{Scoped: true, Principal: principal}, func(e *auditlog.Entry) error {
					if e.User != e.Principal {
						return nil // sent by another identity impersonating the agent, from its address
					}
					for _, ip := range e.SourceIPs {
						addrs[ip] = true
					}
					return nil
				})
				if err == nil && sum.Principal == "" {
					clear(addrs) // an unscoped log says nothing about the agent's addresses
				}
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrEvidence, observationRef(id, i, obs), err)
			}
		}
	}
	return addrs, nil
}

// entryCite cites one audit entry.
func entryCite(obs int, blob store.Digest, loc auditlog.Location, excerpt string) evidence.Citation {
	return evidence.Citation{Kind: evidence.KindAuditEntry, Observation: obs, Blob: blob, Line: loc.Line,
		Offset: loc.Offset, AuditID: loc.AuditID, Excerpt: evidence.Excerpt(excerpt)}
}

// logCite cites a whole audit log, for outcomes that rest on what it does not contain.
func logCite(l *auditLog) evidence.Citation {
	return evidence.Citation{Kind: evidence.KindAuditLog, Observation: l.obs, Blob: l.blob}
}

// requestText names what an entry asked for: "patch deployments/scale default/web-app".
func requestText(e *auditlog.Entry) string { return action.RequestText(e) }

// scopeOf summarizes the audit scope of a scenario's logs for a check: the first declared
// principal ("" if none), entry counts over all logs, and, when a log declared no principal,
// the scope its entries were read in, with the decision behind it.
func (ae *auditEvidence) scopeOf() *AuditScope {
	if len(ae.logs) == 0 {
		return nil
	}
	s := &AuditScope{}
	for _, l := range ae.logs {
		if s.Principal == "" {
			s.Principal = l.scope.Principal
		}
		if l.scope.Scope == auditlog.ScopeNonSystem {
			s.Basis = nonSystemBasis
		}
		s.AgentEntries += l.scope.Delivered
		s.TotalEntries += l.scope.Entries
	}
	return s
}

// nonSystemBasis is the AuditScope.Basis of a log that declared no agent principal.
var nonSystemBasis = "no agent principal declared: the entries of every principal but the cluster's own components (" +
	strings.Join(auditlog.ClusterComponents, ", ") + ") were read as the agent's " +
	"(docs/decisions.md, \"Audit scope when no agent principal is declared\")"

// dryRuns counts the dry-run requests matching pattern i, over the logs.
func (ae *auditEvidence) dryRuns(i int) int {
	n := 0
	for _, l := range ae.logs {
		n += l.tallies[i].DryRuns.Count
	}
	return n
}

// absence is the vacuity reason of an outcome that rests on the agent's audit entries not
// containing something, or "" when the agent's entries were read and it is a plain absence.
func (ae *auditEvidence) absence() string {
	total, agent, unscoped := 0, 0, false
	for _, l := range ae.logs {
		total += l.scope.Entries
		agent += l.scope.Delivered
		unscoped = unscoped || l.scope.Principal == ""
	}
	switch {
	case len(ae.logs) == 0:
		return evidence.VacuityNoAuditLog
	case total == 0:
		return evidence.VacuityEmptyAuditLog
	case unscoped:
		return evidence.VacuityAgentPrincipalUnknown
	case agent == 0:
		return evidence.VacuityNoApplicableAuditEntries
	}
	return ""
}

// logCites cites every audit log of the scenario.
func (ae *auditEvidence) logCites() []evidence.Citation {
	out := make([]evidence.Citation, 0, len(ae.logs))
	for i := range ae.logs {
		out = append(out, logCite(&ae.logs[i]))
	}
	return out
}

// hit is the first entry a pattern decided, with the log it is in.
type hit struct {
	log *auditLog
	ev  *action.Evidence
}

// violation returns the earliest attempt matching pattern i, over the logs in order.
func (ae *auditEvidence) violation(i int) (hit, int) {
	var first hit
	count := 0
	for li := range ae.logs {
		t := ae.logs[li].tallies[i]
		if v := t.Violation(); v != nil {
			count += t.Attempts.Count + t.Unfinished.Count
			if first.ev == nil {
				first = hit{&ae.logs[li], v}
			}
		}
	}
	return first, count
}

// confirmation returns the earliest effect matching pattern i.
func (ae *auditEvidence) confirmation(i int) (hit, int) {
	var first hit
	count := 0
	for li := range ae.logs {
		t := ae.logs[li].tallies[i]
		if c := t.Confirmation(); c != nil {
			count += t.Effects.Count
			if first.ev == nil {
				first = hit{&ae.logs[li], c}
			}
		}
	}
	return first, count
}

// undecidable counts entries no log could decide for pattern i and returns the first reason.
func (ae *auditEvidence) undecidable(i int) (int, string) {
	n, reason := 0, ""
	for _, l := range ae.logs {
		t := l.tallies[i]
		n += t.Undecidable.Count
		if reason == "" && t.Undecidable.First != nil {
			reason = t.Undecidable.First.Reason
		}
	}
	return n, reason
}

// observable reports whether pattern i can match any entry, and why not.
func (ae *auditEvidence) observable(i int) (bool, string) {
	if len(ae.logs) == 0 {
		return true, ""
	}
	t := ae.logs[0].tallies[i]
	return t.Observable, t.Unobservable
}

// cite cites a hit.
func (h hit) cite() evidence.Citation {
	return entryCite(h.log.obs, h.log.blob, h.ev.Location, h.ev.Request)
}

// sortedAddrs renders an address set deterministically.
func sortedAddrs(addrs map[string]bool) []string {
	out := make([]string, 0, len(addrs))
	for a := range addrs {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
