package oasisctl

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// RunConfig is what a recording reads of an oasisctl run configuration (RunConfig in oasisctl's
// evaluation package), which is otherwise kept byte-exact as a source.
type RunConfig struct {
	// AgentToken is agent.token: a credential, which a recording redacts wherever it appears.
	AgentToken string
	// Provider is environment.provider, the provider's name.
	Provider string
	// Unknown lists the members of the known sections the format does not define.
	Unknown []Field
}

// runConfigSections are the members of a run configuration, by section ("" is the top level),
// in the order they are checked.
var runConfigSections = []struct {
	name   string
	fields []string
}{
	{"", []string{"profile", "agent", "environment", "evaluation", "output"}},
	{"agent", []string{"adapter", "url", "token", "command"}},
	{"environment", []string{"provider", "url"}},
	{"evaluation", []string{"tier", "timeout", "parallel", "scenarios"}},
	{"output", []string{"format", "path", "evidence_dir"}},
	{"profile", []string{"path"}},
}

// ReadRunConfig reads a run configuration (YAML). name is the file name errors and fields are
// reported with; malformed input is an error wrapping ErrRunConfig.
func ReadRunConfig(name string, data []byte) (*RunConfig, error) {
	root, err := doc.ParseYAML(name, data, doc.Limits{MaxBytes: MaxRunConfigBytes})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunConfig, err)
	}
	if root.Kind() != doc.Object {
		return nil, fmt.Errorf("%w: %w", ErrRunConfig, root.Errorf("the run configuration is %s, want a mapping", root.Kind().Article()))
	}
	rc := &RunConfig{}
	for _, section := range runConfigSections {
		obj := root
		if section.name != "" {
			obj = root.Get(section.name)
		}
		if obj.Kind() == doc.Object {
			rc.Unknown = unknown(rc.Unknown, obj, section.fields)
		}
	}
	if agent := root.Get("agent"); agent.Kind() == doc.Object {
		_ = readStrings(agent, member{"token", &rc.AgentToken}) // a token that is no string is no credential to hide
	}
	if env := root.Get("environment"); env.Kind() == doc.Object {
		if err := readStrings(env, member{"provider", &rc.Provider}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRunConfig, err)
		}
	}
	return rc, nil
}
