package store

import (
	"context"
	"fmt"
	"regexp"
)

// This file holds the evidence objects of Kensa runs (github.com/satyaborg/kensa v0.7.0): one
// bundle per run of one scenario (one dataset row, one repeat).
//
// A run is two objects. The KensaEvidence object is everything the evaluator reads — the
// scenario's definition pinned as a ProfileTree (the scenario file byte-exact, its judge spec,
// its dataset, the price table used to cost spans), the input, the dataset row, how the
// process ended, its captured output, the spans in Kensa's converted model, the raw span
// sources they came from, the recorded judgement — and nothing else: no clock, no run id, no
// repeat number. Two runs whose evidence is the same have one evidence object, one digest, and
// the same verdict, which names that digest. The KensaRun manifest (its digest is the bundle id)
// is the run itself: its evidence, who recorded it, its run id, its wall-clock facts (start
// time, duration: non-scoring metadata the evaluator never reads), the recorder's findings, the
// annotations (repeat number, tag), and for runs imported from a .kensa directory the result
// Kensa itself recorded. A bundle id names one run; the evidence digest names what was seen.

// Kinds of Kensa objects.
const (
	KindKensaRun       Kind = "kensa-run"
	KindKensaJudgement Kind = "kensa-judgement"
	KindKensaEvidence  Kind = "kensa-evidence"
)

// Media types of Kensa objects and blobs.
const (
	MediaTypeKensaRun       = "application/vnd.oasis-replay.kensa-run.v1+json"
	MediaTypeKensaJudgement = "application/vnd.oasis-replay.kensa-judgement.v1+json"
	MediaTypeKensaEvidence  = "application/vnd.oasis-replay.kensa-evidence.v1+json"

	// MediaTypeKensaTrace is a trace in Kensa's converted span model: one JSON span a line, as
	// Kensa writes .kensa/traces/*.jsonl. It is what the evaluator reads.
	MediaTypeKensaTrace = "application/vnd.kensa.trace+jsonl"
	// MediaTypeKensaResult is one element of a .kensa/results/<run_id>.json array.
	MediaTypeKensaResult = "application/vnd.kensa.result+json"
	// MediaTypeKensaScenarioRun is one run of a .kensa/runs/<run_id>.json manifest.
	MediaTypeKensaScenarioRun = "application/vnd.kensa.scenario-run+json"
	// MediaTypeKensaJudgeResult is a judge_result object as Kensa records it in a result.
	MediaTypeKensaJudgeResult = "application/vnd.kensa.judge-result+json"
	// MediaTypeOpenInferenceJSONL is the JSONL span file Kensa's exporter writes into
	// $KENSA_TRACE_DIR (raw OpenTelemetry spans with OpenInference attributes).
	MediaTypeOpenInferenceJSONL = "application/vnd.kensa.otel-spans+jsonl"
	// MediaTypeOTLPProtobuf and MediaTypeOTLPJSON are OTLP/HTTP trace export request bodies.
	MediaTypeOTLPProtobuf = "application/vnd.opentelemetry.otlp-traces+protobuf"
	MediaTypeOTLPJSON     = "application/vnd.opentelemetry.otlp-traces+json"
	// MediaTypeKensaPrices is the price table used to cost spans that carry no cost.
	MediaTypeKensaPrices = "application/vnd.oasis-replay.kensa-prices.v1+json"
	// MediaTypeText is captured program output (stdout, stderr, a judge's prompt and answer).
	MediaTypeText = "text/plain"
)

var (
	_ = registerKind(KindKensaRun, kindInfo{code: 16, mediaType: MediaTypeKensaRun, decode: func() Object { return new(KensaRun) }, manifest: true})
	_ = registerKind(KindKensaJudgement, kindInfo{code: 17, mediaType: MediaTypeKensaJudgement, decode: func() Object { return new(KensaJudgement) }})
	_ = registerKind(KindKensaEvidence, kindInfo{code: 18, mediaType: MediaTypeKensaEvidence, decode: func() Object { return new(KensaEvidence) }})
)

// Recorder sources of Kensa runs.
const (
	SourceKensaRun    = "kensa-run"    // executed by oasis-replay kensa run
	SourceKensaImport = "kensa-import" // read from a .kensa directory Kensa wrote
)

// KensaRun is the manifest of one run of one Kensa scenario. Its digest is the bundle id: it
// covers the evidence object and everything about the run that is not evidence.
type KensaRun struct {
	Header
	Recorder RecorderInfo `json:"recorder"`
	// Evidence is the KensaEvidence object: all the evaluator reads.
	Evidence Digest `json:"evidence"`
	// DefinitionTree, ScenarioFile, Scenario and Case repeat the evidence's, so that listings
	// and archives need not read it; a loader requires them equal.
	DefinitionTree Digest `json:"definition"`
	ScenarioFile   string `json:"scenario_file"`
	Scenario       string `json:"scenario"`
	Case           int    `json:"case"`
	// RunID is the Kensa run (a .kensa/runs manifest) or the kensa run invocation it belongs to.
	RunID string `json:"run_id"`
	// Claimed is the result Kensa recorded for this run (MediaTypeKensaResult), for audit;
	// ClaimedRun is Kensa's own record of the run (MediaTypeKensaScenarioRun).
	Claimed    *Descriptor `json:"claimed,omitempty"`
	ClaimedRun *Descriptor `json:"claimed_run,omitempty"`
	// NonScoring holds wall-clock facts (start time, duration); never evaluated.
	NonScoring  map[string]string `json:"non_scoring,omitempty"`
	Findings    []Finding         `json:"findings,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// KensaEvidence is what one run of a Kensa scenario gave, and all the evaluator reads: a
// function of the definition, the input and what the agent did, with nothing from the
// recorder's clock, so identical runs share it.
type KensaEvidence struct {
	Header
	// Definition is the ProfileTree pinning the scenario: ScenarioFile, and when used the judge
	// spec ("judges/<name>.yaml"), the dataset and the price table ("prices.json").
	Definition   Digest `json:"definition"`
	ScenarioFile string `json:"scenario_file"`
	Scenario     string `json:"scenario"`
	// Case is the 1-based dataset row, 0 for a scenario without a dataset. Runs with the same
	// scenario and case are repeats of one another.
	Case int `json:"case"`
	// Input is the agent's input as JSON (a string or an object); nil when there was none.
	Input *Descriptor `json:"input,omitempty"`
	// DatasetRow is the dataset row as JSON, for placeholder substitution in check params.
	DatasetRow *Descriptor `json:"dataset_row,omitempty"`
	Argv       []string    `json:"argv,omitempty"`
	Exit       KensaExit   `json:"exit"`
	Stdout     *Output     `json:"stdout,omitempty"`
	Stderr     *Output     `json:"stderr,omitempty"`
	// Trace is the run's spans in Kensa's model (MediaTypeKensaTrace); nil when none arrived.
	Trace *Descriptor `json:"trace,omitempty"`
	// TracePath is the trace's path as Kensa recorded it (imported runs): Kensa's results
	// report it.
	TracePath string `json:"trace_path,omitempty"`
	// SpanSources are the raw inputs Trace was derived from (OTLP bodies, the exporter's JSONL,
	// the trace file Kensa wrote), in arrival order.
	SpanSources []SourceFile `json:"span_sources,omitempty"`
	// Judgement is the recorded LLM judgement (a KensaJudgement object), if a judge ran.
	Judgement *Descriptor `json:"judgement,omitempty"`
}

// KensaExit is how the agent's process ended, as Kensa's runner sees it.
type KensaExit struct {
	// Code is the exit status Kensa records: the process's, -1 after a timeout, a signal or a
	// failure to start or to capture spans.
	Code     int    `json:"code"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Error is why the run produced no usable trace, in Kensa's words (its runner raises it and
	// records it as stderr); empty otherwise.
	Error string `json:"error,omitempty"`
}

// Output is a captured stream: the kept bytes, and how many the process wrote in all.
type Output struct {
	Blob      Descriptor `json:"blob"`
	Total     int64      `json:"total"`
	Truncated bool       `json:"truncated,omitempty"`
}

// KensaJudgement is one recorded LLM judgement: what the judge was asked and what it answered.
// Replay parses the recorded answer; it never calls a judge.
type KensaJudgement struct {
	Header
	// Source is "judge-cmd" (a --judge-cmd run by oasis-replay) or "kensa" (a judge_result
	// imported from Kensa's results, with no prompt).
	Source  string   `json:"source"`
	Command []string `json:"command,omitempty"`
	Model   string   `json:"model,omitempty"`
	// Prompt is the prompt sent on the judge's stdin; Answer its stdout, or for Source "kensa"
	// the judge_result object (MediaTypeKensaJudgeResult).
	Prompt *Descriptor `json:"prompt,omitempty"`
	Answer Descriptor  `json:"answer"`
	// Label is the verdict parsed from the answer when it was recorded: pass, fail, uncertain.
	Label string    `json:"label"`
	Exit  KensaExit `json:"exit"`
}

// ObjectKind implements Object.
func (*KensaRun) ObjectKind() Kind { return KindKensaRun }

// ObjectKind implements Object.
func (*KensaJudgement) ObjectKind() Kind { return KindKensaJudgement }

// ObjectKind implements Object.
func (*KensaEvidence) ObjectKind() Kind { return KindKensaEvidence }

// Definition implements Manifest.
func (m *KensaRun) Definition() Digest { return m.DefinitionTree }

// Summary implements Manifest.
func (m *KensaRun) Summary() BundleSummary {
	subject := m.Scenario
	if m.Case > 0 {
		subject = fmt.Sprintf("%s row %d", m.Scenario, m.Case)
	}
	return BundleSummary{Evaluation: EvaluationKensa, Subject: subject, Units: 1, UnitName: "runs", Source: m.Recorder.Source}
}

// References implements Object: the definition, the evidence, then Kensa's claims.
func (m *KensaRun) References() []Descriptor {
	refs := []Descriptor{{MediaType: MediaTypeProfileTree, Digest: m.DefinitionTree}, {MediaType: MediaTypeKensaEvidence, Digest: m.Evidence}}
	for _, d := range []*Descriptor{m.Claimed, m.ClaimedRun} {
		if d != nil {
			refs = append(refs, *d)
		}
	}
	return refs
}

// References implements Object: the definition, then every piece of evidence in field order.
func (e *KensaEvidence) References() []Descriptor {
	refs := []Descriptor{{MediaType: MediaTypeProfileTree, Digest: e.Definition}}
	for _, d := range []*Descriptor{e.Input, e.DatasetRow} {
		if d != nil {
			refs = append(refs, *d)
		}
	}
	for _, o := range []*Output{e.Stdout, e.Stderr} {
		if o != nil {
			refs = append(refs, o.Blob)
		}
	}
	if e.Trace != nil {
		refs = append(refs, *e.Trace)
	}
	for _, s := range e.SpanSources {
		refs = append(refs, s.Blob)
	}
	if e.Judgement != nil {
		refs = append(refs, *e.Judgement)
	}
	return refs
}

// References implements Object: the prompt, then the answer.
func (j *KensaJudgement) References() []Descriptor {
	var refs []Descriptor
	if j.Prompt != nil {
		refs = append(refs, *j.Prompt)
	}
	return append(refs, j.Answer)
}

// kensaRunID is Kensa's rule for run ids (utils.validate_run_id): they name files.
var kensaRunID = regexp.MustCompile(`^[\w.-]+$`)

func (m *KensaRun) validate() error {
	switch {
	case m.DefinitionTree.IsZero() || m.Evidence.IsZero():
		return fmt.Errorf("%w: kensa-run: missing definition or evidence", ErrInvalidObject)
	case m.Scenario == "" || m.ScenarioFile == "":
		return fmt.Errorf("%w: kensa-run: missing scenario or scenario_file", ErrInvalidObject)
	case !kensaRunID.MatchString(m.RunID):
		return fmt.Errorf("%w: kensa-run %s: run_id %q is not [A-Za-z0-9_.-]+", ErrInvalidObject, m.Scenario, m.RunID)
	case m.Case < 0:
		return fmt.Errorf("%w: kensa-run %s: negative case %d", ErrInvalidObject, m.Scenario, m.Case)
	}
	return validateRefs(m.References()[2:], "kensa-run "+m.Scenario)
}

func (e *KensaEvidence) validate() error {
	switch {
	case e.Definition.IsZero():
		return fmt.Errorf("%w: kensa-evidence: missing definition", ErrInvalidObject)
	case e.Scenario == "" || e.ScenarioFile == "":
		return fmt.Errorf("%w: kensa-evidence: missing scenario or scenario_file", ErrInvalidObject)
	case e.Case < 0:
		return fmt.Errorf("%w: kensa-evidence %s: negative case %d", ErrInvalidObject, e.Scenario, e.Case)
	}
	return validateRefs(e.References()[1:], "kensa-evidence "+e.Scenario)
}

func validateRefs(refs []Descriptor, what string) error {
	for i, ref := range refs {
		if err := ref.validate(fmt.Sprintf("%s: reference %d", what, i+1)); err != nil {
			return err
		}
	}
	return nil
}

func (j *KensaJudgement) validate() error {
	switch j.Label {
	case "pass", "fail", "uncertain":
	default:
		return fmt.Errorf("%w: kensa-judgement: label %q is not pass, fail or uncertain", ErrInvalidObject, j.Label)
	}
	return j.Answer.validate("kensa-judgement: answer")
}

// LoadKensaEvidence reads the evidence object a Kensa run's manifest names, and requires it to
// name the definition, scenario file, scenario and case the manifest repeats.
func LoadKensaEvidence(ctx context.Context, s ObjectGetter, m *KensaRun) (*KensaEvidence, error) {
	b, err := s.GetObject(ctx, m.Evidence)
	if err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	return DecodeKensaEvidence(b, m)
}

// DecodeKensaEvidence decodes b, the evidence object the Kensa run m names, read by the
// caller, and checks it as LoadKensaEvidence does.
func DecodeKensaEvidence(b []byte, m *KensaRun) (*KensaEvidence, error) {
	var e KensaEvidence
	if err := Decode(b, &e); err != nil {
		return nil, fmt.Errorf("evidence %s: %w", m.Evidence.Short(), err)
	}
	if e.Definition != m.DefinitionTree || e.ScenarioFile != m.ScenarioFile || e.Scenario != m.Scenario || e.Case != m.Case {
		return nil, fmt.Errorf("%w: the manifest names definition %s, %s, scenario %s case %d; its evidence %s names %s, %s, %s case %d",
			ErrCorrupt, m.DefinitionTree.Short(), m.ScenarioFile, m.Scenario, m.Case,
			m.Evidence.Short(), e.Definition.Short(), e.ScenarioFile, e.Scenario, e.Case)
	}
	return &e, nil
}
