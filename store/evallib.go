package store

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds the object model of the Eval Library (its description:
// reference/seeds/eval-library.txt): versioned scenarios, one bundle per recorded run, the
// matrix of scenarios × variations as a bundle of its own, the index of runs per cell that
// makes re-running a matrix re-execute only what changed, and the review queue. Their verdicts
// are verdict objects (KindVerdict) of the evaluator's own shape. Mutable state lives in refs under RefEvalPrefix, each pointing at an
// immutable object that names its predecessor, so history is kept and gc sees what is live.

// The kinds of the Eval Library (codes 32–47).
const (
	// KindEvalScenario is one version of a scenario; the ref eval/scenarios/<id> names the latest.
	KindEvalScenario Kind = "eval-scenario"
	// KindEvalRun is the manifest of one recorded run of an agent on a scenario, baseline or
	// under one variation: a bundle root.
	KindEvalRun Kind = "eval-run"
	// KindEvalMatrix is the manifest of a matrix of scenarios × (baseline + variations), naming
	// the run bundles of every cell: a bundle root.
	KindEvalMatrix Kind = "eval-matrix"
	// KindEvalCellRuns lists the run bundles recorded for one cell key, by run number.
	KindEvalCellRuns Kind = "eval-cell-runs"
	// KindEvalReview is one state of a review-queue item; it names the previous state.
	KindEvalReview Kind = "eval-review"
)

// Media types of the Eval Library's objects and blobs.
const (
	MediaTypeEvalScenario = "application/vnd.oasis-replay.eval-scenario.v1+json"
	MediaTypeEvalRun      = "application/vnd.oasis-replay.eval-run.v1+json"
	MediaTypeEvalMatrix   = "application/vnd.oasis-replay.eval-matrix.v1+json"
	MediaTypeEvalCellRuns = "application/vnd.oasis-replay.eval-cell-runs.v1+json"
	MediaTypeEvalReview   = "application/vnd.oasis-replay.eval-review.v1+json"

	// MediaTypeEvalScenarioContent is a scenario as canonical JSON (RFC 8785): the fields of the
	// description's "Creating Scenarios" table plus id.
	MediaTypeEvalScenarioContent = "application/vnd.oasis-replay.eval-scenario-content+json"
	// MediaTypeEvalVariation is one entry of the variation catalogue as canonical JSON.
	MediaTypeEvalVariation = "application/vnd.oasis-replay.eval-variation+json"
	// MediaTypeEvalRequest is the request sent to the agent, byte for byte.
	MediaTypeEvalRequest = "application/vnd.oasis-replay.eval-request+json"
)

var (
	_ = registerKind(KindEvalScenario, kindInfo{code: 32, mediaType: MediaTypeEvalScenario, decode: func() Object { return new(EvalScenario) }})
	_ = registerKind(KindEvalRun, kindInfo{code: 33, mediaType: MediaTypeEvalRun, decode: func() Object { return new(EvalRun) }, manifest: true})
	_ = registerKind(KindEvalMatrix, kindInfo{code: 34, mediaType: MediaTypeEvalMatrix, decode: func() Object { return new(EvalMatrix) }, manifest: true, holdsBundles: true})
	_ = registerKind(KindEvalCellRuns, kindInfo{code: 36, mediaType: MediaTypeEvalCellRuns, decode: func() Object { return new(EvalCellRuns) }})
	_ = registerKind(KindEvalReview, kindInfo{code: 37, mediaType: MediaTypeEvalReview, decode: func() Object { return new(EvalReview) }})
)

// Refs of the Eval Library.
const (
	// RefEvalPrefix is the Eval Library's namespace.
	RefEvalPrefix = "eval/"
	// RefEvalScenarioPrefix + <scenario id> names the latest version of a scenario.
	RefEvalScenarioPrefix = "eval/scenarios/"
	// RefEvalCellPrefix + <64 hex of the cell key> names the runs recorded for that key.
	RefEvalCellPrefix = "eval/cells/"
	// RefEvalMatrixPrefix + <64 hex of the scenario set> names the latest matrix over that set
	// of scenarios; RefEvalLatestMatrix names the latest matrix of all.
	RefEvalMatrixPrefix = "eval/matrices/"
	RefEvalLatestMatrix = "eval/latest-matrix"
	// RefEvalVerdictPrefix + <64 hex of a bundle> names the receipt of the bundle's verdict.
	RefEvalVerdictPrefix = "eval/verdicts/"
	// RefEvalReviewPrefix + <item id> names the latest state of a review-queue item.
	RefEvalReviewPrefix = "eval/review/"
)

// Risk levels of a scenario (the description's risk_level enum), least to most severe.
var EvalRiskLevels = []string{"low", "medium", "high", "critical"}

// EvalBaseline is the variation id of a run with no variation applied.
const EvalBaseline = "baseline"

// Review states, in the order an item goes through them.
const (
	EvalReviewOpen         = "open"
	EvalReviewAcknowledged = "acknowledged"
	EvalReviewResolved     = "resolved"
)

// EvalScenario is one version of a scenario. Adding content that differs from the latest
// version makes a new version naming the previous one; adding the same content again makes
// nothing new.
type EvalScenario struct {
	Header
	ID        string `json:"id"`
	Version   int    `json:"version"`
	Name      string `json:"name"`
	RiskLevel string `json:"risk_level"`
	// Content is the scenario as canonical JSON (MediaTypeEvalScenarioContent).
	Content Descriptor `json:"content"`
	// Source is the document the version was added from, byte-exact: a file (its path as
	// given) or an API request body ("api").
	Source *SourceFile `json:"source,omitempty"`
	// Previous is the version this one replaces.
	Previous *Descriptor `json:"previous,omitempty"`
}

// EvalAgent is how the agent of a run was reached: a command (argv, no shell) or an HTTP
// endpoint.
type EvalAgent struct {
	Kind string   `json:"kind"` // "command" or "http"
	Argv []string `json:"argv,omitempty"`
	URL  string   `json:"url,omitempty"`
}

// Agent kinds.
const (
	EvalAgentCommand = "command"
	EvalAgentHTTP    = "http"
)

// EvalScenarioRef names the scenario version a run or matrix used.
type EvalScenarioRef struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	RiskLevel string `json:"risk_level"`
	// Content is the digest of the scenario's canonical JSON.
	Content Digest `json:"content"`
}

// EvalVariationRef names the variation of a run: EvalBaseline with no digest, or a catalogue
// entry pinned by the digest of its canonical JSON.
type EvalVariationRef struct {
	ID     string `json:"id"`
	Digest Digest `json:"digest,omitzero"`
}

// EvalOutcome is how the agent's run ended. Status is "ok" when the agent answered (exit 0, or
// an HTTP 2xx) within its limits, "failed" otherwise, with Reason saying why.
type EvalOutcome struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// ExitCode is the command's exit status (-1 when killed by a signal); nil for HTTP agents
	// and commands that did not start.
	ExitCode *int   `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// HTTPStatus is the endpoint's response status, for HTTP agents that answered.
	HTTPStatus int `json:"http_status,omitempty"`
	// AnswerTruncated says the answer went on past the cap; AnswerTotal is how many bytes the
	// agent sent in all.
	AnswerTruncated bool  `json:"answer_truncated,omitempty"`
	AnswerTotal     int64 `json:"answer_total"`
}

// Run statuses.
const (
	EvalRunOK     = "ok"
	EvalRunFailed = "failed"
)

// EvalRun is the manifest of one recorded run: the request exactly as sent, the answer exactly
// as received (up to the cap), the agent's stderr, how it ended and how long it took. Its
// digest is the bundle id. Definition pins the scenario and the variation entry it ran with.
type EvalRun struct {
	Header
	Recorder RecorderInfo `json:"recorder"`
	// Tree is the profile tree that defines the run: the scenario and the variation entry.
	Tree      Digest           `json:"definition"`
	Scenario  EvalScenarioRef  `json:"scenario"`
	Variation EvalVariationRef `json:"variation"`
	Agent     AgentIdentity    `json:"agent"`
	Endpoint  EvalAgent        `json:"endpoint"`
	// Key identifies the cell: the agent and the request digest (see the evallib runner).
	Key Digest `json:"key"`
	// Run numbers the run within its cell, from 1.
	Run      int               `json:"run"`
	Request  Descriptor        `json:"request"`
	Answer   Descriptor        `json:"answer"`
	Stderr   *Descriptor       `json:"stderr,omitempty"`
	Outcome  EvalOutcome       `json:"outcome"`
	Settings map[string]string `json:"settings,omitempty"`
	// NonScoring holds the run's duration; the evaluator never reads it.
	NonScoring map[string]string `json:"non_scoring,omitempty"`
}

// EvalCell is one cell of a matrix: a scenario under the baseline or one variation.
type EvalCell struct {
	Scenario  string `json:"scenario"`
	Variation string `json:"variation"`
	// Runs are the run bundles of the cell, by run number.
	Runs []Descriptor `json:"runs"`
}

// EvalMatrix is the manifest of a matrix: every scenario × (baseline + every variation), each
// cell naming its run bundles, with the thresholds its cells are flagged against. Its digest is
// the bundle id; Definition pins every scenario and variation entry it ran.
type EvalMatrix struct {
	Header
	Recorder RecorderInfo `json:"recorder"`
	// Tree is the profile tree of every scenario and variation entry the matrix ran.
	Tree        Digest        `json:"definition"`
	Agent       AgentIdentity `json:"agent"`
	Endpoint    EvalAgent     `json:"endpoint"`
	RunsPerCell int           `json:"runs_per_cell"`
	// Thresholds maps a risk level to the shift magnitude above which a variation cell of a
	// scenario at that level is flagged, as an exact decimal.
	Thresholds map[string]string `json:"thresholds"`
	Scenarios  []EvalScenarioRef `json:"scenarios"`
	Cells      []EvalCell        `json:"cells"`
	// Previous is the matrix this one was run after, over the same scenarios, when there was
	// one. It is a name, not a reference: a matrix does not carry its predecessors along.
	Previous *Digest `json:"previous,omitempty"`
}

// EvalCellRuns lists the run bundles recorded for one cell key (agent + request), by run
// number; a matrix reuses them instead of running the agent again. A run number may be
// missing (a matrix interrupted while that run was in flight).
type EvalCellRuns struct {
	Header
	Key       Digest        `json:"key"`
	Scenario  string        `json:"scenario"`
	Variation string        `json:"variation"`
	Runs      []EvalRunSlot `json:"runs"`
}

// EvalRunSlot is the bundle recorded as run number Run of a cell.
type EvalRunSlot struct {
	Run    int        `json:"run"`
	Bundle Descriptor `json:"bundle"`
}

// EvalReview is one state of a review-queue item: a flagged cell of a matrix. The first state
// is "open"; each later one (acknowledged, resolved) names the state it follows, with a note
// and who made the change.
type EvalReview struct {
	Header
	Item      string     `json:"item"`
	Matrix    Descriptor `json:"matrix"`
	Scenario  string     `json:"scenario"`
	Variation string     `json:"variation"`
	RiskLevel string     `json:"risk_level"`
	// Shift and Threshold are the cell's shift magnitude and the threshold it exceeded, as
	// decimals rounded to three places.
	Shift     string      `json:"shift_magnitude"`
	Threshold string      `json:"threshold"`
	State     string      `json:"state"`
	Note      string      `json:"note,omitempty"`
	By        string      `json:"by,omitempty"`
	Sequence  int         `json:"sequence"`
	Previous  *Descriptor `json:"previous,omitempty"`
}

// ObjectKind implements Object.
func (*EvalScenario) ObjectKind() Kind { return KindEvalScenario }

// ObjectKind implements Object.
func (*EvalRun) ObjectKind() Kind { return KindEvalRun }

// ObjectKind implements Object.
func (*EvalMatrix) ObjectKind() Kind { return KindEvalMatrix }

// ObjectKind implements Object.
func (*EvalCellRuns) ObjectKind() Kind { return KindEvalCellRuns }

// ObjectKind implements Object.
func (*EvalReview) ObjectKind() Kind { return KindEvalReview }

// References implements Object: the content, the source document, the previous version.
func (s *EvalScenario) References() []Descriptor {
	refs := []Descriptor{s.Content}
	if s.Source != nil {
		refs = append(refs, s.Source.Blob)
	}
	if s.Previous != nil {
		refs = append(refs, *s.Previous)
	}
	return refs
}

// References implements Object: the definition, the request, the answer, stderr.
func (r *EvalRun) References() []Descriptor {
	refs := []Descriptor{{MediaType: MediaTypeProfileTree, Digest: r.Tree}, r.Request, r.Answer}
	if r.Stderr != nil {
		refs = append(refs, *r.Stderr)
	}
	return refs
}

// References implements Object: the definition, then every run of every cell.
func (m *EvalMatrix) References() []Descriptor {
	refs := []Descriptor{{MediaType: MediaTypeProfileTree, Digest: m.Tree}}
	for _, c := range m.Cells {
		refs = append(refs, c.Runs...)
	}
	return refs
}

// References implements Object: the runs, by run number.
func (c *EvalCellRuns) References() []Descriptor {
	refs := make([]Descriptor, len(c.Runs))
	for i, r := range c.Runs {
		refs[i] = r.Bundle
	}
	return refs
}

// References implements Object: the matrix and the previous state.
func (r *EvalReview) References() []Descriptor {
	refs := []Descriptor{r.Matrix}
	if r.Previous != nil {
		refs = append(refs, *r.Previous)
	}
	return refs
}

// Definition implements Manifest: the scenario and variation entry the run used.
func (r *EvalRun) Definition() Digest { return r.Tree }

// Summary implements Manifest.
func (r *EvalRun) Summary() BundleSummary {
	return BundleSummary{
		Evaluation: EvaluationEval,
		Subject:    fmt.Sprintf("%s / %s run %d", r.Scenario.ID, r.Variation.ID, r.Run),
		Agent:      r.Agent,
		Units:      1,
		UnitName:   "runs",
		Source:     r.Recorder.Source,
	}
}

// Definition implements Manifest: every scenario and variation entry of the matrix.
func (m *EvalMatrix) Definition() Digest { return m.Tree }

// Summary implements Manifest.
func (m *EvalMatrix) Summary() BundleSummary {
	runs := 0
	for _, c := range m.Cells {
		runs += len(c.Runs)
	}
	return BundleSummary{
		Evaluation: EvaluationEval,
		Subject:    fmt.Sprintf("matrix of %d scenarios, %d cells", len(m.Scenarios), len(m.Cells)),
		Agent:      m.Agent,
		Units:      runs,
		UnitName:   "runs",
		Source:     m.Recorder.Source,
	}
}

// ValidEvalID reports whether s may name a scenario or a variation: 1 to 128 letters, digits,
// '_', '-' and '.', not starting with '.' or '-', and not "baseline" (which names no variation).
// Ids go into ref names and file names, so they are kept to this set.
func ValidEvalID(s string) error {
	if s == "" || len(s) > 128 {
		return fmt.Errorf("id %q: length %d is not within 1..128", s, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '.' || c == '-')
		if !ok {
			return fmt.Errorf("id %q: character %q at %d is not allowed (letters, digits, '_', and '.' or '-' after the first)", s, c, i)
		}
	}
	if strings.Contains(s, "..") {
		return fmt.Errorf("id %q contains \"..\"", s)
	}
	return nil
}

// EvalScenarioRefName is the ref naming the latest version of scenario id.
func EvalScenarioRefName(id string) string { return RefEvalScenarioPrefix + id }

// EvalCellRefName is the ref naming the runs of cell key k.
func EvalCellRefName(k Digest) string { return RefEvalCellPrefix + k.Hex() }

// EvalMatrixRefName is the ref naming the latest matrix over the scenario set digest set.
func EvalMatrixRefName(set Digest) string { return RefEvalMatrixPrefix + set.Hex() }

// EvalVerdictRefName is the ref naming the receipt of bundle b's verdict.
func EvalVerdictRefName(b Digest) string { return RefEvalVerdictPrefix + b.Hex() }

// EvalReviewRefName is the ref naming the latest state of review item id.
func EvalReviewRefName(id string) string { return RefEvalReviewPrefix + id }

func isRiskLevel(s string) bool {
	for _, l := range EvalRiskLevels {
		if s == l {
			return true
		}
	}
	return false
}

func (s *EvalScenario) validate() error {
	if err := ValidEvalID(s.ID); err != nil {
		return fmt.Errorf("%w: eval-scenario: %v", ErrInvalidObject, err)
	}
	if s.Version < 1 {
		return fmt.Errorf("%w: eval-scenario %s: version %d is not positive", ErrInvalidObject, s.ID, s.Version)
	}
	if (s.Version == 1) != (s.Previous == nil) {
		return fmt.Errorf("%w: eval-scenario %s: version %d must name a previous version exactly when it is not the first", ErrInvalidObject, s.ID, s.Version)
	}
	if !isRiskLevel(s.RiskLevel) {
		return fmt.Errorf("%w: eval-scenario %s: risk_level %q", ErrInvalidObject, s.ID, s.RiskLevel)
	}
	if err := s.Content.validate("eval-scenario " + s.ID + ": content"); err != nil {
		return err
	}
	if s.Source != nil {
		if err := s.Source.Blob.validate("eval-scenario " + s.ID + ": source"); err != nil {
			return err
		}
	}
	if s.Previous != nil {
		return s.Previous.validate("eval-scenario " + s.ID + ": previous")
	}
	return nil
}

func (r *EvalRun) validate() error {
	name := "eval-run " + r.Scenario.ID + "/" + r.Variation.ID
	if r.Tree.IsZero() || r.Key.IsZero() || r.Scenario.Content.IsZero() {
		return fmt.Errorf("%w: %s: missing definition, key or scenario content digest", ErrInvalidObject, name)
	}
	if err := ValidEvalID(r.Scenario.ID); err != nil {
		return fmt.Errorf("%w: %s: scenario %v", ErrInvalidObject, name, err)
	}
	if r.Variation.ID != EvalBaseline && r.Variation.Digest.IsZero() {
		return fmt.Errorf("%w: %s: a variation must be pinned by digest", ErrInvalidObject, name)
	}
	if r.Run < 1 {
		return fmt.Errorf("%w: %s: run %d is not positive", ErrInvalidObject, name, r.Run)
	}
	if r.Outcome.Status != EvalRunOK && r.Outcome.Status != EvalRunFailed {
		return fmt.Errorf("%w: %s: outcome status %q", ErrInvalidObject, name, r.Outcome.Status)
	}
	if err := r.Endpoint.validate(name); err != nil {
		return err
	}
	if err := r.Request.validate(name + ": request"); err != nil {
		return err
	}
	if err := r.Answer.validate(name + ": answer"); err != nil {
		return err
	}
	if r.Stderr != nil {
		return r.Stderr.validate(name + ": stderr")
	}
	return nil
}

func (a EvalAgent) validate(name string) error {
	switch {
	case a.Kind == EvalAgentCommand && len(a.Argv) > 0 && a.URL == "":
	case a.Kind == EvalAgentHTTP && len(a.Argv) == 0 && a.URL != "":
	default:
		return fmt.Errorf("%w: %s: endpoint must be a command with argv or an http endpoint with a url", ErrInvalidObject, name)
	}
	return nil
}

func (m *EvalMatrix) validate() error {
	if m.Tree.IsZero() {
		return fmt.Errorf("%w: eval-matrix: missing definition", ErrInvalidObject)
	}
	if m.RunsPerCell < 1 {
		return fmt.Errorf("%w: eval-matrix: runs_per_cell %d is not positive", ErrInvalidObject, m.RunsPerCell)
	}
	if err := m.Endpoint.validate("eval-matrix"); err != nil {
		return err
	}
	for _, level := range EvalRiskLevels {
		if _, ok := m.Thresholds[level]; !ok {
			return fmt.Errorf("%w: eval-matrix: no threshold for risk level %s", ErrInvalidObject, level)
		}
	}
	scenarios := make(map[string]bool, len(m.Scenarios))
	for _, s := range m.Scenarios {
		if scenarios[s.ID] {
			return fmt.Errorf("%w: eval-matrix: scenario %s listed twice", ErrInvalidObject, s.ID)
		}
		scenarios[s.ID] = true
	}
	cells := make(map[[2]string]bool, len(m.Cells))
	for i, c := range m.Cells {
		key := [2]string{c.Scenario, c.Variation}
		if !scenarios[c.Scenario] || cells[key] {
			return fmt.Errorf("%w: eval-matrix: cells[%d] (%s/%s): unknown scenario or duplicate cell", ErrInvalidObject, i, c.Scenario, c.Variation)
		}
		cells[key] = true
		for j, r := range c.Runs {
			if err := r.validate(fmt.Sprintf("eval-matrix: cells[%d].runs[%d]", i, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *EvalCellRuns) validate() error {
	if c.Key.IsZero() {
		return fmt.Errorf("%w: eval-cell-runs: missing key", ErrInvalidObject)
	}
	for i, r := range c.Runs {
		if r.Run < 1 || i > 0 && r.Run <= c.Runs[i-1].Run {
			return fmt.Errorf("%w: eval-cell-runs: runs[%d]: run numbers must be positive and increasing", ErrInvalidObject, i)
		}
		if err := r.Bundle.validate("eval-cell-runs: runs[" + strconv.Itoa(i) + "]"); err != nil {
			return err
		}
	}
	return nil
}

func (r *EvalReview) validate() error {
	switch r.State {
	case EvalReviewOpen, EvalReviewAcknowledged, EvalReviewResolved:
	default:
		return fmt.Errorf("%w: eval-review %s: state %q", ErrInvalidObject, r.Item, r.State)
	}
	if r.Item == "" || r.Sequence < 1 || (r.Sequence == 1) != (r.Previous == nil) {
		return fmt.Errorf("%w: eval-review %q: an item id, a positive sequence, and a previous state exactly when not the first", ErrInvalidObject, r.Item)
	}
	return r.Matrix.validate("eval-review " + r.Item + ": matrix")
}
