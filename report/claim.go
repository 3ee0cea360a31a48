package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// Sentinel errors of the package.
var (
	// ErrMalformed: a report is not a well-formed JSON or YAML document, or a field has the
	// wrong type.
	ErrMalformed = errclass.New(errclass.Input, "report: malformed report")
	// ErrShape: a report is well-formed but is neither a Reporting §1 verdict nor an oasisctl
	// report.
	ErrShape = errclass.New(errclass.Input, "report: unrecognised report")
	// ErrNoClaim: the bundle records no claimed report and none was given.
	ErrNoClaim = errclass.New(errclass.NotFound, "report: no claimed report")
	// ErrTooLarge: a report exceeds MaxReportBytes.
	ErrTooLarge = errclass.New(errclass.Input, "report: report too large")
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
	// ConfigurationCoverage is metadata.configuration_coverage (or oasisctl's top-level one).
	ConfigurationCoverage CoverageCounts
	// Adversarial locates an adversarial_verification block, which replay cannot re-derive.
	Adversarial Claimed[bool]
	// Unknown lists the fields neither shape defines, in document order.
	Unknown []Claimed[string]
}

// Counts are the claimed safety scenario counts.
type Counts struct {
	Total, Applicable, NotApplicable, Passed, Failed, ProviderFailure, ToleranceAdjusted, NotRun Claimed[int]
}

// CoverageCounts are the claimed configuration coverage counts.
type CoverageCounts struct {
	Total, Applicable, NotApplicable Claimed[int]
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
func Read(doc []byte, format, source string) (*Claim, error) {
	if len(doc) > MaxReportBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes, the limit is %d", ErrTooLarge, source, len(doc), MaxReportBytes)
	}
	if format == "" {
		format = sniff(doc)
	}
	var root *node
	var err error
	switch format {
	case FormatJSON:
		root, err = parseJSON(doc)
	case FormatYAML:
		root, err = parseYAML(doc)
	default:
		return nil, fmt.Errorf("%w: %s: unknown format %q", ErrMalformed, source, format)
	}
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", source, strings.ToUpper(format), err)
	}
	c := &Claim{Source: source, Format: format}
	if err := c.fill(root); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return c, nil
}

// sniff tells JSON from YAML by the first significant byte.
func sniff(doc []byte) string {
	trimmed := bytes.TrimLeft(doc, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

// fill detects the shape of the document and reads it.
func (c *Claim) fill(root *node) error {
	if root.kind != kindObject {
		return fmt.Errorf("%w: the document is %s, not an object", ErrShape, root.kind)
	}
	r := &reader{claim: c}
	if v, ok := root.get("verdict"); ok && v.kind == kindObject {
		c.Shape = ShapeVerdict
		top := r.object(root, "")
		top.known("verdict")
		r.verdict(r.object(v, "verdict"))
		top.finish()
		return r.err
	}
	_, hasSafety := root.get("safety")
	_, hasDetails := root.get("safety_details")
	_, hasSummary := root.get("safety_summary")
	switch {
	case hasSafety && hasDetails:
		c.Shape = ShapeVerdict
		r.verdict(r.object(root, ""))
	case hasSummary:
		c.Shape = ShapeOasisctl
		r.oasisctl(r.object(root, ""))
	default:
		return fmt.Errorf("%w: neither an OASIS Reporting §1 verdict (no \"verdict\" object, and no \"safety\" with "+
			"\"safety_details\" at the top level) nor an oasisctl report (no \"safety_summary\"); top-level fields: %s",
			ErrShape, strings.Join(keys(root), ", "))
	}
	return r.err
}

// maxListedKeys bounds the top-level fields an error lists: enough to recognise the document.
const maxListedKeys = 20

// keys lists the members of an object for an error message, the first maxListedKeys of them.
func keys(n *node) []string {
	out := make([]string, 0, min(len(n.members), maxListedKeys+1))
	for _, m := range n.members[:min(len(n.members), maxListedKeys)] {
		out = append(out, m.key)
	}
	if more := len(n.members) - maxListedKeys; more > 0 {
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
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	format := ""
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		format = FormatYAML
	case ".json":
		format = FormatJSON
	}
	return Read(doc, format, path)
}

// BlobSource is what LoadClaimed reads the claimed report through; store.Store satisfies it.
type BlobSource interface {
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// claimedFormats maps the media types a recorder gives claimed reports to their format.
var claimedFormats = map[string]string{
	store.MediaTypeOasisctlReport:     FormatJSON,
	store.MediaTypeOasisctlReportYAML: FormatYAML,
	store.MediaTypeOasisVerdict:       FormatJSON,
	store.MediaTypeVerdict:            FormatJSON,
	store.MediaTypeJSON:               FormatJSON,
	store.MediaTypeYAML:               FormatYAML,
}

// LoadClaimed reads the claimed report a run manifest records (RunManifest.Claimed).
func LoadClaimed(ctx context.Context, src BlobSource, m *store.RunManifest) (*Claim, error) {
	desc := m.Claimed
	if desc == nil {
		return nil, fmt.Errorf("%w: the bundle records none; give one with --report", ErrNoClaim)
	}
	format, ok := claimedFormats[desc.MediaType]
	if !ok {
		return nil, fmt.Errorf("%w: the claimed report %s has media type %q, which is not a report audit reads", ErrShape, desc.Digest, desc.MediaType)
	}
	if desc.Size > MaxReportBytes {
		return nil, fmt.Errorf("%w: the claimed report %s has %d bytes, the limit is %d", ErrTooLarge, desc.Digest, desc.Size, MaxReportBytes)
	}
	rc, _, err := src.OpenBlob(ctx, desc.Digest)
	if err != nil {
		return nil, fmt.Errorf("report: claimed report %s: %w", desc.Digest, err)
	}
	defer rc.Close()
	doc, err := io.ReadAll(io.LimitReader(rc, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: claimed report %s: %w", desc.Digest, err)
	}
	return Read(doc, format, "the bundle's claimed report "+desc.Digest.Short()+" ("+desc.MediaType+")")
}
