package oasisctl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// Sentinel errors of the package.
var (
	// ErrMalformed: a report is not a well-formed JSON or YAML document, or a field has the
	// wrong type.
	ErrMalformed = errclass.New(errclass.Input, "oasisctl: malformed report")
	// ErrShape: a report is well-formed but is neither a Reporting §1 verdict nor an oasisctl
	// report.
	ErrShape = errclass.New(errclass.Input, "oasisctl: unrecognised report")
	// ErrArtifact: an evidence artifact is not well-formed JSON or not the artifact's shape.
	ErrArtifact = errclass.New(errclass.Input, "oasisctl: malformed evidence artifact")
	// ErrTranscript: an agent transcript is not well-formed JSON or not a transcript's shape.
	ErrTranscript = errclass.New(errclass.Input, "oasisctl: malformed agent transcript")
	// ErrRunConfig: a run configuration is not well-formed YAML or not its shape.
	ErrRunConfig = errclass.New(errclass.Input, "oasisctl: malformed run configuration")
	// ErrTooLarge: a report exceeds MaxReportBytes.
	ErrTooLarge = errclass.New(errclass.Input, "oasisctl: report too large")
)

// MaxReportBytes bounds a claimed report. A full 50-scenario oasisctl report is about 100 KiB.
const MaxReportBytes = 32 << 20

// Shape is which kind of report a claim was read from.
type Shape string

// The shapes Read recognises.
const (
	// ShapeVerdict is the verdict object of OASIS Reporting §1, with or without its
	// top-level "verdict" key (oasis-replay's own verdicts are of this shape).
	ShapeVerdict Shape = "oasis-verdict"
	// ShapeOasisctl is the report the reference runner oasisctl writes.
	ShapeOasisctl Shape = "oasisctl-report"
)

// Formats a report is read from.
const (
	FormatJSON = "json"
	FormatYAML = "yaml"
)

// Claimed is one value a report claims, with where it says so. Present is false when the
// report does not give the value (absent or null).
type Claimed[T any] struct {
	Value   T
	Present bool
	// Path is the value's dotted path in the report ("safety_summary.passed_count"), Line its
	// 1-based line.
	Path string
	Line int
}

// Claim is a claimed report read into one model, whatever its shape. Each field is what the
// report says, untouched; Compare decides what it means.
type Claim struct {
	// Source names where the report came from (a file, or the bundle's claimed report).
	Source string
	Shape  Shape
	Format string

	Safety Claimed[string]
	// SafetyPassed is oasisctl's safety_summary.passed.
	SafetyPassed Claimed[bool]
	// Overall and Phases are oasis-replay verdict extensions.
	Overall                                 Claimed[string]
	PhaseSafety, PhaseCapability            Claimed[string]
	Counts                                  Counts
	Failures, ProviderFailures, HumanReview Claimed[[]string]
	// HumanReviewNeeded is oasisctl's safety_summary.human_review_needed.
	HumanReviewNeeded Claimed[bool]
	Categories        []CategoryClaim
	Subcategories     []SubcategoryClaim
	// Scenarios are the per-scenario results, in the report's order; ListsScenarios says the
	// report has such a list at all (the spec's verdict object has none).
	Scenarios      []ScenarioClaim
	ListsScenarios bool
	Capability     *CapabilityClaim

	Agent, AgentVersion                    Claimed[string]
	ProfileName, ProfileID, ProfileVersion Claimed[string]
	CoreVersion, Timestamp                 Claimed[string]
	Tier                                   Claimed[int]
	Aborted                                Claimed[bool]
	AbortReason                            Claimed[string]
	// Complete is oasisctl's metadata.evaluation_mode.complete.
	Complete Claimed[bool]
	// Partial lists the scenarios a partial oasis-replay verdict selected.
	Partial Claimed[[]string]
	// Configuration is the claimed agent configuration, dimension → literal text, sorted.
	Configuration []ConfigValue
	// Evaluator, ProviderInfo and TierEvidence are oasisctl's metadata.evaluator,
	// metadata.provider_info and environment.evidence, which a recording keeps.
	Evaluator, ProviderInfo, TierEvidence Claimed[string]
	// ConfigurationCoverage is metadata.configuration_coverage (or oasisctl's top-level one).
	ConfigurationCoverage CoverageCounts
	// Adversarial locates an adversarial_verification block, which replay cannot re-derive.
	Adversarial Claimed[bool]
	// Identity is metadata.agent_identity (Reporting §1.2 of core 1.0.0-rc1.11); nil when the
	// report has none.
	Identity *IdentityClaim
	// AgentFailures is metadata.agent_failure_count, the run's count of agent failure reports
	// (Execution §1.2 in the text after 1.0.0-rc1.12's 3b274ea; the spec names no key, this
	// is the one read).
	AgentFailures Claimed[int]
	// Uncategorized is oasisctl's safety_summary.uncategorized_scenario_ids: scenarios whose
	// category the runner could not place.
	Uncategorized Claimed[[]string]
	// Unknown lists the fields neither shape defines, in document order.
	Unknown []Claimed[string]
}

// Counts are the claimed safety scenario counts.
type Counts struct {
	Total, Applicable, NotApplicable, Passed, Failed, ProviderFailure, ToleranceAdjusted, NotRun Claimed[int]
}

// CoverageCounts are the claimed configuration coverage counts and warnings (Execution §3
// step 10).
type CoverageCounts struct {
	Total, Applicable, NotApplicable Claimed[int]
	Warnings                         Claimed[[]string]
}

// CategoryClaim is a claimed safety category result: a status (Reporting §2.3) or, in
// oasisctl's report, a boolean "all passed".
type CategoryClaim struct {
	Name   string
	Status Claimed[string]
	Passed Claimed[bool]
}

// SubcategoryClaim is a claimed subcategory result. Category is "" when the report keys
// subcategories by name only (oasisctl).
type SubcategoryClaim struct {
	Category, Name                         string
	Total, Passed, Failed, ProviderFailure Claimed[int]
	Path                                   string
	Line                                   int
}

// ScenarioClaim is a claimed per-scenario result.
type ScenarioClaim struct {
	ID string
	// Status is the claimed status (or, for an oasis-replay verdict, the state of a scenario
	// without one); Score a capability score.
	Status Claimed[string]
	Score  Claimed[decimal.Decimal]
	// Errors are oasisctl's per-scenario errors; Reason is an oasis-replay verdict's reason
	// for a state or a PROVIDER_FAILURE.
	Errors []string
	Reason string
	Path   string
	Line   int
	// Evidence, EvidencePath, SessionID and NonScoring are oasisctl's per-scenario evidence
	// lines, artifact path (evidence_path, or evidence_artifact), session id and
	// non_scoring_metadata (name → literal text), which a recording keeps.
	Evidence     []string
	EvidencePath string
	SessionID    string
	NonScoring   map[string]string
	// ObservedModel is the scenario record's observed_model (Reporting §1.2 of core
	// 1.0.0-rc1.11); a claimed null is not Present.
	ObservedModel Claimed[string]
	// Band is oasisctl's band, the band a Form B template selected.
	Band string
	// AgentFailure is the cause of the scenario's agent failure report (agent_failure.cause).
	AgentFailure Claimed[string]
	// Assertions are oasisctl's assertion_results, in the report's order.
	Assertions []AssertionClaim
}

// AssertionClaim is one claimed assertion result (oasisctl's assertion_results[]).
type AssertionClaim struct {
	// Text is what the assertion names: its behavior, else its action (for value containment,
	// the value_ref oasisctl writes as behavior).
	Text   string
	Status Claimed[string]
	// Vacuous and VacuityReason are the vacuity a PASS claims (Core §3.6.3 of core
	// 1.0.0-rc1.12): an explicit false says the check had something to examine.
	Vacuous       Claimed[bool]
	VacuityReason Claimed[string]
	// Scope is the claimed audit_scope; nil when the result has none.
	Scope *ScopeClaim
	Path  string
	Line  int
}

// ScopeClaim is a claimed audit_scope: whose audit entries the check read.
type ScopeClaim struct {
	Principal                  Claimed[string]
	AgentEntries, TotalEntries Claimed[int]
	Path                       string
	Line                       int
}

// IdentityClaim is a claimed run-wide agent identity declaration (Reporting §1.2 of core
// 1.0.0-rc1.11).
type IdentityClaim struct {
	Path string
	Line int
	// BinaryVersion, BinarySHA, ConfigHash, SystemPromptHash, DeclaredModel and
	// DeclaredProvider are the declaration's strings; FixedWrapperText is a string or null.
	BinaryVersion, BinarySHA, ConfigHash, SystemPromptHash Claimed[string]
	DeclaredModel, DeclaredProvider, FixedWrapperText      Claimed[string]
	// Heterogeneous is the heterogeneity flag; Detail lists the scenarios it names.
	Heterogeneous Claimed[bool]
	Detail        Claimed[[]HeterogeneityClaim]
}

// HeterogeneityClaim is one entry of heterogeneity_detail.
type HeterogeneityClaim struct {
	ScenarioID, DeclaredModel, ObservedModel string
	Path                                     string
	Line                                     int
}

// CapabilityClaim is a claimed capability block.
type CapabilityClaim struct {
	Path                string
	Line                int
	Tier                Claimed[int]
	Required, Evaluated Claimed[int]
	Complete            Claimed[bool]
	// Categories, Dimensions and Archetypes are claimed scores, each sorted by name.
	Categories, Dimensions, Archetypes []ScoreClaim
}

// ScoreClaim is one claimed score. Score is not Present for a claimed null.
type ScoreClaim struct {
	Name                string
	Score               Claimed[decimal.Decimal]
	ArchetypesEvaluated Claimed[int]
}

// ConfigValue is one claimed agent configuration dimension.
type ConfigValue struct {
	Key, Value string
	Line       int
}

// Read reads a claimed report in either shape from JSON or YAML. format is FormatJSON,
// FormatYAML or "" to sniff it (a document starting with '{' is JSON). source names the
// report in errors and findings.
func Read(data []byte, format, source string) (*Claim, error) {
	return read(data, format, source, (*Claim).fill)
}

// ReadReport reads an oasisctl report whatever its content (no shape detection): the shape the
// verdict.json or verdict.yaml of an oasisctl output directory has by definition.
func ReadReport(data []byte, format, source string) (*Claim, error) {
	return read(data, format, source, func(c *Claim, root *doc.Node) error {
		if root.Kind() != doc.Object {
			return fmt.Errorf("%w: %w", ErrShape, root.Errorf("the report is %s, not an object", root.Kind().Article()))
		}
		c.Shape = ShapeOasisctl
		r := &reader{claim: c}
		r.oasisctl(r.object(root, ""))
		return r.err
	})
}

func read(data []byte, format, source string, fill func(*Claim, *doc.Node) error) (*Claim, error) {
	if len(data) > MaxReportBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes, the limit is %d", ErrTooLarge, source, len(data), MaxReportBytes)
	}
	if format == "" {
		format = sniff(data)
	}
	var root *doc.Node
	var err error
	lim := doc.Limits{MaxBytes: MaxReportBytes, MaxDepth: maxDepth}
	switch format {
	case FormatJSON:
		root, err = doc.ParseJSON(source, data, lim)
	case FormatYAML:
		root, err = doc.ParseYAML(source, data, lim)
	default:
		return nil, fmt.Errorf("%w: %s: unknown format %q", ErrMalformed, source, format)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (read as %s): %w", ErrMalformed, strings.ToUpper(format), err)
	}
	c := &Claim{Source: source, Format: format}
	if err := fill(c, root); err != nil {
		return nil, err
	}
	return c, nil
}

// sniff tells JSON from YAML by the first significant byte.
func sniff(data []byte) string {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

// fill detects the shape of the document and reads it.
func (c *Claim) fill(root *doc.Node) error {
	if root.Kind() != doc.Object {
		return fmt.Errorf("%w: %w", ErrShape, root.Errorf("the document is %s, not an object", root.Kind().Article()))
	}
	r := &reader{claim: c}
	if v := root.Get("verdict"); v.Kind() == doc.Object {
		c.Shape = ShapeVerdict
		top := r.object(root, "")
		top.known("verdict")
		r.verdict(r.object(v, "verdict"))
		top.finish()
		return r.err
	}
	hasSafety, hasDetails, hasSummary := root.Get("safety") != nil, root.Get("safety_details") != nil, root.Get("safety_summary") != nil
	switch {
	case hasSafety && hasDetails:
		c.Shape = ShapeVerdict
		r.verdict(r.object(root, ""))
	case hasSummary:
		c.Shape = ShapeOasisctl
		r.oasisctl(r.object(root, ""))
	default:
		return fmt.Errorf("%w: %s: neither an OASIS Reporting §1 verdict (no \"verdict\" object, and no \"safety\" with "+
			"\"safety_details\" at the top level) nor an oasisctl report (no \"safety_summary\"); top-level fields: %s",
			ErrShape, root.Pos().File, strings.Join(keys(root), ", "))
	}
	return r.err
}

// maxListedKeys bounds the top-level fields an error lists: enough to recognise the document.
const maxListedKeys = 20

// keys lists the members of an object for an error message, the first maxListedKeys of them.
func keys(n *doc.Node) []string {
	members := n.Members()
	out := make([]string, 0, min(len(members), maxListedKeys+1))
	for _, m := range members[:min(len(members), maxListedKeys)] {
		out = append(out, m.Key)
	}
	if more := len(members) - maxListedKeys; more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// ReadFile reads a claimed report from a file; the format is taken from the extension
// (.yaml, .yml, .json) or sniffed.
func ReadFile(path string) (*Claim, error) {
	f, err := inputfile.Open(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("oasisctl: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("oasisctl: %s: %w", path, err)
	}
	format := ""
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		format = FormatYAML
	case ".json":
		format = FormatJSON
	}
	return Read(data, format, path)
}
