package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultMaxWebhookBody bounds one POST to the webhook sink. The apiserver's webhook backend
// sends batches of at most a few hundred events; a batch of large RequestResponse events
// stays well under it.
const DefaultMaxWebhookBody = 32 << 20

// WebhookOptions are the options of a webhook recording.
type WebhookOptions struct {
	Options
	LiveOptions
	// Scenario, AgentPrincipal, Agent, Configuration, Tier and Timestamp are as in FilesInput.
	Scenario       string
	AgentPrincipal string
	Agent          store.AgentIdentity
	Configuration  map[string]string
	Tier           int
	Timestamp      string
	// MaxBody bounds one POST (DefaultMaxWebhookBody when ≤ 0); larger bodies get 413.
	MaxBody int64
}

// Webhook is a Kubernetes audit webhook sink (the apiserver's --audit-webhook-config-file
// backend) recording into one bundle: every accepted POST body, an audit.k8s.io EventList, is
// one audit_log observation of the scenario. Bodies are journaled as they arrive (see doc.go,
// Live recording); Seal turns the journal into a bundle. It is an http.Handler.
type Webhook struct {
	l     *live
	opts  WebhookOptions
	hooks *hooks
}

// NewWebhook checks the options and opens the recording window, its journal in
// opts.Journals. The store is not needed until Seal.
func NewWebhook(ctx context.Context, opts WebhookOptions) (*Webhook, error) {
	if err := checkOptions(opts.Options); err != nil {
		return nil, err
	}
	if _, ok := opts.Profile.Scenario(opts.Scenario); !ok {
		return nil, fmt.Errorf("%w: profile %s %s defines no scenario %q", ErrOptions, opts.Profile.Pin.ID, opts.Profile.Pin.Version, opts.Scenario)
	}
	if opts.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err != nil {
			return nil, fmt.Errorf("%w: timestamp %q is not RFC 3339", ErrOptions, opts.Timestamp)
		}
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxWebhookBody
	}
	lo, err := opts.LiveOptions.resolved(DefaultWebhookExchanges)
	if err != nil {
		return nil, err
	}
	h := &liveHeader{Format: journalFormat, Source: SourceWebhook, Version: opts.version(), Tags: opts.Tags,
		Profile: opts.Profile.Pin.Ref(), Redaction: pinRedaction(opts.Redactor),
		Webhook: &webhookSettings{Scenario: opts.Scenario, AgentPrincipal: opts.AgentPrincipal, Agent: opts.Agent,
			Configuration: opts.Configuration, Tier: opts.Tier, Timestamp: opts.Timestamp}}
	l, err := startLive(ctx, lo, h, opts.Profile)
	if err != nil {
		return nil, err
	}
	return &Webhook{l: l, opts: opts, hooks: newHooks(opts.Redactor, opts.Hooks)}, nil
}

// Journal is the directory of the recording's journal.
func (w *Webhook) Journal() string { return w.l.w.Dir() }

// ServeHTTP accepts one POSTed EventList. It answers 405 to other methods, 415 to bodies that
// are not application/json, 413 beyond MaxBody, 400 to a body that is not an audit EventList
// (naming line and field), 408 to a body that does not arrive in time, 503 once the recording
// is closed, and 200 once the body is journaled, complete and synced.
func (w *Webhook) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "the audit webhook accepts POST only", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(rw, "the audit webhook accepts application/json EventLists only", http.StatusUnsupportedMediaType)
		return
	}
	x, leave, ok := w.l.enter(rw, req, capturedHead{})
	if !ok {
		http.Error(rw, "the recording window is closed", http.StatusServiceUnavailable)
		return
	}
	defer leave()
	status, msg := w.accept(x, rw, req)
	if status != http.StatusOK {
		http.Error(rw, msg, status)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	_, _ = rw.Write([]byte("{}\n"))
}

// accept journals one body while it checks it with the evaluator's audit-log reader (after
// the hooks, as it will be stored), and journals the outcome.
func (w *Webhook) accept(x *liveExchange, rw http.ResponseWriter, req *http.Request) (int, string) {
	rec := x.bodyRecorder(partRequest, w.opts.MaxBody)
	defer rec.release()
	in := &firstError{r: x.bodyIn(http.MaxBytesReader(rw, req.Body, w.opts.MaxBody))}
	tee := io.TeeReader(in, rec)
	checkErr := checkEventList(w.hooks.pass().reader(tee))
	if checkErr == nil {
		_, checkErr = io.Copy(io.Discard, tee) // nothing is left after a whole EventList; journal it if there is
	}
	x.bodyDone()
	if err := rec.Flush(); err != nil {
		return http.StatusServiceUnavailable, "the recording failed: " + err.Error()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(in.err, &tooLarge):
		w.refuse(x, "larger than the limit")
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", w.opts.MaxBody)
	case in.err != nil:
		x.cutShort(readProblem(in.err))
		if errors.Is(in.err, os.ErrDeadlineExceeded) {
			return http.StatusRequestTimeout, readProblem(in.err)
		}
		return http.StatusBadRequest, "cannot read the body: " + readProblem(in.err)
	case checkErr != nil:
		w.refuse(x, "not an audit EventList")
		return http.StatusBadRequest, checkErr.Error()
	}
	if err := x.end(capturedEnd{Size: rec.size}); err != nil {
		return http.StatusServiceUnavailable, "the recording failed: " + err.Error()
	}
	return http.StatusOK, ""
}

// refuse journals that a POST was answered with an error: it is neither sealed nor reported.
func (w *Webhook) refuse(x *liveExchange, reason string) {
	x.done = true
	_ = x.record(recRefused, reason)
}

// firstError remembers the first error of a reader other than io.EOF.
type firstError struct {
	r   io.Reader
	err error
}

func (f *firstError) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF && f.err == nil {
		f.err = err
	}
	return n, err
}

// checkEventList checks a POST body with the evaluator's audit-log reader.
func checkEventList(body io.Reader) error {
	_, err := auditlog.ScanWith(body, store.MediaTypeK8sAuditEventList, auditlog.Options{}, func(*auditlog.Entry) error { return nil })
	if err != nil {
		return auditInputError("body", store.MediaTypeK8sAuditEventList, err)
	}
	return nil
}

// Serve accepts POSTs on ln until ctx is done (the caller's SIGINT or SIGTERM), no POST
// arrived for the idle timeout, or the journal fails; POSTs still being read after the grace
// period are cut. The recording is then ready to Seal.
func (w *Webhook) Serve(ctx context.Context, ln net.Listener) error {
	return w.l.serve(ctx, map[net.Listener]http.Handler{ln: w})
}

// Seal closes the recording window (later POSTs get 503), lets the POSTs in flight finish
// within the grace period, seals the journal into s and removes the journal. If sealing
// fails, the journal stays on disk for RecoverJournal.
func (w *Webhook) Seal(ctx context.Context, s Store) (*Sealed, error) {
	return w.l.seal(ctx, s, SealOptions{Redactor: w.opts.Redactor, Hooks: w.opts.Hooks, Verdicts: w.opts.Verdicts})
}

// Close closes the recording window without sealing: the journal stays on disk for
// RecoverJournal.
func (w *Webhook) Close() error { return w.l.close() }

// sealWebhook assembles a webhook journal into rec: one audit_log observation per accepted
// POST, in the order the POSTs were accepted (the recorded order is arrival order; the events'
// own timestamps are not used). It returns the number of POSTs sealed.
func sealWebhook(ctx context.Context, rec *recording, c *capture, src recordReader) (int, error) {
	o := c.header.Webhook
	ev := &store.ScenarioEvidence{ScenarioID: o.Scenario, Observations: []store.Observation{}, Transcript: store.Transcript{Actions: []store.Action{}}}
	for _, e := range c.events {
		ce := c.exchanges[e.id]
		if !e.end {
			continue
		}
		desc, err := rec.putStream(ctx, ce.requestBody.reader(src), store.MediaTypeK8sAuditEventList)
		if err != nil {
			return 0, err
		}
		ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog, Data: desc,
			Source:         &store.EvidenceSource{Type: SourceTypeAuditWebhook, Status: store.StatusAvailable},
			AgentPrincipal: o.AgentPrincipal, Attributes: map[string]string{store.AttrSource: fmt.Sprintf("POST %d", len(ev.Observations)+1)}})
	}
	rec.addFinding(emptyTranscript(o.Scenario))
	if len(ev.Observations) == 0 {
		rec.addFinding(store.Finding{Code: CodeEmptyWindow, Severity: store.SeverityWarning, Scenario: o.Scenario,
			Message: "the recording window closed without any audit events: the evaluator will find no audit log"})
	}
	desc, err := rec.putEvidence(ctx, ev)
	if err != nil {
		return 0, err
	}
	rec.m.Scenarios = append(rec.m.Scenarios, store.ScenarioRef{ScenarioID: o.Scenario, Evidence: &desc})
	rec.m.Agent = o.Agent
	if len(o.Configuration) > 0 {
		rec.m.AgentConfiguration = maps.Clone(o.Configuration) // the manifest's strings are hidden in place
	}
	rec.m.Tier = o.Tier
	if sc, ok := rec.opts.Profile.Scenario(o.Scenario); ok && rec.m.Tier == 0 {
		rec.m.Tier = sc.Tier
	}
	if o.Timestamp != "" {
		rec.m.Annotations[store.AnnotationTimestamp] = o.Timestamp
	}
	return len(ev.Observations), nil
}
