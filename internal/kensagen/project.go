package kensagen

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// BehaviourDir is where Write puts the agent's behaviour files, beside .kensa.
const BehaviourDir = "kensagen-behaviours"

// YAML is the scenario file, with run_command running agent (a command line ending in
// AgentArg) on the scenario's behaviour file at behaviourFile.
func (s *Scenario) YAML(agent []string, behaviourFile string) string {
	cmd := append(append(append([]string{}, agent...), behaviourFile), s.RunTail...)
	return s.head + "run_command: " + jsonText(cmd) + "\n" + s.body
}

// Write writes a Kensa project into dir: dir/.env, dir/.kensa/scenarios (one file a scenario,
// named by its id as Kensa's judge requires, and its dataset) and the behaviour files.
func Write(dir string, agent []string, scenarios []*Scenario) error {
	scenDir := filepath.Join(dir, ".kensa", "scenarios")
	behDir := filepath.Join(dir, BehaviourDir)
	for _, d := range []string{scenDir, behDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(Dotenv), 0o644); err != nil {
		return err
	}
	for _, s := range scenarios {
		beh, err := json.Marshal(s.behaviours)
		if err != nil {
			return err
		}
		bf := filepath.Join(behDir, s.ID+".json")
		if err := os.WriteFile(bf, beh, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(scenDir, s.ID+".yaml"), []byte(s.YAML(agent, bf)), 0o644); err != nil {
			return err
		}
		if s.DatasetFile != "" {
			if err := os.WriteFile(filepath.Join(scenDir, s.DatasetFile), []byte(s.Dataset), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// Describe is a readable account of a scenario for a failure report: its YAML (with a
// stand-in agent), dataset and behaviours.
func (s *Scenario) Describe() string {
	var b strings.Builder
	b.WriteString(s.YAML([]string{"AGENT"}, "BEHAVIOURS"))
	if s.Dataset != "" {
		fmt.Fprintf(&b, "--- %s\n%s", s.DatasetFile, s.Dataset)
	}
	show := func(name string, bh Behaviour) {
		fmt.Fprintf(&b, "--- behaviour %s: exit %d, no file %v, stdout %s, stderr %q\n%s", name, bh.Exit, bh.NoFile,
			clipText(fmt.Sprintf("%q", bh.Stdout)), bh.Stderr, clipText(bh.Spans))
	}
	for _, tag := range slices.Sorted(maps.Keys(s.behaviours.ByTag)) {
		show("#r"+tag+"#", s.behaviours.ByTag[tag])
	}
	show("default", s.behaviours.Default)
	return b.String()
}

func clipText(s string) string {
	if len(s) > 3000 {
		return s[:3000] + fmt.Sprintf("… (%d bytes)\n", len(s))
	}
	return s
}
