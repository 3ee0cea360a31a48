package kensa

import (
	"fmt"

	"gopkg.in/yaml.v3"
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
	root, err := yamlDoc(file, data)
	if err != nil {
		return nil, err
	}
	m, err := newMapping(file, root, "", []string{"criterion", "pass", "fail", "pass_definition", "fail_definition", "examples"})
	if err != nil {
		return nil, err
	}
	spec := &JudgeSpec{}
	if spec.Criterion, err = m.str("criterion", true); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		short, long string
		dst         *string
	}{{"pass", "pass_definition", &spec.PassDefinition}, {"fail", "fail_definition", &spec.FailDefinition}} {
		key := d.long
		if !m.has(key) {
			key = d.short
		}
		if *d.dst, err = m.str(key, true); err != nil {
			return nil, m.errAt(d.long, "missing (required; %q in YAML)", d.short)
		}
	}
	n, ok := m.node("examples")
	if !ok || isNull(n) {
		return spec, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fileError(file, n.Line, "examples", "must be a list")
	}
	for i, en := range n.Content {
		em, err := newMapping(file, en, fmt.Sprintf("examples[%d]", i), []string{"output", "label", "critique"})
		if err != nil {
			return nil, err
		}
		var ex JudgeExample
		if ex.Output, err = em.str("output", true); err != nil {
			return nil, err
		}
		if ex.Label, err = em.str("label", true); err != nil {
			return nil, err
		}
		if ex.Label != "pass" && ex.Label != "fail" {
			return nil, em.errAt("label", "%q is not pass or fail", ex.Label)
		}
		if ex.Critique, err = em.str("critique", true); err != nil {
			return nil, err
		}
		spec.Examples = append(spec.Examples, ex)
	}
	return spec, nil
}
