package kensa

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// The ten check types (Kensa's CheckType).
const (
	CheckOutputContains = "output_contains"
	CheckOutputMatches  = "output_matches"
	CheckToolsCalled    = "tools_called"
	CheckToolsNotCalled = "tools_not_called"
	CheckToolOrder      = "tool_order"
	CheckTrajectory     = "trajectory"
	CheckMaxCost        = "max_cost"
	CheckMaxTurns       = "max_turns"
	CheckMaxDuration    = "max_duration"
	CheckNoRepeatCalls  = "no_repeat_calls"
)

// CheckTypes lists the check types in Kensa's order.
var CheckTypes = []string{CheckOutputContains, CheckOutputMatches, CheckToolsCalled, CheckToolsNotCalled,
	CheckToolOrder, CheckTrajectory, CheckMaxCost, CheckMaxTurns, CheckMaxDuration, CheckNoRepeatCalls}

// paramKind is the type a check param must have.
type paramKind int

const (
	paramStr paramKind = iota
	paramBool
	paramNumber
	paramStrList
	paramSteps
	paramEnum
	paramInt
)

type paramSpec struct {
	kind     paramKind
	required bool
	values   []string // paramEnum
}

// checkParams are the params each check type reads (checks.py, models.TrajectoryParams).
var checkParams = map[string]map[string]paramSpec{
	CheckOutputContains: {"value": {kind: paramStr, required: true}, "case_sensitive": {kind: paramBool}},
	CheckOutputMatches:  {"pattern": {kind: paramStr, required: true}},
	CheckToolsCalled:    {"tools": {kind: paramStrList, required: true}},
	CheckToolsNotCalled: {"tools": {kind: paramStrList, required: true}},
	CheckToolOrder:      {"order": {kind: paramStrList, required: true}},
	CheckTrajectory: {
		"steps":                {kind: paramSteps, required: true},
		"ordering":             {kind: paramEnum, values: []string{"exact", "any_order"}},
		"args":                 {kind: paramEnum, values: []string{"exact", "ignore"}},
		"min_accuracy":         {kind: paramNumber},
		"max_steps":            {kind: paramInt},
		"max_tokens":           {kind: paramInt},
		"max_duration_seconds": {kind: paramNumber},
	},
	CheckMaxCost:       {"max_usd": {kind: paramNumber}, "max": {kind: paramNumber}},
	CheckMaxTurns:      {"max": {kind: paramNumber, required: true}},
	CheckMaxDuration:   {"max_seconds": {kind: paramNumber, required: true}},
	CheckNoRepeatCalls: {},
}

// CheckParams lists each check type's params, sorted, a required one marked with a "*": the
// table the evaluator's rules digest covers.
func CheckParams() map[string][]string {
	out := make(map[string][]string, len(checkParams))
	for typ, specs := range checkParams {
		names := []string{}
		for _, name := range sortedNames(specs) {
			if specs[name].required {
				name += "*"
			}
			names = append(names, name)
		}
		out[typ] = names
	}
	return out
}

// ValidateParams checks the params of a check as written in a scenario: the right types, and
// the params Kensa's Check model requires (models.Check._validate_params: the lists of
// tools_called, tools_not_called and tool_order, trajectory's steps). A string holding a
// {{field}} placeholder stands for a dataset value and is checked after substitution
// (ValidateRuntimeParams); without a dataset a bare one is accepted as Kensa accepts it (the
// check then fails at run time with Kensa's message) and an embedded one is literal text.
// What Kensa accepts and a stricter reader might not is listed by ParamWarnings instead.
func ValidateParams(checkType string, params pyvalue.Value, hasDataset bool) error {
	specs := checkParams[checkType]
	var problems []string
	params.Members(func(name string, v pyvalue.Value) {
		spec, ok := specs[name]
		if !ok {
			return // pydantic keeps it in the dict; no check reads it (ParamWarnings)
		}
		if err := checkParam(name, spec, v, hasDataset); err != nil {
			problems = append(problems, err.Error())
		}
	})
	for _, name := range sortedNames(specs) {
		if _, ok := params.Get(name); specs[name].required && kensaRequires(checkType) && !ok {
			problems = append(problems, fmt.Sprintf("missing param %q", name))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// kensaRequires reports whether Kensa's Check model refuses a check of this type without its
// required param: the list checks and trajectory. The others read a default (checks.py:
// value and pattern "", limits +inf).
func kensaRequires(checkType string) bool {
	_, list := listParams[checkType]
	return list || checkType == CheckTrajectory
}

// ParamWarnings lists what, in the params of a check, Kensa accepts and a stricter reader
// would refuse: an unknown param (ignored), a {{placeholder}} in a scenario without a dataset
// (literal text, or for a list param a failure at run time), a param left to Kensa's default.
func ParamWarnings(checkType string, params pyvalue.Value, hasDataset bool) []string {
	specs := checkParams[checkType]
	var out []string
	params.Members(func(name string, v pyvalue.Value) {
		if _, ok := specs[name]; !ok {
			out = append(out, fmt.Sprintf("unknown param %q, ignored as Kensa ignores it (%s takes %s)", name, checkType, paramNames(specs)))
			return
		}
		if specs[name].kind == paramBool && v.Kind() != pyvalue.KindBool {
			out = append(out, fmt.Sprintf("param %q is %s %s, not true or false: Kensa reads it by Python's truth (%v)", name, v.TypeName(), pyvalue.Repr(v), pyvalue.Truthy(v)))
		}
		if s, ok := v.AsStr(); ok && !hasDataset && strings.Contains(s, "{{") {
			out = append(out, fmt.Sprintf("param %q: placeholder %s but the scenario has no dataset: Kensa takes it as it is", name, pyvalue.StrRepr(s)))
		}
	})
	for _, name := range sortedNames(specs) {
		if _, ok := params.Get(name); specs[name].required && !kensaRequires(checkType) && !ok {
			out = append(out, fmt.Sprintf("missing param %q: Kensa's default applies (%s)", name, kensaDefault(name)))
		}
	}
	if checkType == CheckMaxCost {
		_, a := params.Get("max_usd")
		_, b := params.Get("max")
		if !a && !b {
			out = append(out, `missing param "max_usd": Kensa's default applies (no limit)`)
		}
	}
	return out
}

// kensaDefault says what checks.py reads for an absent param.
func kensaDefault(name string) string {
	switch name {
	case "value":
		return `"", found in any output`
	case "pattern":
		return `"", matching any output`
	}
	return "no limit"
}

func paramNames(specs map[string]paramSpec) string {
	if len(specs) == 0 {
		return "no params"
	}
	return strings.Join(sortedNames(specs), ", ")
}

func sortedNames(specs map[string]paramSpec) []string {
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func checkParam(name string, spec paramSpec, v pyvalue.Value, hasDataset bool) error {
	if s, ok := v.AsStr(); ok && strings.Contains(s, "{{") {
		// A bare placeholder passes Kensa's Check model with or without a dataset; an embedded
		// one is a string like any other.
		if spec.kind == paramStr || IsBarePlaceholder(s) {
			return nil
		}
	}
	if err := paramType(name, spec, v, hasDataset); err != nil {
		return err
	}
	return nil
}

func paramType(name string, spec paramSpec, v pyvalue.Value, hasDataset bool) error {
	bad := func(want string) error {
		return fmt.Errorf("param %q must be %s, got %s %s", name, want, v.TypeName(), pyvalue.Repr(v))
	}
	switch spec.kind {
	case paramStr:
		if _, ok := v.AsStr(); !ok {
			return bad("a string")
		}
	case paramBool:
		// Kensa reads it by Python's truth (checks.check_output_contains: `if
		// case_sensitive`), whatever its type (ParamWarnings says so).
	case paramNumber, paramInt:
		f, ok := v.AsNumber()
		if !ok {
			return bad("a number")
		}
		if spec.kind == paramInt && v.Kind() != pyvalue.KindInt && f != math.Trunc(f) {
			return bad("an integer")
		}
		if name == "min_accuracy" && (f < 0 || f > 1) {
			return fmt.Errorf("trajectory: 'min_accuracy' must be between 0.0 and 1.0")
		}
		if (name == "max_steps" || name == "max_tokens" || name == "max_duration_seconds") && f < 0 {
			return fmt.Errorf("param %q must be greater than or equal to 0", name)
		}
	case paramEnum:
		s, ok := v.AsStr()
		if !ok || !slices.Contains(spec.values, s) {
			return bad("one of " + strings.Join(spec.values, ", "))
		}
	case paramStrList:
		if v.Kind() == pyvalue.KindStr {
			return fmt.Errorf("param %q must be a list of strings, got a bare string; use [%s]", name, pyvalue.Repr(v))
		}
		if v.Kind() != pyvalue.KindList || v.Len() == 0 {
			return bad("a non-empty list of strings")
		}
		for _, item := range v.Items() {
			if _, ok := item.AsStr(); !ok {
				return bad("a list of strings")
			}
		}
	case paramSteps:
		return checkSteps(v, hasDataset)
	}
	return nil
}

func checkSteps(v pyvalue.Value, hasDataset bool) error {
	if v.Kind() != pyvalue.KindList || v.Len() == 0 {
		return fmt.Errorf("trajectory: 'steps' must be a non-empty list of {tool, args}")
	}
	for i, step := range v.Items() {
		if step.Kind() != pyvalue.KindDict {
			return fmt.Errorf("trajectory: steps[%d] must be a mapping with 'tool' and optional 'args'", i)
		}
		var err error
		step.Members(func(k string, m pyvalue.Value) {
			switch {
			case err != nil:
			case k == "tool":
				if _, ok := m.AsStr(); !ok {
					err = fmt.Errorf("trajectory: steps[%d].tool must be a string", i)
				}
			case k == "args":
				if m.Kind() != pyvalue.KindDict {
					// A bare placeholder passes Kensa's Check model, dataset or not.
					if s, ok := m.AsStr(); !ok || !IsBarePlaceholder(s) {
						err = fmt.Errorf("trajectory: steps[%d].args must be a mapping", i)
					}
				}
			default:
				err = fmt.Errorf("trajectory: steps[%d]: unknown field %q", i, k)
			}
		})
		if err != nil {
			return err
		}
		if _, ok := step.Get("tool"); !ok {
			return fmt.Errorf("trajectory: steps[%d].tool is missing", i)
		}
	}
	return nil
}

// IsBarePlaceholder is Kensa's _is_bare_placeholder: the whole string is one {{field}}.
func IsBarePlaceholder(s string) bool {
	return strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") && strings.Count(s, "{{") == 1
}

// SubstituteParams is Kensa's _substitute_params: {{field}} placeholders in check params
// replaced by dataset row values. A bare placeholder takes the value itself (keeping its
// type); an embedded one its str(). A nil or empty row leaves params as they are.
func SubstituteParams(params, row pyvalue.Value) pyvalue.Value {
	if row.Kind() != pyvalue.KindDict || row.Len() == 0 {
		return params
	}
	return substitute(params, row)
}

func substitute(v, row pyvalue.Value) pyvalue.Value {
	switch v.Kind() {
	case pyvalue.KindStr:
		s, _ := v.AsStr()
		if !strings.Contains(s, "{{") {
			return v
		}
		if IsBarePlaceholder(s) {
			if val, ok := row.Get(s[2 : len(s)-2]); ok {
				return val
			}
		}
		row.Members(func(field string, val pyvalue.Value) {
			s = strings.ReplaceAll(s, "{{"+field+"}}", pyvalue.Str(val))
		})
		return pyvalue.NewStr(s)
	case pyvalue.KindDict:
		keys := v.Keys()
		vals := make([]pyvalue.Value, len(keys))
		for i, k := range keys {
			m, _ := v.Get(k)
			vals[i] = substitute(m, row)
		}
		return pyvalue.NewDict(keys, vals)
	case pyvalue.KindList:
		items := make([]pyvalue.Value, v.Len())
		for i, item := range v.Items() {
			items[i] = substitute(item, row)
		}
		return pyvalue.NewList(items)
	}
	return v
}

// listParams are the checks whose params are lists of strings (models._LIST_PARAM_CHECKS).
var listParams = map[string][2]string{
	CheckToolsCalled: {"tools", "tool"}, CheckToolsNotCalled: {"tools", "tool"}, CheckToolOrder: {"order", "item"},
}

// ValidateRuntimeParams is Kensa's validate_runtime_check_params, run on params after
// dataset substitution; its messages are Kensa's. It also checks the types of the other
// params, where Kensa would raise a TypeError mid-check (an error of Kensa's, documented).
func ValidateRuntimeParams(checkType string, params pyvalue.Value) error {
	if checkType == CheckTrajectory {
		if hasBarePlaceholder(params) {
			return errors.New("trajectory: unresolved dataset placeholders remain after substitution")
		}
		return paramsTyped(checkType, params)
	}
	if lp, ok := listParams[checkType]; ok {
		key, label := lp[0], lp[1]
		v, present := params.Get(key)
		switch {
		case !present || v.IsNull():
			return fmt.Errorf("%s: missing required '%s' parameter", checkType, key)
		case v.Kind() == pyvalue.KindStr:
			return fmt.Errorf("%s: '%s' must be a list of strings, got a bare string. Use [%s] for a single %s.", checkType, key, pyvalue.Repr(v), label)
		case v.Kind() != pyvalue.KindList:
			return fmt.Errorf("%s: '%s' must be a list of strings, got %s", checkType, key, v.TypeName())
		case v.Len() == 0:
			return fmt.Errorf("%s: '%s' must not be empty", checkType, key)
		}
		var bad []pyvalue.Value
		for _, item := range v.Items() {
			if _, ok := item.AsStr(); !ok {
				bad = append(bad, item)
			}
		}
		if bad != nil {
			return fmt.Errorf("%s: '%s' must contain only strings, got: %s", checkType, key, pyvalue.Repr(pyvalue.NewList(bad)))
		}
		return nil
	}
	return paramsTyped(checkType, params)
}

// paramsTyped checks param types after substitution.
func paramsTyped(checkType string, params pyvalue.Value) error {
	specs := checkParams[checkType]
	var err error
	params.Members(func(name string, v pyvalue.Value) {
		if spec, ok := specs[name]; ok && err == nil {
			err = paramType(name, spec, v, false)
		}
	})
	if err != nil {
		return fmt.Errorf("%s: %v", checkType, err)
	}
	return nil
}

func hasBarePlaceholder(v pyvalue.Value) bool {
	found := false
	v.Members(func(_ string, m pyvalue.Value) {
		switch m.Kind() {
		case pyvalue.KindStr:
			s, _ := m.AsStr()
			found = found || IsBarePlaceholder(s)
		case pyvalue.KindList:
			for _, item := range m.Items() {
				if s, ok := item.AsStr(); ok && IsBarePlaceholder(s) {
					found = true
				}
				if item.Kind() == pyvalue.KindDict && hasBarePlaceholder(item) {
					found = true
				}
			}
		case pyvalue.KindDict:
			found = found || hasBarePlaceholder(m)
		}
	})
	return found
}

// SplitCommand splits a command line into words by POSIX shell rules (quotes and
// backslashes; no expansion of any kind), as Python's shlex.split does.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
