package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalScenarioCommand() *cli.Command {
	return &cli.Command{
		Name:        "scenario",
		Usage:       "add, list and show the scenarios of the Eval Library, or draft scenarios from telemetry",
		Description: groupExitStatus,
		Subcommands: []*cli.Command{
			evalScenarioAddCommand(),
			evalScenarioLsCommand(),
			evalScenarioShowCommand(),
			evalScenarioGenerateCommand(),
		},
	}
}

func evalScenarioAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "validate scenario files (JSON or YAML) and store each as a new version of its id",
		ArgsUsage: "FILE...",
		Description: "Each FILE holds one scenario: name, description, risk_level (low, medium, high or critical),\n" +
			"input_context (an object), expected_behavior (a non-empty object) and optionally id (else\n" +
			"scn_ and 20 hex digits derived from the canonical content), source and confidence. Every file\n" +
			"is validated before anything is stored; an error names the file, line and column.\n" +
			"Content equal to the latest version of its id adds nothing.\n\n" +
			"Exit status: 0 every scenario stored (or already current); 2 bad usage or an invalid file.",
		Action: func(c *cli.Context) error {
			type input struct {
				name string
				data []byte
				s    *evalfmt.Scenario
			}
			var inputs []input
			for _, name := range c.Args().Slice() {
				b, err := readInput(name, evalfmt.ScenarioLimits)
				if err != nil {
					return err
				}
				s, err := evalfmt.ParseScenario(name, b)
				if err != nil {
					return err
				}
				inputs = append(inputs, input{name, b, s})
			}
			return withStore(c, readWrite, func(s store.Store) error {
				for _, in := range inputs {
					added, err := evallib.AddScenario(c.Context, s, in.s, in.name, in.data)
					if err != nil {
						return err
					}
					state := "added"
					if !added.Created {
						state = "unchanged"
					}
					fmt.Fprintf(c.App.Writer, "%s  %s version %d  %s (%s)\n", state, added.ID, added.Version, in.s.Name, in.name)
				}
				return nil
			})
		},
	}
}

func evalScenarioLsCommand() *cli.Command {
	return &cli.Command{
		Name:        "ls",
		Usage:       "list the scenarios (their latest versions)",
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"}},
		Description: "Exit status: 0 listed; 2 bad usage or an unreadable store.",
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				list, err := evallib.ListScenarios(c.Context, s)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeCanonical(c.App.Writer, scenarioListJSON(list))
				}
				if len(list) == 0 {
					noneYet(c, "scenarios", "eval scenario add FILE adds one")
				}
				for _, v := range list {
					fmt.Fprintf(c.App.Writer, "%-28s v%-3d %-8s  %s\n", v.ID, v.Version, v.RiskLevel, v.Name)
				}
				return nil
			})
		},
	}
}

type scenarioListEntry struct {
	ID        string       `json:"id"`
	Version   int          `json:"version"`
	Name      string       `json:"name"`
	RiskLevel string       `json:"risk_level"`
	Content   store.Digest `json:"content"`
}

func scenarioListJSON(list []*store.EvalScenario) []scenarioListEntry {
	out := make([]scenarioListEntry, 0, len(list))
	for _, v := range list {
		out = append(out, scenarioListEntry{ID: v.ID, Version: v.Version, Name: v.Name, RiskLevel: v.RiskLevel, Content: v.Content.Digest})
	}
	return out
}

func evalScenarioShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a scenario (its canonical JSON) and its versions",
		ArgsUsage: "ID",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "version", Usage: "show version `N` instead of the latest"},
			&cli.BoolFlag{Name: "json", Usage: "print only the scenario's canonical JSON"},
		},
		Description: "Exit status: 0 shown; 2 bad usage or unknown scenario.",
		Action: func(c *cli.Context) error {
			id := c.Args().First()
			return withStore(c, readOnly, func(s store.Store) error {
				var v *evallib.ScenarioVersion
				var err error
				if n := c.Int("version"); n > 0 {
					v, err = evallib.LoadScenarioVersion(c.Context, s, id, n)
				} else {
					v, err = evallib.LoadScenario(c.Context, s, id)
				}
				if err != nil {
					return err
				}
				if c.Bool("json") {
					_, err := fmt.Fprintf(c.App.Writer, "%s\n", v.Scenario.Canonical)
					return err
				}
				history, err := evallib.ScenarioHistory(c.Context, s, id)
				if err != nil {
					return err
				}
				return writeScenario(c, v, history)
			})
		},
	}
}

func writeScenario(c *cli.Context, v *evallib.ScenarioVersion, history []evallib.ScenarioVersion) error {
	w := c.App.Writer
	fmt.Fprintf(w, "%s version %d: %s\n", v.Version.ID, v.Version.Version, v.Scenario.Name)
	fmt.Fprintf(w, "risk level   %s\n", v.Scenario.RiskLevel)
	fmt.Fprintf(w, "description  %s\n", v.Scenario.Description)
	if v.Scenario.Source != "" {
		fmt.Fprintf(w, "source       %s (confidence %s)\n", v.Scenario.Source, v.Scenario.Confidence)
	}
	fmt.Fprintf(w, "content      %s\n", v.Version.Content.Digest)
	if v.Version.Source != nil {
		fmt.Fprintf(w, "added from   %s (%s)\n", v.Version.Source.Path, v.Version.Source.Blob.Digest.Short())
	}
	fmt.Fprintf(w, "input        %s\n", v.Scenario.InputContext.Compact())
	fmt.Fprintf(w, "expected     %s\n", v.Scenario.ExpectedBehavior.Compact())
	fmt.Fprintf(w, "versions:\n")
	for _, h := range history {
		fmt.Fprintf(w, "  v%d  %s  content %s\n", h.Version.Version, h.Object.Short(), h.Version.Content.Digest.Short())
	}
	return nil
}
