package evallib

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Errors of the package. Each error about a document is a *doc.Error (file:line:column: path:
// message) wrapping one of them.
var (
	// ErrScenario: a scenario document breaks the scenario format.
	ErrScenario = errclass.New(errclass.Input, "evallib: invalid scenario")
	// ErrCatalogue: a variation catalogue breaks the catalogue format.
	ErrCatalogue = errclass.New(errclass.Input, "evallib: invalid variation catalogue")
	// ErrUnknownVariation: a variation id is not in the catalogue.
	ErrUnknownVariation = errclass.New(errclass.NotFound, "evallib: unknown variation")
)

// ScenarioLimits bound a scenario document: a scenario is a contract, not a data set.
var ScenarioLimits = doc.Limits{MaxBytes: 16 << 20, MaxDepth: 64}

// Scenario sources (the optional source field).
const (
	SourceUser   = "user"
	SourceTraces = "traces"
)

// Scenario is a validated scenario: the fields of the description's "Creating Scenarios" table,
// the optional id, and the optional source and confidence of a draft made from telemetry.
type Scenario struct {
	ID          string
	Name        string
	Description string
	RiskLevel   string
	// InputContext and ExpectedBehavior are objects.
	InputContext     *doc.Node
	ExpectedBehavior *doc.Node
	// Source is "user" or "traces" ("" when the document does not say); Confidence is the
	// draft's confidence score as a plain decimal in [0, 1] ("" when absent).
	Source     string
	Confidence string
	// Canonical is the scenario as canonical JSON (RFC 8785), id included: the content the store
	// keeps, hashes and pins in every run.
	Canonical []byte
}

// scenarioFields is the document shape, decoded strictly: any other member is an error.
type scenarioFields struct {
	ID               *doc.Node `json:"id"`
	Name             *doc.Node `json:"name" doc:"required"`
	Description      *doc.Node `json:"description" doc:"required"`
	RiskLevel        *doc.Node `json:"risk_level" doc:"required"`
	InputContext     *doc.Node `json:"input_context" doc:"required"`
	ExpectedBehavior *doc.Node `json:"expected_behavior" doc:"required"`
	Source           *doc.Node `json:"source"`
	Confidence       *doc.Node `json:"confidence"`
}

// ParseDocument parses a JSON or YAML document: JSON when the name ends in .json or the first
// non-blank byte opens a JSON object or array, YAML otherwise.
func ParseDocument(name string, data []byte, lim doc.Limits) (*doc.Node, error) {
	if isJSON(name, data) {
		return doc.ParseJSON(name, data, lim)
	}
	return doc.ParseYAML(name, data, lim)
}

func isJSON(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\xEF\xBB\xBF")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// ParseScenario reads one scenario from a JSON or YAML document named name.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	root, err := ParseDocument(name, data, ScenarioLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrScenario, err)
	}
	return ScenarioFromNode(root)
}

// ScenarioFromNode validates a scenario already parsed (an API request body).
func ScenarioFromNode(root *doc.Node) (*Scenario, error) {
	if root.Kind() != doc.Object {
		return nil, wrap(root.TypeError("a scenario object"))
	}
	var f scenarioFields
	if err := doc.Decode(root, &f); err != nil {
		return nil, wrap(err)
	}
	s := &Scenario{InputContext: f.InputContext, ExpectedBehavior: f.ExpectedBehavior}
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, wrap(err))
		}
	}
	s.Name, _ = str(f.Name, &errs, true)
	s.Description, _ = str(f.Description, &errs, false)
	level, ok := str(f.RiskLevel, &errs, true)
	if ok && !slices.Contains(store.EvalRiskLevels, level) {
		check(f.RiskLevel.Errorf("unknown risk_level %q: want one of %s", level, strings.Join(store.EvalRiskLevels, ", ")))
	}
	s.RiskLevel = level
	if f.InputContext.Kind() != doc.Object {
		check(f.InputContext.TypeError("an object (the input provided to the agent)"))
	}
	switch {
	case f.ExpectedBehavior.Kind() != doc.Object:
		check(f.ExpectedBehavior.TypeError("an object (the behaviour the agent should produce)"))
	case f.ExpectedBehavior.Len() == 0:
		check(f.ExpectedBehavior.Errorf("expected_behavior is empty: a scenario must expect at least one field"))
	}
	if f.ID != nil {
		if id, ok := str(f.ID, &errs, true); ok {
			if err := store.ValidEvalID(id); err != nil {
				check(f.ID.Errorf("%v", err))
			} else if id == store.EvalBaseline {
				check(f.ID.Errorf("id %q is reserved", id))
			}
			s.ID = id
		}
	}
	if f.Source != nil {
		if src, ok := str(f.Source, &errs, true); ok && src != SourceUser && src != SourceTraces {
			check(f.Source.Errorf("unknown source %q: want %q or %q", src, SourceUser, SourceTraces))
		} else {
			s.Source = src
		}
	}
	if f.Confidence != nil {
		s.Confidence = confidence(f.Confidence, &errs)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := s.canonicalize(); err != nil {
		return nil, err
	}
	return s, nil
}

// wrap classes a document error as ErrScenario, keeping its position in the text.
func wrap(err error) error {
	if errors.Is(err, ErrScenario) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrScenario, err)
}

// str reads a string member; required strings must not be empty.
func str(n *doc.Node, errs *[]error, nonEmpty bool) (string, bool) {
	v, err := n.Str()
	if err != nil {
		*errs = append(*errs, wrap(err))
		return "", false
	}
	if nonEmpty && strings.TrimSpace(v) == "" {
		*errs = append(*errs, wrap(n.Errorf("must not be empty")))
		return "", false
	}
	return v, true
}

func confidence(n *doc.Node, errs *[]error) string {
	v, err := n.Decimal()
	if err != nil {
		*errs = append(*errs, wrap(err))
		return ""
	}
	if strings.HasPrefix(v, "-") || v != "1" && v != "0" && !strings.HasPrefix(v, "0.") {
		*errs = append(*errs, wrap(n.Errorf("confidence %s is not between 0 and 1", v)))
		return ""
	}
	return v
}

// canonicalize writes Canonical, deriving the id from the content when the document has none:
// "scn_" and the first 20 hex digits of the SHA-256 of the canonical scenario without id, so
// the same scenario always gets the same id (docs/decisions.md, "Eval Library: scenario ids").
func (s *Scenario) canonicalize() error {
	if s.ID == "" {
		body, err := s.encode("")
		if err != nil {
			return err
		}
		s.ID = "scn_" + store.Sum(body).Hex()[:20]
	}
	b, err := s.encode(s.ID)
	if err != nil {
		return err
	}
	s.Canonical = b
	return nil
}

// encode writes the scenario as canonical JSON; members are ASCII names, written in sorted
// order, which RFC 8785 §3.2.3 order and byte order agree on.
func (s *Scenario) encode(id string) ([]byte, error) {
	var b []byte
	b = append(b, '{')
	if s.Confidence != "" {
		// A confidence was validated as a plain decimal in [0, 1]; its canonical number form is
		// the shortest round-trip text of the double, which for these values is the text itself
		// without trailing zeros.
		n, err := doc.ParseJSON("confidence", []byte(s.Confidence), doc.Limits{})
		if err != nil {
			return nil, err
		}
		b = append(b, `"confidence":`...)
		if b, err = doc.AppendCanonical(b, n); err != nil {
			return nil, wrap(err)
		}
		b = append(b, ',')
	}
	b = appendMember(b, "description", s.Description)
	b = append(b, `,"expected_behavior":`...)
	var err error
	if b, err = doc.AppendCanonical(b, s.ExpectedBehavior); err != nil {
		return nil, wrap(err)
	}
	if id != "" {
		b = append(b, ',')
		b = appendMember(b, "id", id)
	}
	b = append(b, `,"input_context":`...)
	if b, err = doc.AppendCanonical(b, s.InputContext); err != nil {
		return nil, wrap(err)
	}
	b = append(b, ',')
	b = appendMember(b, "name", s.Name)
	b = append(b, ',')
	b = appendMember(b, "risk_level", s.RiskLevel)
	if s.Source != "" {
		b = append(b, ',')
		b = appendMember(b, "source", s.Source)
	}
	return append(b, '}'), nil
}

func appendMember(b []byte, key, value string) []byte {
	b = doc.AppendString(b, key)
	b = append(b, ':')
	return doc.AppendString(b, value)
}

// Digest is the digest of the canonical scenario.
func (s *Scenario) Digest() store.Digest { return store.Sum(s.Canonical) }

// Ref names the scenario for run manifests.
func (s *Scenario) Ref() store.EvalScenarioRef {
	return store.EvalScenarioRef{ID: s.ID, Name: s.Name, RiskLevel: s.RiskLevel, Content: s.Digest()}
}

// LoadCanonical reads a scenario back from the canonical JSON the store keeps.
func LoadCanonical(name string, b []byte) (*Scenario, error) {
	s, err := ParseScenario(name, b)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(s.Canonical, b) {
		return nil, fmt.Errorf("%w: %s is not in canonical form", ErrScenario, name)
	}
	return s, nil
}
