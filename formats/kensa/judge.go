package kensa

import (
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// JudgeSpec is a structured judge prompt (judges/<name>.yaml, Kensa's JudgePromptSpec).
type JudgeSpec struct {
	Criterion      string
	PassDefinition string
	FailDefinition string
	Examples       []JudgeExample
}

// JudgeExample is one few-shot example of a judge spec.
type JudgeExample struct {
	Output, Label, Critique string
}

// ParseJudgeSpec reads and validates a judge spec; "pass" and "fail" are the YAML names of
// pass_definition and fail_definition, as in Kensa.
func ParseJudgeSpec(file string, data []byte) (*JudgeSpec, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	f, err := newFields(root, "a judge spec", []string{"criterion", "pass", "fail", "pass_definition", "fail_definition", "examples"}, pyYAMLScalar)
	if err != nil {
		return nil, err
	}
	spec := &JudgeSpec{Criterion: f.str("criterion", true)}
	for _, d := range []struct {
		short, long string
		dst         *string
	}{{"pass", "pass_definition", &spec.PassDefinition}, {"fail", "fail_definition", &spec.FailDefinition}} {
		key := d.long
		if !f.has(key) {
			key = d.short
		}
		if !f.has(key) && f.err == nil {
			f.fail(nil, d.long, "missing (required; %q in YAML)", d.short)
		}
		*d.dst = f.str(key, true)
	}
	n := root.Get("examples")
	if f.err != nil || n == nil || n.IsNull() {
		return spec, f.err
	}
	if n.Kind() != doc.Array {
		return nil, invalid(n, "must be a list")
	}
	for _, en := range n.Items() {
		ef, err := newFields(en, "an example", []string{"output", "label", "critique"}, pyYAMLScalar)
		if err != nil {
			return nil, err
		}
		ex := JudgeExample{Output: ef.str("output", true), Label: ef.str("label", true), Critique: ef.str("critique", true)}
		ef.oneOf("label", ex.Label, []string{"pass", "fail"}, "pass or fail")
		if ef.err != nil {
			return nil, ef.err
		}
		spec.Examples = append(spec.Examples, ex)
	}
	return spec, nil
}
