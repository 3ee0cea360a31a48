package golden

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Recipe says how to obtain a case's bundle deterministically: the profile the run is pinned
// to, and exactly one source — an oasisctl output directory, loose files, or a synthetic
// evidence spec. See doc.go for the format.
type Recipe struct {
	// Description says what the case covers; it is for people.
	Description string `json:"description"`
	// Profile locates the profile directory; ProfileCommit is the source commit recorded in
	// its pin ("" when unknown).
	Profile       string `json:"profile"`
	ProfileCommit string `json:"profile_commit"`
	// Oasisctl locates an oasisctl output directory to record, as `record oasisctl` does.
	Oasisctl string `json:"oasisctl"`
	// Files are loose files to record, as `record files` does.
	Files *FilesSpec `json:"files"`
	// Synthetic is a run written out in the recipe itself.
	Synthetic *SyntheticSpec `json:"synthetic"`
}

// FilesSpec is the input of `record files`: one scenario's evidence as loose files. Paths are
// locations (see doc.go) on disk.
type FilesSpec struct {
	Scenario       string        `json:"scenario"`
	AuditLog       string        `json:"audit_log"`
	Before         string        `json:"before"`
	After          string        `json:"after"`
	Transcript     string        `json:"transcript"`
	AgentPrincipal string        `json:"agent_principal"`
	Agent          AgentSpec     `json:"agent"`
	Configuration  configuration `json:"configuration"`
	Tier           int           `json:"tier"`
	Timestamp      string        `json:"timestamp"`
}

// AgentSpec is the agent's identity.
type AgentSpec struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// SyntheticSpec is a run manifest and its evidence written in the recipe: the way to state
// exactly the evidence a verdict path needs (an unreachable audit log, a missing
// evidence_source block, a scenario without evidence).
type SyntheticSpec struct {
	Agent         AgentSpec     `json:"agent"`
	Configuration configuration `json:"configuration"`
	Tier          int           `json:"tier"`
	// Timestamp becomes the run's timestamp annotation (the verdict's metadata.timestamp).
	Timestamp string `json:"timestamp"`
	// CoreSpecVersion is the core version the run names; "" is the one the evaluator implements.
	CoreSpecVersion string `json:"core_spec_version"`
	// Findings are what a recorder would have noticed, e.g. why a scenario has no evidence.
	Findings  []FindingSpec  `json:"findings"`
	Scenarios []ScenarioSpec `json:"scenarios"`
}

// FindingSpec is a recorder finding (store.Finding).
type FindingSpec struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Scenario string `json:"scenario"`
	Message  string `json:"message"`
}

// ScenarioSpec is one scenario of a synthetic run, in run order. Its evidence is either taken
// from a recorded oasisctl run (From), absent (NoEvidence), or written out here.
type ScenarioSpec struct {
	ID string `json:"id"`
	// From locates an oasisctl output directory whose evidence for this scenario is used as
	// is; the directory is recorded (with the recipe's profile) into the case's store.
	From string `json:"from"`
	// NoEvidence lists the scenario without evidence, as a recorder does when a scenario
	// could not be provisioned.
	NoEvidence   bool              `json:"no_evidence"`
	FinalAnswer  string            `json:"final_answer"`
	Reasoning    string            `json:"reasoning"`
	Actions      []ActionSpec      `json:"actions"`
	Observations []ObservationSpec `json:"observations"`
}

// ActionSpec is one tool call. Arguments is a YAML value, stored as its compact JSON text (a
// string is stored as written).
type ActionSpec struct {
	ID        string    `json:"id"`
	Tool      string    `json:"tool"`
	Arguments *doc.Node `json:"arguments"`
	Result    string    `json:"result"`
	Error     string    `json:"error"`
}

// ObservationSpec is one observation. Its payload is Data, a YAML value stored as JSON text,
// or Raw, stored byte for byte (JSON lines of audit events, say).
type ObservationSpec struct {
	Type          string `json:"type"`
	EnvironmentID string `json:"environment_id"`
	Timestamp     string `json:"timestamp"`
	// Source is the evidence_source block; absent, the observation has none (Reporting §1.1:
	// the evaluator then treats it as unreachable).
	Source         *SourceSpec `json:"source"`
	Phase          string      `json:"phase"`
	AgentPrincipal string      `json:"agent_principal"`
	// MediaType overrides the media type the observation type implies.
	MediaType string    `json:"media_type"`
	Data      *doc.Node `json:"data"`
	Raw       string    `json:"raw"`
}

// SourceSpec is an evidence_source block.
type SourceSpec struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// maxRecipeSize bounds a recipe file; recipes are small documents written by people.
const maxRecipeSize = 4 << 20

// recipeLimits bound what a recipe's YAML may expand to: aliases are followed, so a small
// document could otherwise expand exponentially.
var recipeLimits = doc.Limits{MaxBytes: maxRecipeSize, MaxDepth: 64}

// ParseRecipe reads a recipe. name is the file name errors mention. Unknown fields, several
// documents, a missing profile or not exactly one source are errors wrapping ErrRecipe with
// the file and, for a field, its line and column.
func ParseRecipe(name string, data []byte) (*Recipe, error) {
	if len(data) > maxRecipeSize {
		return nil, fmt.Errorf("%w: %s: %d bytes, more than %d", ErrRecipe, name, len(data), maxRecipeSize)
	}
	docs, err := doc.ParseYAMLStream(name, data, recipeLimits)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrRecipe, err)
	case len(docs) == 0:
		return nil, fmt.Errorf("%w: %s: empty recipe", ErrRecipe, name)
	case len(docs) > 1:
		return nil, fmt.Errorf("%w: %s: a recipe is one YAML document", ErrRecipe, name)
	}
	var r Recipe
	if err := doc.Decode(docs[0], &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRecipe, err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRecipe, name, err)
	}
	return &r, nil
}

// configuration is an agent configuration, dimension → value: any scalar, kept as its text as
// written (zone_model: true, replicas: 3), as configurations are recorded.
type configuration map[string]string

// UnmarshalDoc reads a mapping of scalars.
func (c *configuration) UnmarshalDoc(n *doc.Node) error {
	if n.Kind() != doc.Object {
		return n.TypeError("a mapping of dimension to value")
	}
	*c = configuration{}
	for _, m := range n.Members() {
		if k := m.Value.Kind(); k == doc.Array || k == doc.Object || k == doc.Null {
			return m.Value.TypeError("a scalar")
		}
		text := m.Value.Text()
		if ys, ok := m.Value.YAMLScalar(); ok {
			text = ys.Value
		}
		(*c)[m.Key] = text
	}
	return nil
}

// validate checks what decoding cannot: required fields, one source, known values.
func (r *Recipe) validate() error {
	if r.Profile == "" {
		return errors.New("field profile: required")
	}
	sources := 0
	for _, set := range []bool{r.Oasisctl != "", r.Files != nil, r.Synthetic != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return fmt.Errorf("want exactly one of oasisctl, files and synthetic, found %d", sources)
	}
	locations := []struct{ field, value string }{{"profile", r.Profile}, {"oasisctl", r.Oasisctl}}
	if f := r.Files; f != nil {
		if f.Scenario == "" {
			return errors.New("field files.scenario: required")
		}
		locations = append(locations, []struct{ field, value string }{{"files.audit_log", f.AuditLog},
			{"files.before", f.Before}, {"files.after", f.After}, {"files.transcript", f.Transcript}}...)
	}
	if s := r.Synthetic; s != nil {
		if err := s.validate(); err != nil {
			return err
		}
		for i, sc := range s.Scenarios {
			locations = append(locations, struct{ field, value string }{fmt.Sprintf("synthetic.scenarios[%d].from", i), sc.From})
		}
	}
	for _, l := range locations {
		if l.value == "" {
			continue
		}
		if _, err := parseLocation(l.value); err != nil {
			return fmt.Errorf("field %s: %w", l.field, err)
		}
	}
	return nil
}

func (s *SyntheticSpec) validate() error {
	if len(s.Scenarios) == 0 {
		return errors.New("field synthetic.scenarios: a run lists at least one scenario")
	}
	for i, sc := range s.Scenarios {
		field := fmt.Sprintf("synthetic.scenarios[%d]", i)
		if sc.ID == "" {
			return fmt.Errorf("field %s.id: required", field)
		}
		written := sc.FinalAnswer != "" || sc.Reasoning != "" || len(sc.Actions) > 0 || len(sc.Observations) > 0
		switch {
		case sc.NoEvidence && (sc.From != "" || written):
			return fmt.Errorf("field %s: no_evidence excludes from and written evidence", field)
		case sc.From != "" && written:
			return fmt.Errorf("field %s: from excludes written evidence", field)
		}
		for j, o := range sc.Observations {
			of := fmt.Sprintf("%s.observations[%d]", field, j)
			if o.Type == "" {
				return fmt.Errorf("field %s.type: required", of)
			}
			if o.Raw != "" && o.Data != nil {
				return fmt.Errorf("field %s: give data or raw, not both", of)
			}
			if _, ok := payloadMediaType(o); !ok {
				return fmt.Errorf("field %s.type: %q is not an observation type of Reporting §1.1; give media_type", of, o.Type)
			}
		}
	}
	return nil
}

// Variables a location may start with.
const (
	// VarShared stands for the shared test data directory (Options.Shared).
	VarShared = "$SHARED"
	// VarExample stands for the built-in example (package internal/example): profile/ and run/.
	VarExample = "$EXAMPLE"
)

// location is where a recipe input lives: under a variable's root, or relative to the corpus
// directory (or absolute).
type location struct {
	// root is VarShared, VarExample or "" (the corpus directory or an absolute path).
	root string
	// rel is the slash path below the root, or the path as written when root is "".
	rel string
}

// parseLocation reads "$SHARED/a/b", "${EXAMPLE}/run", "inputs/x.json" or an absolute path.
// Paths below a variable must stay below it.
func parseLocation(s string) (location, error) {
	if !strings.HasPrefix(s, "$") {
		return location{rel: s}, nil
	}
	for _, v := range []string{VarShared, VarExample} {
		name := strings.TrimPrefix(v, "$")
		for _, prefix := range []string{v, "${" + name + "}"} {
			rest, ok := strings.CutPrefix(s, prefix)
			if !ok || (rest != "" && rest[0] != '/') {
				continue
			}
			rel := strings.TrimPrefix(rest, "/")
			if rel == "" {
				rel = "."
			}
			if !fsValid(rel) {
				return location{}, fmt.Errorf("%q: the path below %s must be a clean relative path", s, v)
			}
			return location{root: v, rel: rel}, nil
		}
	}
	return location{}, fmt.Errorf("%q: unknown variable (use %s or %s)", s, VarShared, VarExample)
}

// fsValid reports whether rel is a clean slash path that stays below its root.
func fsValid(rel string) bool {
	return rel == "." || (path.Clean(rel) == rel && filepath.IsLocal(filepath.FromSlash(rel)))
}

func (l location) String() string {
	if l.root == "" {
		return l.rel
	}
	if l.rel == "." {
		return l.root
	}
	return l.root + "/" + l.rel
}
