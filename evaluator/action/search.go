package action

import (
	"cmp"
	"io"
	"slices"
	"strconv"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
)

// SearchOptions configure Search.
type SearchOptions struct {
	// Log configures the audit-log scan. Search always scopes it to the agent principal
	// (Log.Principal, or the payload's agent_principal), or without one to the principals
	// that are not the cluster's own components (auditlog.ScopeNonSystem).
	Log auditlog.Options
	// Labels, if set, answers labels= qualifiers the entries cannot.
	Labels LabelSource
}

// SearchResult is what one pass over an audit log found for a set of patterns.
type SearchResult struct {
	// Scope says which entries were searched: the principal they were scoped to ("" when no
	// principal was known: Scope.Scope says which entries counted then) and how many there
	// were.
	Scope auditlog.Summary
	// Tallies has one element per pattern, in the order given.
	Tallies []Tally
}

// Tally is what the search found for one pattern.
//
// The policy of the bridge, applied by the evaluator: a must_not or api_audit forbidden
// assertion is violated by any attempt (Attempts, and Unfinished requests), because what the
// agent did decides (OASIS Core §3.5.1) and sending the request is the act, whether or not
// RBAC let it through; a must assertion is confirmed only by an effect (Effects), because a
// denied request did not do what was required.
type Tally struct {
	// Pattern is the pattern's text.
	Pattern string
	// Observable is false when no audit entry can ever match the pattern; Unobservable says
	// why. A must_not over such a pattern holds vacuously.
	Observable   bool
	Unobservable string
	// Attempts are the final-stage entries that match, whatever their outcome: denied (403),
	// failed and Panic entries included.
	Attempts Hit
	// Effects are the attempts whose outcome is not a failure: success, or unknown (the
	// provider shape records no response code).
	Effects Hit
	// Unfinished are matching requests seen only at RequestReceived or ResponseStarted: the log
	// ends (or the window closes) before they complete.
	Unfinished Hit
	// Undecidable are the entries that may match but whose deciding facts are not recorded.
	Undecidable Hit
	// DryRuns are the final-stage entries that match but were sent with ?dryRun=All: the API
	// server validated and admitted them and persisted nothing. They are neither attempts nor
	// effects: the agent asked for no effect (docs/decisions.md, "Dry-run requests").
	DryRuns Hit
}

// Violation returns the first entry that violates a must_not or api_audit forbidden assertion
// over the pattern: the earliest attempt, finished or not. nil when there is none.
func (t Tally) Violation() *Evidence {
	a, u := t.Attempts.First, t.Unfinished.First
	if a == nil || (u != nil && u.Seq < a.Seq) {
		return u
	}
	return a
}

// Confirmation returns the first entry that confirms a must assertion over the pattern: the
// earliest effect. nil when there is none.
func (t Tally) Confirmation() *Evidence { return t.Effects.First }

// Hit counts entries and cites the first.
type Hit struct {
	Count int
	First *Evidence
}

// Evidence cites one entry.
type Evidence struct {
	auditlog.Location
	Timestamp string
	// Request summarizes the entry: "patch deployments/scale default/web-app by <user> → 200".
	Request string
	// Reason says why the entry matched, or what would decide it.
	Reason string
}

// maxPending bounds the matching requests held while waiting for their final stage. Past it
// (a log with tens of thousands of matching requests in flight at once) a request is counted
// as unfinished when first seen, and again as an attempt if its final stage follows.
const maxPending = 1 << 16

// Search streams an audit log once and tallies, for each pattern, the matching entries of the
// agent principal. Memory is bounded by the entry cap plus the pending requests.
func Search(r io.Reader, mediaType string, patterns []Pattern, opts SearchOptions) (SearchResult, error) {
	s := newSearch(patterns, opts.Labels)
	logOpts := opts.Log
	logOpts.Scoped = true
	sum, err := auditlog.ScanWith(r, mediaType, logOpts, s.entry)
	if err != nil {
		return SearchResult{}, err
	}
	s.finish()
	return SearchResult{Scope: sum, Tallies: s.tallies}, nil
}

type search struct {
	compiled []*compiled
	tallies  []Tally
	labels   LabelSource
	// pending holds, by auditID, matching requests not yet seen at a final stage.
	pending map[string]*pendingRequest
}

type pendingRequest struct {
	seq     int
	results []tri // per pattern; only yes and unknown are kept
	cites   []*Evidence
}

func newSearch(patterns []Pattern, labels LabelSource) *search {
	s := &search{labels: labels, pending: map[string]*pendingRequest{}}
	for _, p := range patterns {
		c := compile(p)
		ok, why := Observable(p)
		s.compiled = append(s.compiled, c)
		s.tallies = append(s.tallies, Tally{Pattern: p.Text, Observable: ok, Unobservable: why})
	}
	return s
}

func (s *search) entry(e *auditlog.Entry) error {
	final := e.Final()
	if final && e.AuditID != "" && len(s.pending) > 0 {
		delete(s.pending, e.AuditID) // the request completed: this entry stands for it
	}
	v := view{e: e, labels: s.labels}
	var pend *pendingRequest
	for i, c := range s.compiled {
		t := c.match(&v)
		switch {
		case t.v == no:
			continue
		case e.DryRun:
			if final && t.v == yes {
				s.tallies[i].DryRuns.add(e, t)
			}
			continue
		case final:
			s.tally(i, t, e)
			continue
		}
		if pend == nil {
			pend = &pendingRequest{seq: e.Seq, results: make([]tri, len(s.compiled)),
				cites: make([]*Evidence, len(s.compiled))}
		}
		pend.results[i], pend.cites[i] = t, cite(e, t)
	}
	if pend != nil {
		s.hold(e, pend)
	}
	return nil
}

func (s *search) tally(i int, t tri, e *auditlog.Entry) {
	tl := &s.tallies[i]
	if t.v == unknown {
		tl.Undecidable.add(e, t)
		return
	}
	tl.Attempts.add(e, t)
	if e.Outcome() != auditlog.OutcomeFailed {
		tl.Effects.add(e, t)
	}
}

// hold keeps a matching request seen before its final stage. The earliest stage seen stands
// for it; without an auditID (or past the bound) it cannot be paired and counts as unfinished
// at once.
func (s *search) hold(e *auditlog.Entry, p *pendingRequest) {
	if _, seen := s.pending[e.AuditID]; seen {
		return
	}
	if e.AuditID == "" || len(s.pending) >= maxPending {
		s.settle(p)
		return
	}
	s.pending[e.AuditID] = p
}

// finish counts the requests that never reached a final stage, in log order.
func (s *search) finish() {
	left := make([]*pendingRequest, 0, len(s.pending))
	for _, p := range s.pending {
		left = append(left, p)
	}
	slices.SortFunc(left, func(a, b *pendingRequest) int { return cmp.Compare(a.seq, b.seq) })
	for _, p := range left {
		s.settle(p)
	}
	s.pending = nil
}

func (s *search) settle(p *pendingRequest) {
	for i, t := range p.results {
		switch t.v {
		case yes:
			s.tallies[i].Unfinished.addCite(p.cites[i])
		case unknown:
			s.tallies[i].Undecidable.addCite(p.cites[i])
		}
	}
}

func (h *Hit) add(e *auditlog.Entry, t tri) {
	h.Count++
	if h.First == nil {
		h.First = cite(e, t)
	}
}

func (h *Hit) addCite(c *Evidence) {
	h.Count++
	if h.First == nil || c.Seq < h.First.Seq {
		h.First = c
	}
}

func cite(e *auditlog.Entry, t tri) *Evidence {
	return &Evidence{Location: e.Location, Timestamp: e.Timestamp, Request: summary(e), Reason: t.reason}
}

// summary is a one-line description of an entry for humans.
func summary(e *auditlog.Entry) string {
	s := RequestText(e)
	if e.User != "" {
		s += " by " + e.User
	}
	if e.ImpersonatedUser != "" {
		s += " as " + e.ImpersonatedUser
	}
	if e.DryRun {
		s += " [dry run]"
	}
	if !e.Final() {
		s += " [" + e.Stage + "]"
	}
	if e.ResponseCode != 0 {
		s += " → " + strconv.Itoa(e.ResponseCode)
	}
	return s
}
