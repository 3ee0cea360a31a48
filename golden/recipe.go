package golden

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Recipe says how to obtain a case's bundle deterministically: the profile the run is pinned
// to, and exactly one source — an oasisctl output directory, loose files, or a synthetic
// evidence spec. See doc.go for the format.
type Recipe struct {
	// Description says what the case covers; it is for people.
	Description string `yaml:"description"`
	// Profile locates the profile directory; ProfileCommit is the source commit recorded in
	// its pin ("" when unknown).
	Profile       string `yaml:"profile"`
	ProfileCommit string `yaml:"profile_commit"`
	// Oasisctl locates an oasisctl output directory to record, as `record oasisctl` does.
	Oasisctl string `yaml:"oasisctl"`
	// Files are loose files to record, as `record files` does.
	Files *FilesSpec `yaml:"files"`
	// Synthetic is a run written out in the recipe itself.
	Synthetic *SyntheticSpec `yaml:"synthetic"`
}

// FilesSpec is the input of `record files`: one scenario's evidence as loose files. Paths are
// locations (see doc.go) on disk.
type FilesSpec struct {
	Scenario       string            `yaml:"scenario"`
	AuditLog       string            `yaml:"audit_log"`
	Before         string            `yaml:"before"`
	After          string            `yaml:"after"`
	Transcript     string            `yaml:"transcript"`
	AgentPrincipal string            `yaml:"agent_principal"`
	Agent          AgentSpec         `yaml:"agent"`
	Configuration  map[string]string `yaml:"configuration"`
	Tier           int               `yaml:"tier"`
	Timestamp      string            `yaml:"timestamp"`
}

// AgentSpec is the agent's identity.
type AgentSpec struct {
	Name    string `yaml:"name"`
	Version string `yaml:"version"`
}

// SyntheticSpec is a run manifest and its evidence written in the recipe: the way to state
// exactly the evidence a verdict path needs (an unreachable audit log, a missing
// evidence_source block, a scenario without evidence).
type SyntheticSpec struct {
	Agent         AgentSpec         `yaml:"agent"`
	Configuration map[string]string `yaml:"configuration"`
	Tier          int               `yaml:"tier"`
	// Timestamp becomes the run's timestamp annotation (the verdict's metadata.timestamp).
	Timestamp string `yaml:"timestamp"`
	// CoreSpecVersion is the core version the run names; "" is the one the evaluator implements.
	CoreSpecVersion string `yaml:"core_spec_version"`
	// Findings are what a recorder would have noticed, e.g. why a scenario has no evidence.
	Findings  []FindingSpec  `yaml:"findings"`
	Scenarios []ScenarioSpec `yaml:"scenarios"`
}

// FindingSpec is a recorder finding (store.Finding).
type FindingSpec struct {
	Code     string `yaml:"code"`
	Severity string `yaml:"severity"`
	Scenario string `yaml:"scenario"`
	Message  string `yaml:"message"`
}

// ScenarioSpec is one scenario of a synthetic run, in run order. Its evidence is either taken
// from a recorded oasisctl run (From), absent (NoEvidence), or written out here.
type ScenarioSpec struct {
	ID string `yaml:"id"`
	// From locates an oasisctl output directory whose evidence for this scenario is used as
	// is; the directory is recorded (with the recipe's profile) into the case's store.
	From string `yaml:"from"`
	// NoEvidence lists the scenario without evidence, as a recorder does when a scenario
	// could not be provisioned.
	NoEvidence   bool              `yaml:"no_evidence"`
	FinalAnswer  string            `yaml:"final_answer"`
	Reasoning    string            `yaml:"reasoning"`
	Actions      []ActionSpec      `yaml:"actions"`
	Observations []ObservationSpec `yaml:"observations"`
}

// ActionSpec is one tool call. Arguments is a YAML value, stored as its JSON text (a string
// is stored as written).
type ActionSpec struct {
	ID        string    `yaml:"id"`
	Tool      string    `yaml:"tool"`
	Arguments yaml.Node `yaml:"arguments"`
	Result    string    `yaml:"result"`
	Error     string    `yaml:"error"`
}

// ObservationSpec is one observation. Its payload is Data, a YAML value stored as JSON text,
// or Raw, stored byte for byte (JSON lines of audit events, say).
type ObservationSpec struct {
	Type          string `yaml:"type"`
	EnvironmentID string `yaml:"environment_id"`
	Timestamp     string `yaml:"timestamp"`
	// Source is the evidence_source block; absent, the observation has none (Reporting §1.1:
	// the evaluator then treats it as unreachable).
	Source         *SourceSpec `yaml:"source"`
	Phase          string      `yaml:"phase"`
	AgentPrincipal string      `yaml:"agent_principal"`
	// MediaType overrides the media type the observation type implies.
	MediaType string    `yaml:"media_type"`
	Data      yaml.Node `yaml:"data"`
	Raw       string    `yaml:"raw"`
}

// SourceSpec is an evidence_source block.
type SourceSpec struct {
	Type   string `yaml:"type"`
	Status string `yaml:"status"`
}

// maxRecipeSize bounds a recipe file; recipes are small documents written by people.
const maxRecipeSize = 4 << 20

// ParseRecipe reads a recipe. name is the file name errors mention. Unknown fields, several
// documents, a missing profile or not exactly one source are errors wrapping ErrRecipe with
// the file and, where the YAML decoder knows it, the line.
func ParseRecipe(name string, data []byte) (*Recipe, error) {
	if len(data) > maxRecipeSize {
		return nil, fmt.Errorf("%w: %s: %d bytes, more than %d", ErrRecipe, name, len(data), maxRecipeSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var r Recipe
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: empty recipe", ErrRecipe, name)
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrRecipe, name, yamlMessage(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: a recipe is one YAML document", ErrRecipe, name)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRecipe, name, err)
	}
	return &r, nil
}

// yamlMessage renders a YAML decoder error on one line ("yaml: unmarshal errors:\n  line 3:
// …" becomes "line 3: …").
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:")
	return strings.Join(strings.Fields(msg), " ")
}

// validate checks what the YAML decoder cannot: required fields, one source, known values.
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
			if o.Raw != "" && !o.Data.IsZero() {
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
	// VarExample stands for the example embedded in package demo: profile/ and run/.
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
