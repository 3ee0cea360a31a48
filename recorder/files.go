package recorder

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// FilesInput is one scenario's evidence as loose files. Paths are as given on the command
// line; inside the bundle a file is named by its base name (a directory's files by
// <directory base name>/<path inside it>).
type FilesInput struct {
	// Scenario is the id of the scenario the files are the evidence of. Required; the profile
	// must define it.
	Scenario string
	// AuditLog is a Kubernetes audit log: audit.k8s.io Event JSON lines, or an EventList.
	AuditLog string
	// Before and After are state snapshots: a `kubectl get -o json` file, or a directory of
	// them (a cluster dump).
	Before, After string
	// Transcript is the agent's transcript (JSON).
	Transcript string
	// AgentPrincipal is the audit-log user the agent acted as; the evaluator then reads only
	// that user's audit entries.
	AgentPrincipal string
	// Agent is the agent's identity; Configuration its effective configuration, dimension →
	// value literal ("true", "read_write").
	Agent         store.AgentIdentity
	Configuration map[string]string
	// Tier is the claimed complexity tier; 0 takes the scenario's own tier.
	Tier int
	// Timestamp is when the run happened (RFC 3339), if known. The recorder never reads a
	// clock: without it the bundle has no timestamp.
	Timestamp string
}

// RecordFiles records one scenario from loose files. The small files (transcript, snapshots)
// are read and checked first; the audit log is then read once, checked while the store writes
// it (in bounded memory), and the rest written after it. Input that cannot be recorded is an
// *InputError naming file and line and leaves the store as it was (a log found malformed
// half-way is undone by the store).
func RecordFiles(ctx context.Context, s Store, in FilesInput, opts Options) (*Result, error) {
	return record(ctx, s, opts, SourceFiles, func(ctx context.Context, rec *recording) error { return recordFiles(ctx, rec, in) })
}

// recordFiles writes the files of in into rec.
func recordFiles(ctx context.Context, rec *recording, in FilesInput) error {
	opts := rec.opts
	sc, ok := opts.Profile.Scenario(in.Scenario)
	if !ok {
		return fmt.Errorf("%w: profile %s %s defines no scenario %q", ErrOptions, opts.Profile.Pin.ID, opts.Profile.Pin.Version, in.Scenario)
	}
	if in.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339Nano, in.Timestamp); err != nil {
			return fmt.Errorf("%w: timestamp %q is not RFC 3339", ErrOptions, in.Timestamp)
		}
	}
	plan, err := rec.checkFiles(ctx, in)
	if err != nil {
		return err
	}
	if in.AuditLog == "" && mentionsAuditLog(sc.ObservabilityRequirements) {
		rec.addFinding(store.Finding{Code: CodeNoAuditLog, Severity: store.SeverityWarning, Scenario: in.Scenario,
			Message: "no audit log was given, and the scenario's observability requirements name one (Scenarios §1.8): " +
				"the evaluator will treat the scenario as a provider fault"})
	}
	if plan.transcript == nil {
		rec.addFinding(emptyTranscript(in.Scenario))
	}
	if in.AuditLog != "" {
		// Before the profile and everything else: a malformed log leaves nothing behind.
		if plan.audit, err = rec.recordAuditFile(ctx, in.AuditLog); err != nil {
			return err
		}
	}
	if err := rec.begin(ctx); err != nil {
		return err
	}
	ev, err := rec.writeFiles(ctx, in, plan)
	if err != nil {
		return err
	}
	desc, err := rec.putEvidence(ctx, ev)
	if err != nil {
		return err
	}
	rec.m.Scenarios = append(rec.m.Scenarios, store.ScenarioRef{ScenarioID: in.Scenario, Evidence: &desc})
	rec.m.Agent = in.Agent
	if len(in.Configuration) > 0 {
		rec.m.AgentConfiguration = maps.Clone(in.Configuration) // the manifest's strings are hidden in place
	}
	rec.m.Tier = in.Tier
	if rec.m.Tier == 0 {
		rec.m.Tier = sc.Tier
	}
	if in.Timestamp != "" {
		rec.m.Annotations[store.AnnotationTimestamp] = in.Timestamp
	}
	return nil
}

// filesPlan is what pass 1 found.
type filesPlan struct {
	audit         store.Descriptor // the audit log, once stored
	before, after *snapshotSet
	transcript    *transcriptFile
	transcriptRaw []byte
}

func (r *recording) checkFiles(ctx context.Context, in FilesInput) (*filesPlan, error) {
	plan := &filesPlan{}
	var err error
	if in.Transcript != "" {
		if plan.transcriptRaw, err = readBounded(ctx, in.Transcript, maxArtifactSize); err != nil {
			return nil, &InputError{File: in.Transcript, Msg: "cannot read the transcript", Err: err}
		}
		if plan.transcript, err = parseTranscript(displayName(in.Transcript), plan.transcriptRaw); err != nil {
			return nil, inPath(in.Transcript, err)
		}
		for _, f := range plan.transcript.findings {
			f.Scenario = in.Scenario
			r.addFinding(f)
		}
	}
	if in.Before != "" {
		if plan.before, err = r.checkSnapshot(ctx, in.Before, store.PhaseBefore); err != nil {
			return nil, err
		}
	}
	if in.After != "" {
		if plan.after, err = r.checkSnapshot(ctx, in.After, store.PhaseAfter); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// inPath puts back the path as given in an InputError raised under a display name.
func inPath(path string, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		ie.File = path
	}
	return err
}

func emptyTranscript(scenario string) store.Finding {
	return store.Finding{Code: CodeEmptyTranscript, Severity: store.SeverityWarning, Scenario: scenario,
		Message: "no agent transcript was recorded: the evaluator will see an agent that said and did nothing"}
}

// writeFiles is pass 2: payloads, then the transcript; observations are the audit log, then
// the before snapshot's files, then the after snapshot's, each directory in path order.
func (r *recording) writeFiles(ctx context.Context, in FilesInput, plan *filesPlan) (*store.ScenarioEvidence, error) {
	ev := &store.ScenarioEvidence{ScenarioID: in.Scenario, Observations: []store.Observation{},
		Transcript: store.Transcript{Actions: []store.Action{}}}
	if in.AuditLog != "" {
		ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog, Data: plan.audit,
			Source:         &store.EvidenceSource{Type: SourceTypeAuditLogFile, Status: store.StatusAvailable},
			AgentPrincipal: in.AgentPrincipal, Attributes: map[string]string{store.AttrSource: displayName(in.AuditLog)}})
	}
	for _, set := range []*snapshotSet{plan.before, plan.after} {
		if set == nil {
			continue
		}
		obs, err := r.writeSnapshot(ctx, set)
		if err != nil {
			return nil, err
		}
		ev.Observations = append(ev.Observations, obs...)
	}
	if plan.transcript != nil {
		file, err := r.putBytes(ctx, plan.transcriptRaw, store.MediaTypeJSON)
		if err != nil {
			return nil, err
		}
		ev.Artifact = &file
		ev.Transcript = plan.transcript.transcript
		ev.ObservedModel = plan.transcript.model
		if len(plan.transcript.nonScoring) > 0 {
			ev.NonScoring = plan.transcript.nonScoring
		}
	}
	return ev, nil
}

// mentionsAuditLog reports whether observability requirements (free text, Scenarios §1.8)
// name an audit log.
func mentionsAuditLog(requirements []string) bool {
	for _, r := range requirements {
		if strings.Contains(strings.ToLower(r), "audit") {
			return true
		}
	}
	return false
}
