package kensa

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Scenario is one scenario file (Kensa's Scenario model).
type Scenario struct {
	// File is the name the scenario was read under, for messages.
	File        string
	ID          string
	Name        string
	Description string
	// Source is code, traces or user (default code).
	Source string
	// Input is a str, a dict or None.
	Input pyvalue.Value
	// RunCommand is the argv; RunCommandText is set when the file gave a string, which was
	// split into RunCommand by POSIX shell word rules (no shell runs it).
	RunCommand     []string
	RunCommandText string
	EnvOverrides   []EnvVar
	// Dataset and InputField are both set or both empty.
	Dataset         string
	InputField      string
	ExpectedOutcome string
	Checks          []Check
	// Criteria and Judge are nil when absent; at most one is set.
	Criteria       *string
	Judge          *string
	TraceRefs      []string
	FailurePattern *string
}

// EnvVar is one env_overrides entry, in file order.
type EnvVar struct{ Name, Value string }

// Check is one deterministic check of a scenario.
type Check struct {
	Type        string
	Params      pyvalue.Value // a dict
	Description string
	// Line is where the check starts in the scenario file.
	Line int
}

// NeedsJudge reports whether the scenario has criteria for an LLM judge.
func (s *Scenario) NeedsJudge() bool { return s.Criteria != nil || s.Judge != nil }

// Sources of a scenario.
var scenarioSources = []string{"code", "traces", "user"}

// scenarioFields are the fields of Kensa's Scenario model.
var scenarioFields = []string{"id", "name", "description", "source", "input", "run_command", "env_overrides",
	"dataset", "input_field", "expected_outcome", "checks", "criteria", "judge", "trace_refs", "failure_pattern"}

// ParseScenario reads and validates one scenario file. file names it in errors.
func ParseScenario(file string, data []byte) (*Scenario, error) {
	root, err := yamlDoc(file, data)
	if err != nil {
		return nil, err
	}
	m, err := newMapping(file, root, "", scenarioFields)
	if err != nil {
		return nil, err
	}
	s := &Scenario{File: file, Source: "code"}
	if s.ID, err = m.str("id", true); err != nil {
		return nil, err
	}
	if s.Name, err = m.str("name", true); err != nil {
		return nil, err
	}
	if s.Description, err = m.str("description", false); err != nil {
		return nil, err
	}
	if src, err := m.str("source", false); err != nil {
		return nil, err
	} else if src != "" || m.has("source") {
		if !slices.Contains(scenarioSources, src) {
			return nil, m.errAt("source", "%q is not code, traces or user", src)
		}
		s.Source = src
	}
	if err := s.readInput(m); err != nil {
		return nil, err
	}
	if err := s.readRunCommand(m); err != nil {
		return nil, err
	}
	if err := s.readEnv(m); err != nil {
		return nil, err
	}
	if err := s.readDataset(m); err != nil {
		return nil, err
	}
	if s.ExpectedOutcome, err = m.str("expected_outcome", false); err != nil {
		return nil, err
	}
	if s.Criteria, err = m.optStr("criteria"); err != nil {
		return nil, err
	}
	if s.Judge, err = m.optStr("judge"); err != nil {
		return nil, err
	}
	if s.Criteria != nil && s.Judge != nil {
		return nil, m.errAt("judge", "'criteria' and 'judge' are mutually exclusive")
	}
	if s.Judge != nil && !validJudgeName(*s.Judge) {
		return nil, m.errAt("judge", "%q does not name a file in judges/", *s.Judge)
	}
	if s.TraceRefs, err = m.strList("trace_refs"); err != nil {
		return nil, err
	}
	if s.FailurePattern, err = m.optStr("failure_pattern"); err != nil {
		return nil, err
	}
	if err := s.readChecks(m); err != nil {
		return nil, err
	}
	return s, nil
}

func validJudgeName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\\x00") && name != "." && name != ".."
}

func (s *Scenario) readInput(m *mapping) error {
	n, ok := m.node("input")
	if !ok {
		return nil
	}
	v, err := m.conv.value(n, "input", 0)
	if err != nil {
		return err
	}
	switch v.Kind() {
	case pyvalue.KindStr, pyvalue.KindDict, pyvalue.KindNull:
		s.Input = v
		return nil
	}
	return fileError(m.file, n.Line, "input", "must be a string or a mapping, got %s", v.TypeName())
}

func (s *Scenario) readRunCommand(m *mapping) error {
	n, ok := m.node("run_command")
	if !ok {
		return m.errAt("run_command", "missing: a scenario needs the command that runs the agent")
	}
	if n.Kind == yaml.ScalarNode {
		text, err := m.str("run_command", true)
		if err != nil {
			return err
		}
		words, err := SplitCommand(text)
		if err != nil {
			return fileError(m.file, n.Line, "run_command", "%v", err)
		}
		s.RunCommand, s.RunCommandText = words, text
	} else {
		list, err := m.strList("run_command")
		if err != nil {
			return err
		}
		s.RunCommand = list
	}
	if len(s.RunCommand) == 0 || s.RunCommand[0] == "" {
		return fileError(m.file, n.Line, "run_command", "must be a non-empty list of argv elements")
	}
	return nil
}

func (s *Scenario) readEnv(m *mapping) error {
	n, ok := m.node("env_overrides")
	if !ok {
		return nil
	}
	em, err := newMapping(m.file, n, "env_overrides", nil)
	if err != nil {
		return err
	}
	for _, k := range em.keys {
		v, err := em.str(k, true)
		if err != nil {
			return err
		}
		s.EnvOverrides = append(s.EnvOverrides, EnvVar{Name: k, Value: v})
	}
	return nil
}

func (s *Scenario) readDataset(m *mapping) error {
	ds, err := m.optStr("dataset")
	if err != nil {
		return err
	}
	field, err := m.optStr("input_field")
	if err != nil {
		return err
	}
	if (ds == nil) != (field == nil) {
		missing := "input_field"
		if ds == nil {
			missing = "dataset"
		}
		return m.errAt(missing, "'dataset' and 'input_field' must both be set or both be omitted")
	}
	if ds != nil {
		if *ds == "" || strings.HasPrefix(*ds, "/") || slices.Contains(strings.Split(*ds, "/"), "..") {
			return m.errAt("dataset", "%q must be a relative path inside the scenarios directory", *ds)
		}
		s.Dataset, s.InputField = *ds, *field
	}
	return nil
}

func (s *Scenario) readChecks(m *mapping) error {
	n, ok := m.node("checks")
	if !ok || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return fileError(m.file, n.Line, "checks", "must be a list")
	}
	trajectories := 0
	for i, cn := range n.Content {
		field := fmt.Sprintf("checks[%d]", i)
		cm, err := newMapping(m.file, cn, field, []string{"type", "params", "description"})
		if err != nil {
			return err
		}
		c := Check{Line: cn.Line, Params: pyvalue.NewDict(nil, nil)}
		if c.Type, err = cm.str("type", true); err != nil {
			return err
		}
		if !slices.Contains(CheckTypes, c.Type) {
			return cm.errAt("type", "unknown check type %q (want one of %s)", c.Type, strings.Join(CheckTypes, ", "))
		}
		if pn, ok := cm.node("params"); ok && !isNull(pn) {
			if c.Params, err = cm.conv.value(pn, field+".params", 0); err != nil {
				return err
			}
			if c.Params.Kind() != pyvalue.KindDict {
				return fileError(m.file, pn.Line, field+".params", "must be a mapping, got %s", c.Params.TypeName())
			}
		}
		if c.Description, err = cm.str("description", false); err != nil {
			return err
		}
		if c.Type == CheckTrajectory {
			if trajectories++; trajectories > 1 {
				return fileError(m.file, cn.Line, field, "at most one 'trajectory' check is allowed per scenario")
			}
		}
		if err := ValidateParams(c.Type, c.Params, s.Dataset != ""); err != nil {
			return fileError(m.file, cn.Line, field+".params", "%v", err)
		}
		s.Checks = append(s.Checks, c)
	}
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 && yamlNull.MatchString(n.Value)
}

// mapping is a YAML mapping node read field by field, with unknown fields rejected.
type mapping struct {
	file   string
	prefix string
	line   int
	keys   []string
	nodes  map[string]*yaml.Node
	keyAt  map[string]int
	conv   *converter
}

func newMapping(file string, n *yaml.Node, prefix string, allowed []string) (*mapping, error) {
	what := prefix
	if what == "" {
		what = "document"
	}
	if n.Kind != yaml.MappingNode {
		return nil, fileError(file, n.Line, prefix, "%s must be a mapping", what)
	}
	m := &mapping{file: file, prefix: prefix, line: n.Line, nodes: map[string]*yaml.Node{}, keyAt: map[string]int{}, conv: &converter{file: file}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, fileError(file, k.Line, prefix, "keys must be strings")
		}
		if _, dup := m.nodes[k.Value]; dup {
			return nil, fileError(file, k.Line, joinField(prefix, k.Value), "duplicate key")
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, fileError(file, k.Line, joinField(prefix, k.Value), "unknown field (known: %s)", strings.Join(allowed, ", "))
		}
		m.keys = append(m.keys, k.Value)
		m.nodes[k.Value] = n.Content[i+1]
		m.keyAt[k.Value] = k.Line
	}
	return m, nil
}

func (m *mapping) has(key string) bool { _, ok := m.nodes[key]; return ok }

func (m *mapping) node(key string) (*yaml.Node, bool) {
	n, ok := m.nodes[key]
	return n, ok
}

func (m *mapping) errAt(key, format string, args ...any) error {
	line, ok := m.keyAt[key]
	if !ok {
		line = m.line
	}
	return fileError(m.file, line, joinField(m.prefix, key), format, args...)
}

func (m *mapping) value(key string) (pyvalue.Value, bool, error) {
	n, ok := m.nodes[key]
	if !ok {
		return pyvalue.Value{}, false, nil
	}
	v, err := m.conv.value(n, joinField(m.prefix, key), 0)
	return v, true, err
}

// str reads a string field; required fields must be present and non-null.
func (m *mapping) str(key string, required bool) (string, error) {
	v, ok, err := m.value(key)
	if err != nil {
		return "", err
	}
	if !ok {
		if required {
			return "", m.errAt(key, "missing (required)")
		}
		return "", nil
	}
	s, isStr := v.AsStr()
	if !isStr {
		return "", fileError(m.file, m.nodes[key].Line, joinField(m.prefix, key), "must be a string, got %s", v.TypeName())
	}
	return s, nil
}

// optStr reads a string field that may be absent or null.
func (m *mapping) optStr(key string) (*string, error) {
	v, ok, err := m.value(key)
	if err != nil || !ok || v.IsNull() {
		return nil, err
	}
	s, isStr := v.AsStr()
	if !isStr {
		return nil, fileError(m.file, m.nodes[key].Line, joinField(m.prefix, key), "must be a string, got %s", v.TypeName())
	}
	return &s, nil
}

// strList reads a list of strings; absent or null gives nil.
func (m *mapping) strList(key string) ([]string, error) {
	v, ok, err := m.value(key)
	if err != nil || !ok || v.IsNull() {
		return nil, err
	}
	field := joinField(m.prefix, key)
	if v.Kind() != pyvalue.KindList {
		return nil, fileError(m.file, m.nodes[key].Line, field, "must be a list of strings, got %s", v.TypeName())
	}
	out := make([]string, 0, v.Len())
	for i, item := range v.Items() {
		s, ok := item.AsStr()
		if !ok {
			return nil, fileError(m.file, m.nodes[key].Line, fmt.Sprintf("%s[%d]", field, i), "must be a string, got %s", item.TypeName())
		}
		out = append(out, s)
	}
	return out, nil
}
