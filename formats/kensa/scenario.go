package kensa

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
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
	// Warnings are what Kensa accepts and a stricter reader would refuse: an unknown field or
	// check param (pydantic ignores them), a {{placeholder}} in a check of a scenario without a
	// dataset (it stays literal), a check param left to Kensa's default. Each is a *doc.Error
	// naming its place; kensa run and kensa import print them and refuse them with --strict.
	Warnings []error
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

// ParseScenario reads and validates one scenario file. file names it in errors, which are
// *doc.Error values ("file:line:column: field: message").
func ParseScenario(file string, data []byte) (*Scenario, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	f, err := newFields(root, "a scenario", nil, pyYAMLScalar)
	if err != nil {
		return nil, err
	}
	s := &Scenario{File: file, Source: "code"}
	s.warnUnknown(root, scenarioFields)
	s.ID = f.str("id", true)
	s.Name = f.str("name", true)
	s.Description = f.str("description", false)
	if f.has("source") {
		s.Source = f.str("source", false)
		f.oneOf("source", s.Source, scenarioSources, "code, traces or user")
	}
	s.readInput(f)
	s.readRunCommand(f)
	s.readEnv(f)
	s.readDataset(f)
	s.ExpectedOutcome = f.str("expected_outcome", false)
	s.Criteria = f.optStr("criteria")
	s.Judge = f.optStr("judge")
	switch {
	case f.err != nil:
	case s.Criteria != nil && s.Judge != nil:
		f.fail(root.Get("judge"), "judge", "'criteria' and 'judge' are mutually exclusive")
	case s.Judge != nil && !validJudgeName(*s.Judge):
		f.fail(root.Get("judge"), "judge", "%q does not name a file in judges/", *s.Judge)
	}
	s.TraceRefs = f.strList("trace_refs")
	s.FailurePattern = f.optStr("failure_pattern")
	s.readChecks(f)
	if f.err != nil {
		return nil, f.err
	}
	return s, nil
}

// warnUnknown adds a warning for each member of n whose name is not in known: Kensa's models
// (pydantic, extra fields ignored) accept and ignore it.
func (s *Scenario) warnUnknown(n *doc.Node, known []string) {
	for _, m := range n.Members() {
		if !slices.Contains(known, m.Key) {
			s.Warnings = append(s.Warnings, invalid(m.Value, "unknown field, ignored as Kensa ignores it (known: %s)", strings.Join(known, ", ")))
		}
	}
}

// StrictError is the first of s's warnings as an error (ErrInvalid), nil when there is none:
// what a reader that refuses what Kensa only tolerates (--strict) returns.
func (s *Scenario) StrictError() error {
	if len(s.Warnings) == 0 {
		return nil
	}
	return fmt.Errorf("%w (refused by --strict; Kensa accepts it)", s.Warnings[0])
}

func validJudgeName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\\x00") && name != "." && name != ".."
}

func (s *Scenario) readInput(f *fields) {
	v, n := f.value("input")
	if n == nil || f.err != nil {
		return
	}
	switch v.Kind() {
	case pyvalue.KindStr, pyvalue.KindDict, pyvalue.KindNull:
		s.Input = v
	default:
		f.fail(n, "input", "must be a string or a mapping, got %s", v.TypeName())
	}
}

func (s *Scenario) readRunCommand(f *fields) {
	v, n := f.value("run_command")
	switch {
	case f.err != nil:
		return
	case n == nil:
		// Kensa's model defaults it to [], and its runner fails each run of the scenario
		// (runner._build_command).
		s.Warnings = append(s.Warnings, missing(f.obj, "run_command", "missing: Kensa accepts the scenario and fails each of its runs (%s)", ErrNoRunCommand))
		return
	case v.Kind() == pyvalue.KindStr:
		text, _ := v.AsStr()
		words, err := SplitCommand(text)
		if err != nil {
			f.fail(n, "run_command", "%v", err)
			return
		}
		s.RunCommand, s.RunCommandText = words, text
	default:
		s.RunCommand = f.strList("run_command")
		if f.err == nil && len(s.RunCommand) == 0 {
			s.Warnings = append(s.Warnings, invalid(n, "empty: Kensa accepts the scenario and fails each of its runs (%s)", ErrNoRunCommand))
			return
		}
	}
	if f.err == nil && (len(s.RunCommand) == 0 || s.RunCommand[0] == "") {
		f.fail(n, "run_command", "must be a non-empty list of argv elements")
	}
}

// ErrNoRunCommand is runner._build_command's error for a scenario without a run_command, the
// error of each of its runs.
var ErrNoRunCommand = errclass.New(errclass.Input, "run_command must be a non-empty list of argv elements")

func (s *Scenario) readEnv(f *fields) {
	env := f.sub("env_overrides", "env_overrides", nil)
	if env == nil {
		return
	}
	for _, m := range env.obj.Members() {
		v := env.str(m.Key, true)
		s.EnvOverrides = append(s.EnvOverrides, EnvVar{Name: m.Key, Value: v})
	}
	f.err = env.err
}

func (s *Scenario) readDataset(f *fields) {
	ds, field := f.optStr("dataset"), f.optStr("input_field")
	switch {
	case f.err != nil:
	case (ds == nil) != (field == nil):
		given, absent := "dataset", "input_field"
		if ds == nil {
			given, absent = absent, given
		}
		f.fail(f.obj.Get(given), given, "'dataset' and 'input_field' must both be set or both be omitted: %s is missing", absent)
	case ds == nil:
	case *ds == "" || strings.HasPrefix(*ds, "/") || slices.Contains(strings.Split(*ds, "/"), ".."):
		f.fail(f.obj.Get("dataset"), "dataset", "%q must be a relative path inside the scenarios directory", *ds)
	default:
		s.Dataset, s.InputField = *ds, *field
	}
}

func (s *Scenario) readChecks(f *fields) {
	n := f.obj.Get("checks")
	if f.err != nil || n == nil || n.IsNull() {
		return
	}
	if n.Kind() != doc.Array {
		f.fail(n, "checks", "must be a list")
		return
	}
	trajectories := 0
	for _, cn := range n.Items() {
		c, err := s.readCheck(cn)
		if err != nil {
			f.err = err
			return
		}
		if c.Type == CheckTrajectory {
			if trajectories++; trajectories > 1 {
				f.fail(cn, "", "at most one 'trajectory' check is allowed per scenario")
				return
			}
		}
		s.Checks = append(s.Checks, c)
	}
}

func (s *Scenario) readCheck(n *doc.Node) (Check, error) {
	cf, err := newFields(n, "a check", nil, pyYAMLScalar)
	if err != nil {
		return Check{}, err
	}
	s.warnUnknown(n, []string{"type", "params", "description"})
	c := Check{Line: n.Pos().Line, Params: pyvalue.NewDict(nil, nil)}
	c.Type = cf.str("type", true)
	if cf.err == nil && !slices.Contains(CheckTypes, c.Type) {
		cf.fail(n.Get("type"), "type", "unknown check type %q (want one of %s)", c.Type, strings.Join(CheckTypes, ", "))
	}
	params, pn := cf.value("params")
	switch {
	case cf.err != nil || pn == nil || params.IsNull():
	case params.Kind() != pyvalue.KindDict:
		cf.fail(pn, "params", "must be a mapping, got %s", params.TypeName())
	default:
		c.Params = params
	}
	c.Description = cf.str("description", false)
	if cf.err != nil {
		return Check{}, cf.err
	}
	at := pn
	if at == nil {
		at = n
	}
	if err := ValidateParams(c.Type, c.Params, s.Dataset != ""); err != nil {
		return Check{}, invalid(at, "%v", err)
	}
	for _, w := range ParamWarnings(c.Type, c.Params, s.Dataset != "") {
		s.Warnings = append(s.Warnings, invalid(at, "%s", w))
	}
	return c, nil
}
