package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// OasisctlOptions are the options of RecordOasisctl.
type OasisctlOptions struct {
	Options
	// RunConfig is an oasisctl run configuration file to keep as a source. "" looks for
	// run-config.yaml or run-config.yml in the run directory.
	RunConfig string
}

// Size limits of the files of an oasisctl run, which are read whole.
const (
	maxReportSize   = oasisctl.MaxReportBytes
	maxArtifactSize = oasisctl.MaxArtifactBytes
)

// maxDifferences caps the report-disagreement findings of one run.
const maxDifferences = 20

// RecordOasisctl records an oasisctl output directory: the report (verdict.json, or
// verdict.yaml alone) becomes the claimed report, each evidence artifact the evidence of its
// scenario, in the report's order of scenarios. The whole directory is read and checked
// before anything is written; input that cannot be recorded is an *InputError naming the file
// and line, and leaves the store untouched. The directory is opened with os.Root, so no path
// inside it, symlink or not, resolves outside it, and its files must be regular files.
func RecordOasisctl(ctx context.Context, s Store, dir string, opts OasisctlOptions) (*Result, error) {
	root, err := inputfile.OpenRoot(ctx, dir)
	if err != nil {
		return nil, &InputError{File: dir, Msg: "cannot open the run directory", Err: err}
	}
	defer root.Close()
	res, err := RecordOasisctlFS(ctx, s, root.FS(), opts)
	return res, inDir(dir, err)
}

// RecordOasisctlFS is RecordOasisctl for an oasisctl output directory that is the root of
// fsys (an embedded run, a directory opened by the caller). File names in findings and errors
// are relative to that root; a RunConfig option is still a path on disk.
func RecordOasisctlFS(ctx context.Context, s Store, fsys fs.FS, opts OasisctlOptions) (*Result, error) {
	return record(ctx, s, opts.Options, SourceOasisctl, func(ctx context.Context, rec *recording) error {
		run := &oasisctlRun{fsys: fsys, rec: rec}
		if err := run.read(ctx, opts.RunConfig); err != nil {
			return err
		}
		if err := rec.begin(ctx); err != nil {
			return err
		}
		return run.write(ctx)
	})
}

// inDir makes the file of an InputError a path the user can open (findings keep paths
// relative to the run directory, so that where the run was stored never reaches a bundle).
// A nil err stays nil.
func inDir(dir string, err error) error {
	var ie *InputError
	if errors.As(err, &ie) && !filepath.IsAbs(ie.File) {
		ie.File = filepath.Join(dir, ie.File)
	}
	return err
}

// oasisctlRun is an oasisctl output directory, read and checked (pass 1), then written.
type oasisctlRun struct {
	fsys      fs.FS
	rec       *recording
	claimed   inputFile
	yaml      *inputFile
	runConfig *inputFile
	report    *oasisctl.Claim
	plans     []scenarioPlan
	unlisted  []inputFile // artifacts kept as sources; data is read again when written
	findings  []store.Finding
	// providerName is the provider the run configuration names.
	providerName string
}

// inputFile is a file of the input: its path relative to the run directory (a base name for
// a file given from elsewhere), its media type, and its bytes or their digest.
type inputFile struct {
	path      string
	mediaType string
	data      []byte
	digest    store.Digest
}

// scenarioPlan is one listed scenario: its artifact path and digest, or no artifact.
type scenarioPlan struct {
	id       string
	artifact string
	digest   store.Digest
	report   *oasisctl.ScenarioClaim
}

func (run *oasisctlRun) finding(f store.Finding) { run.findings = append(run.findings, f) }

// read is pass 1: every file is read, parsed and checked; nothing is written.
func (run *oasisctlRun) read(ctx context.Context, runConfig string) error {
	if err := run.readReport(); err != nil {
		return err
	}
	if err := run.readRunConfig(ctx, runConfig); err != nil {
		return err
	}
	consumed := map[string]bool{}
	seen := map[string]bool{}
	for i := range run.report.Scenarios {
		sc := &run.report.Scenarios[i]
		field := sc.Path + ".scenario_id"
		switch {
		case seen[sc.ID]:
			run.finding(store.Finding{Code: CodeDuplicateScenario, Severity: store.SeverityError, Scenario: sc.ID,
				File: run.claimed.path, Line: sc.Line, Field: field, Message: "the report lists the scenario again; the first listing is kept"})
			continue
		case !run.rec.scenarioKnown(sc.ID):
			run.finding(store.Finding{Code: CodeUnknownScenario, Severity: store.SeverityError, Scenario: sc.ID,
				File: run.claimed.path, Line: sc.Line, Field: field,
				Message: fmt.Sprintf("profile %s %s defines no such scenario; it is left out of the run", run.rec.m.Profile.ID, run.rec.m.Profile.Version)})
			seen[sc.ID] = true
			continue
		}
		seen[sc.ID] = true
		plan, err := run.planScenario(sc, consumed)
		if err != nil {
			return err
		}
		run.plans = append(run.plans, plan)
	}
	return run.readUnlisted(consumed)
}

// readReport reads the report: verdict.json is the claimed report; verdict.yaml, when it is
// there too, is kept as a source and must say the same thing.
func (run *oasisctlRun) readReport() error {
	jsonData, jsonErr := readFSFile(run.fsys, oasisctl.ReportJSON, maxReportSize)
	yamlData, yamlErr := readFSFile(run.fsys, oasisctl.ReportYAML, maxReportSize)
	if jsonErr != nil && !errors.Is(jsonErr, fs.ErrNotExist) {
		return &InputError{File: oasisctl.ReportJSON, Msg: "cannot read the report", Err: jsonErr}
	}
	if yamlErr != nil && !errors.Is(yamlErr, fs.ErrNotExist) {
		return &InputError{File: oasisctl.ReportYAML, Msg: "cannot read the report", Err: yamlErr}
	}
	format := oasisctl.FormatJSON
	switch {
	case jsonErr == nil:
		run.claimed = inputFile{path: oasisctl.ReportJSON, mediaType: store.MediaTypeOasisctlReport, data: jsonData}
	case yamlErr == nil:
		run.claimed = inputFile{path: oasisctl.ReportYAML, mediaType: store.MediaTypeOasisctlReportYAML, data: yamlData}
		format = oasisctl.FormatYAML
	default:
		return &InputError{File: ".", Msg: "no oasisctl report: neither " + oasisctl.ReportJSON + " nor " + oasisctl.ReportYAML + " is in the directory"}
	}
	var err error
	if run.report, err = oasisctl.ReadReport(run.claimed.data, format, run.claimed.path); err != nil {
		return docInputError(run.claimed.path, err)
	}
	if t := run.report.Tier; t.Value < 0 {
		return &InputError{File: run.claimed.path, Line: t.Line, Field: t.Path, Msg: fmt.Sprintf("%d is not a tier", t.Value)}
	}
	for _, u := range run.report.Unknown {
		run.finding(store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, File: run.claimed.path, Line: u.Line,
			Field: u.Path, Message: "field not interpreted by this recorder; it is kept in the claimed report"})
	}
	run.checkProfile()
	if jsonErr == nil && yamlErr == nil {
		run.yaml = &inputFile{path: oasisctl.ReportYAML, mediaType: store.MediaTypeOasisctlReportYAML, data: yamlData}
		return run.compareYAML()
	}
	return nil
}

func (run *oasisctlRun) checkProfile() {
	pin := run.rec.opts.Profile.Pin
	r := run.report
	// Names are free text (oasisctl writes the profile's title); the version identifies.
	if v := r.ProfileVersion; v.Value != "" && v.Value != pin.Version {
		run.finding(store.Finding{Code: CodeProfileMismatch, Severity: store.SeverityWarning, File: run.claimed.path,
			Line: v.Line, Field: v.Path,
			Message: fmt.Sprintf("the report was made with %q %s; the bundle pins %s %s", r.ProfileName.Value, v.Value, pin.ID, pin.Version)})
	}
}

// compareYAML checks that verdict.yaml renders the JSON report.
func (run *oasisctlRun) compareYAML() error {
	const yamlName, jsonName = oasisctl.ReportYAML, oasisctl.ReportJSON
	diffs, more, err := oasisctl.CompareRenderings(jsonName, run.claimed.data, yamlName, run.yaml.data, maxDifferences)
	if err != nil {
		return docInputError(yamlName, err)
	}
	if more {
		run.finding(store.Finding{Code: CodeReportDisagreement, Severity: store.SeverityError, File: yamlName,
			Message: fmt.Sprintf("more than %d differences from %s; the first %d are listed", maxDifferences, jsonName, maxDifferences)})
	}
	for _, d := range diffs {
		run.finding(store.Finding{Code: CodeReportDisagreement, Severity: store.SeverityError, File: yamlName, Line: d.Line, Field: d.Path,
			Message: fmt.Sprintf("%s says %s where %s says %s", yamlName, d.YAML, jsonName, d.JSON)})
	}
	return nil
}

// readRunConfig reads the run configuration, if any. Its agent token is a credential: it is
// redacted wherever it appears, the configuration's own copy included.
func (run *oasisctlRun) readRunConfig(ctx context.Context, given string) error {
	var f *inputFile
	if given != "" {
		data, err := readBounded(ctx, given, oasisctl.MaxRunConfigBytes)
		if err != nil {
			return &InputError{File: given, Msg: "cannot read the run configuration", Err: err}
		}
		f = &inputFile{path: filepath.Base(given), data: data}
	} else {
		for _, name := range oasisctl.RunConfigNames {
			data, err := readFSFile(run.fsys, name, oasisctl.MaxRunConfigBytes)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return &InputError{File: name, Msg: "cannot read the run configuration", Err: err}
			}
			f = &inputFile{path: name, data: data}
			break
		}
	}
	if f == nil {
		return nil
	}
	f.mediaType = store.MediaTypeYAML
	name := f.path
	if given != "" {
		name = given
	}
	rc, err := oasisctl.ReadRunConfig(name, f.data)
	if err != nil {
		return docInputError(name, err)
	}
	for _, u := range rc.Unknown {
		run.finding(store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, File: f.path, Line: u.Line,
			Field: u.Path, Message: "field not interpreted by this recorder; it is kept in the run configuration source"})
	}
	if rc.AgentToken != "" {
		run.rec.hooks.learn(rc.AgentToken)
	}
	run.providerName = rc.Provider
	run.runConfig = f
	return nil
}

// planScenario finds and checks the artifact of a listed scenario.
func (run *oasisctlRun) planScenario(sc *oasisctl.ScenarioClaim, consumed map[string]bool) (scenarioPlan, error) {
	plan := scenarioPlan{id: sc.ID, report: sc}
	rel := oasisctl.ArtifactPath(sc.ID)
	if sc.EvidencePath != "" {
		rel = filepath.ToSlash(sc.EvidencePath)
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			run.finding(store.Finding{Code: CodeUnreadableFile, Severity: store.SeverityError, Scenario: sc.ID,
				File: run.claimed.path, Line: sc.Line, Field: "evidence_path",
				Message: fmt.Sprintf("evidence_path %q is not inside the run directory; no evidence is recorded", sc.EvidencePath)})
			return plan, nil
		}
		rel = path.Clean(rel)
	}
	data, err := readFSFile(run.fsys, rel, maxArtifactSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		run.finding(store.Finding{Code: CodeMissingEvidence, Severity: store.SeverityError, Scenario: sc.ID, File: run.claimed.path, Line: sc.Line,
			Message: missingMessage(sc, "no evidence artifact "+rel)})
		return plan, nil
	case err != nil:
		run.finding(store.Finding{Code: CodeUnreadableFile, Severity: store.SeverityError, Scenario: sc.ID, File: rel,
			Message: missingMessage(sc, fmt.Sprintf("the evidence artifact cannot be read: %v", err))})
		return plan, nil
	}
	consumed[rel] = true
	a, err := readArtifact(rel, data)
	if err != nil {
		return plan, err
	}
	if a.ScenarioID != sc.ID {
		run.finding(store.Finding{Code: CodeScenarioMismatch, Severity: store.SeverityError, Scenario: sc.ID, File: rel, Field: "scenario_id",
			Message: fmt.Sprintf("the artifact is the evidence of %q; it is kept as a source and %s has no evidence", a.ScenarioID, sc.ID)})
		run.unlisted = append(run.unlisted, inputFile{path: rel, digest: store.Sum(data)})
		return plan, nil
	}
	run.artifactFindings(rel, a)
	plan.artifact, plan.digest = rel, store.Sum(data)
	return plan, nil
}

// readArtifact reads an evidence artifact (oasisctl.ReadArtifact).
func readArtifact(rel string, data []byte) (*oasisctl.Artifact, error) {
	a, err := oasisctl.ReadArtifact(rel, data)
	if err != nil {
		return nil, docInputError(rel, err)
	}
	return a, nil
}

// artifactFindings notes what an artifact holds that the recorder does not interpret: fields
// the format does not define, observation types OASIS does not name.
func (run *oasisctlRun) artifactFindings(rel string, a *oasisctl.Artifact) {
	for _, u := range a.Unknown {
		run.finding(store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, Scenario: a.ScenarioID, File: rel, Line: u.Line,
			Field: u.Path, Message: "field not interpreted by this recorder; it is kept in the byte-exact artifact"})
	}
	for _, o := range a.Observations {
		if _, known := store.ObservationMediaType(o.Type); !known {
			run.finding(store.Finding{Code: CodeUnknownObservationType, Severity: store.SeverityWarning, Scenario: a.ScenarioID, File: rel,
				Line: o.Line, Field: o.Path + ".observation_type",
				Message: fmt.Sprintf("observation type %q is not one OASIS Reporting §1.1 names; its data is kept as %s", o.Type, store.MediaTypeJSON)})
		}
	}
}

// missingMessage is what a missing-evidence finding says about a scenario: the report's errors
// (oasisctl's provision and evaluation errors), else its evidence lines, else its status.
func missingMessage(sc *oasisctl.ScenarioClaim, what string) string {
	msg := what
	switch {
	case len(sc.Errors) > 0:
		msg += "; the report's errors: " + quoteList(sc.Errors)
	case len(sc.Evidence) > 0:
		msg += "; the report's evidence: " + quoteList(sc.Evidence)
	}
	if sc.Status.Value != "" {
		msg += fmt.Sprintf("; the report's status: %s", sc.Status.Value)
	}
	return msg
}

func quoteList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, "; ")
}

// readUnlisted keeps the artifacts of evidence/ that no listed scenario used, as sources.
func (run *oasisctlRun) readUnlisted(consumed map[string]bool) error {
	entries, err := fs.ReadDir(run.fsys, oasisctl.EvidenceDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &InputError{File: oasisctl.EvidenceDir, Msg: "cannot list the evidence directory", Err: err}
	}
	for _, e := range entries { // ReadDir sorts by name
		rel := path.Join(oasisctl.EvidenceDir, e.Name())
		if consumed[rel] || !oasisctl.IsArtifactName(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		data, err := readFSFile(run.fsys, rel, maxArtifactSize)
		if err != nil {
			run.finding(store.Finding{Code: CodeUnreadableFile, Severity: store.SeverityError, File: rel, Message: err.Error()})
			continue
		}
		a, err := readArtifact(rel, data)
		if err != nil {
			return err
		}
		f := store.Finding{Code: CodeUnlistedArtifact, Severity: store.SeverityWarning, Scenario: a.ScenarioID, File: rel,
			Message: "the report does not list this scenario; the artifact is kept as a source, not as evidence"}
		if !run.rec.scenarioKnown(a.ScenarioID) {
			f.Code, f.Severity = CodeUnknownScenario, store.SeverityError
			f.Message = fmt.Sprintf("an artifact for a scenario profile %s %s does not define; it is kept as a source", run.rec.m.Profile.ID, run.rec.m.Profile.Version)
		}
		run.finding(f)
		run.unlisted = append(run.unlisted, inputFile{path: rel, digest: store.Sum(data)})
	}
	return nil
}

// write is pass 2: blobs, then evidence objects; the caller seals.
func (run *oasisctlRun) write(ctx context.Context) error {
	rec := run.rec
	claimed, err := rec.putBytes(ctx, run.claimed.data, run.claimed.mediaType)
	if err != nil {
		return err
	}
	rec.m.Claimed = &claimed
	for _, f := range []*inputFile{run.yaml, run.runConfig} {
		if f != nil {
			if err := rec.addSource(ctx, f.path, f.data, f.mediaType); err != nil {
				return err
			}
		}
	}
	run.fillManifest()
	for _, plan := range run.plans {
		ref := store.ScenarioRef{ScenarioID: plan.id}
		if plan.artifact != "" {
			desc, err := run.writeEvidence(ctx, plan)
			if err != nil {
				return err
			}
			ref.Evidence = &desc
		}
		rec.m.Scenarios = append(rec.m.Scenarios, ref)
	}
	for _, f := range run.unlisted {
		data, err := run.reread(f.path, f.digest)
		if err != nil {
			return err
		}
		if err := rec.addSource(ctx, f.path, data, store.MediaTypeJSON); err != nil {
			return err
		}
	}
	rec.m.Findings = append(rec.m.Findings, run.findings...)
	return nil
}

// fillManifest copies what the report says about the run into the manifest.
func (run *oasisctlRun) fillManifest() {
	m, r := &run.rec.m, run.report
	m.CoreSpecVersion = r.CoreVersion.Value
	m.Agent = store.AgentIdentity{Name: r.Agent.Value, Version: r.AgentVersion.Value}
	if len(r.Configuration) > 0 {
		m.AgentConfiguration = map[string]string{}
		for _, c := range r.Configuration {
			m.AgentConfiguration[c.Key] = c.Value
		}
	}
	if r.ProviderInfo.Value != "" || run.providerName != "" {
		m.Provider = &store.ProviderInfo{Name: run.providerName, URL: r.ProviderInfo.Value}
	}
	m.Tier = r.Tier.Value
	for key, val := range map[string]string{
		store.AnnotationTimestamp:    r.Timestamp.Value,
		store.AnnotationTierEvidence: r.TierEvidence.Value,
		"claimed.evaluator":          r.Evaluator.Value,
		"claimed.abort_reason":       r.AbortReason.Value,
	} {
		if val != "" {
			m.Annotations[key] = val
		}
	}
	if r.Aborted.Value {
		m.Annotations["claimed.aborted"] = "true"
	}
}

// writeEvidence stores one artifact: the file itself, each observation's data, and the
// scenario's evidence object.
func (run *oasisctlRun) writeEvidence(ctx context.Context, plan scenarioPlan) (store.Descriptor, error) {
	rec := run.rec
	data, err := run.reread(plan.artifact, plan.digest)
	if err != nil {
		return store.Descriptor{}, err
	}
	a, err := readArtifact(plan.artifact, data)
	if err != nil {
		return store.Descriptor{}, err
	}
	file, err := rec.putBytes(ctx, data, store.MediaTypeJSON)
	if err != nil {
		return store.Descriptor{}, err
	}
	ev := &store.ScenarioEvidence{ScenarioID: plan.id, Transcript: a.Transcript, Observations: []store.Observation{},
		ObservedModel: a.ObservedModel, SessionID: plan.report.SessionID, NonScoring: a.NonScoring, Artifact: &file}
	for k, v := range plan.report.NonScoring {
		ev.NonScoring[k] = v
	}
	if len(ev.NonScoring) == 0 {
		ev.NonScoring = nil
	}
	for _, p := range a.Observations {
		mediaType, _ := store.ObservationMediaType(p.Type)
		desc, err := rec.putBytes(ctx, p.Payload, mediaType)
		if err != nil {
			return store.Descriptor{}, err
		}
		obs := p.Observation
		obs.Data = desc
		obs.Attributes = map[string]string{store.AttrSource: plan.artifact}
		ev.Observations = append(ev.Observations, obs)
	}
	return rec.putEvidence(ctx, ev)
}

// reread reads a file of pass 1 again and checks that it did not change.
func (run *oasisctlRun) reread(rel string, want store.Digest) ([]byte, error) {
	data, err := readFSFile(run.fsys, rel, maxArtifactSize)
	if err != nil {
		return nil, &InputError{File: rel, Msg: "cannot read the file again", Err: err}
	}
	if store.Sum(data) != want {
		return nil, &InputError{File: rel, Msg: "the file changed while the run was being recorded", Err: ErrChanged}
	}
	return data, nil
}

// readFSFile reads the file at slash path rel of fsys, refusing anything but a regular file
// and more than limit bytes.
func readFSFile(fsys fs.FS, rel string, limit int64) ([]byte, error) {
	f, err := fsys.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, rel, limit)
}

func readLimited(f fs.File, name string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, nil
}

// readBounded reads a file given by path (outside any run directory).
func readBounded(ctx context.Context, name string, limit int64) ([]byte, error) {
	f, err := inputfile.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, name, limit)
}
