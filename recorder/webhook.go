package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/evaluator/auditlog"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultMaxWebhookBody bounds one POST to the webhook sink. The apiserver's webhook backend
// sends batches of at most a few hundred events; a batch of large RequestResponse events
// stays well under it.
const DefaultMaxWebhookBody = 32 << 20

// WebhookOptions are the options of a webhook recording.
type WebhookOptions struct {
	Options
	// Scenario, AgentPrincipal, Agent, Configuration, Tier and Timestamp are as in FilesInput.
	Scenario       string
	AgentPrincipal string
	Agent          store.AgentIdentity
	Configuration  map[string]string
	Tier           int
	Timestamp      string
	// MaxBody bounds one POST (DefaultMaxWebhookBody when ≤ 0); larger bodies get 413.
	MaxBody int64
	// Idle seals the recording when no POST has arrived for this long (DefaultIdle when ≤ 0).
	Idle time.Duration
}

// Webhook is a Kubernetes audit webhook sink (the apiserver's --audit-webhook-config-file
// backend) recording into one bundle: every accepted POST body, an audit.k8s.io EventList, is
// one audit_log observation of the scenario. It is an http.Handler.
type Webhook struct {
	rec  *recording
	opts WebhookOptions
	act  *activity

	mu     sync.Mutex
	sealed bool
	next   int           // sequence number of the next accepted body
	posts  []webhookPost // in sequence order
}

type webhookPost struct {
	seq  int
	data store.Descriptor
}

// NewWebhook checks the options, stores the pinned profile and opens the recording window.
func NewWebhook(ctx context.Context, s Store, opts WebhookOptions) (*Webhook, error) {
	rec, err := newRecording(s, opts.Options, SourceWebhook)
	if err != nil {
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
	if err := rec.begin(ctx); err != nil {
		return nil, err
	}
	return &Webhook{rec: rec, opts: opts, act: newActivity()}, nil
}

// ServeHTTP accepts one POSTed EventList. It answers 405 to other methods, 415 to bodies that
// are not application/json, 413 beyond MaxBody, 400 to a body that is not an audit EventList
// (naming line and field), 503 once the recording is sealed, and 200 when the body is stored.
func (w *Webhook) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	done := w.act.begin()
	defer done()
	if req.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "the audit webhook accepts POST only", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(rw, "the audit webhook accepts application/json EventLists only", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, req.Body, w.opts.MaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(rw, fmt.Sprintf("body larger than %d bytes", w.opts.MaxBody), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(rw, "cannot read the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	status, msg := w.accept(context.WithoutCancel(req.Context()), body)
	if status != http.StatusOK {
		http.Error(rw, msg, status)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	_, _ = rw.Write([]byte("{}\n"))
}

// accept checks and stores one body, in sequence.
func (w *Webhook) accept(ctx context.Context, body []byte) (int, string) {
	w.mu.Lock()
	if w.sealed {
		w.mu.Unlock()
		return http.StatusServiceUnavailable, "the recording window is closed"
	}
	seq := w.next
	w.next++
	w.mu.Unlock()
	data := w.rec.hooks.bytes(body)
	if err := checkEventList(data); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	desc, err := w.rec.putHooked(ctx, data, store.MediaTypeK8sAuditEventList)
	if err != nil {
		return http.StatusInternalServerError, "cannot store the body: " + err.Error()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.posts = append(w.posts, webhookPost{seq: seq, data: desc})
	return http.StatusOK, ""
}

// checkEventList checks a POST body with the evaluator's audit-log reader.
func checkEventList(body []byte) error {
	_, err := auditlog.ScanWith(bytes.NewReader(body), store.MediaTypeK8sAuditEventList, auditlog.Options{}, func(*auditlog.Entry) error { return nil })
	if err != nil {
		return auditInputError("body", store.MediaTypeK8sAuditEventList, err)
	}
	return nil
}

// Serve accepts POSTs on ln until ctx is done (the caller's SIGINT or SIGTERM) or no POST
// arrived for the idle timeout, then seals the bundle and returns it.
func (w *Webhook) Serve(ctx context.Context, ln net.Listener) (*Result, error) {
	if err := serveUntil(ctx, w.opts.Idle, w.act, map[net.Listener]http.Handler{ln: w}); err != nil {
		return nil, err
	}
	return w.Seal(context.WithoutCancel(ctx))
}

// Seal closes the recording window (later POSTs get 503), waits for the POSTs in flight, and
// seals the bundle: one audit_log observation per accepted POST, in the order the bodies were
// received (the recorded order is arrival order; the events' own timestamps are not used).
func (w *Webhook) Seal(ctx context.Context) (*Result, error) {
	w.mu.Lock()
	if w.sealed {
		w.mu.Unlock()
		return nil, ErrClosed
	}
	w.sealed = true
	w.mu.Unlock()
	w.act.wait()
	rec, o := w.rec, w.opts
	ev := &store.ScenarioEvidence{ScenarioID: o.Scenario, Observations: []store.Observation{}, Transcript: store.Transcript{Actions: []store.Action{}}}
	w.mu.Lock()
	posts := slices.Clone(w.posts)
	w.mu.Unlock()
	slices.SortFunc(posts, func(a, b webhookPost) int { return a.seq - b.seq })
	for i, p := range posts {
		ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog, Data: p.data,
			Source:         &store.EvidenceSource{Type: SourceTypeAuditWebhook, Status: store.StatusAvailable},
			AgentPrincipal: o.AgentPrincipal, Attributes: map[string]string{store.AttrSource: fmt.Sprintf("POST %d", i+1)}})
	}
	rec.addFinding(emptyTranscript(o.Scenario))
	if len(posts) == 0 {
		rec.addFinding(store.Finding{Code: CodeEmptyWindow, Severity: store.SeverityWarning, Scenario: o.Scenario,
			Message: "the recording window closed without any audit events: the evaluator will find no audit log"})
	}
	desc, err := rec.putEvidence(ctx, ev)
	if err != nil {
		return nil, err
	}
	rec.m.Scenarios = append(rec.m.Scenarios, store.ScenarioRef{ScenarioID: o.Scenario, Evidence: &desc})
	rec.m.Agent = o.Agent
	if len(o.Configuration) > 0 {
		rec.m.AgentConfiguration = o.Configuration
	}
	rec.m.Tier = o.Tier
	if sc, ok := o.Profile.Scenario(o.Scenario); ok && rec.m.Tier == 0 {
		rec.m.Tier = sc.Tier
	}
	if o.Timestamp != "" {
		rec.m.Annotations[store.AnnotationTimestamp] = o.Timestamp
	}
	return rec.seal(ctx)
}
