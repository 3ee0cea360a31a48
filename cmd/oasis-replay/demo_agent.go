package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/demo"
	"github.com/oasis-replay/oasis-replay/internal/kensaagent"
)

// demoAgentCommand is the program acting as the demo's scripted agents: `demo-agent -- kensa
// ARGS…` is the Kensa support agent of package internal/kensaagent (its flags, the request
// last; "--" keeps them from being read as this program's), `demo-agent eval` the Eval Library agent of package demo (a request on stdin, the
// answer on stdout). Hidden: it is the demo's, not a command to use.
func demoAgentCommand() *cli.Command {
	return &cli.Command{
		Name:            "demo-agent",
		Usage:           "the scripted agents of the demo (kensa or eval); the demo runs them",
		ArgsUsage:       "kensa|eval [ARG…]",
		Hidden:          true,
		SkipFlagParsing: true,
		Description:     "Exit status: 0 answered; 2 bad usage or a request it cannot read; 3 the Kensa agent failed.",
		Action: func(c *cli.Context) error {
			// The demo writes "--" first, so that the agent's flags stay where they are.
			args := c.Args().Slice()
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			switch {
			case len(args) == 1 && (args[0] == "--help" || args[0] == "-h"):
				return cli.ShowSubcommandHelp(c)
			case len(args) > 0 && args[0] == "kensa":
				if status := kensaagent.Main(args[1:], c.App.Reader, c.App.Writer, c.App.ErrWriter); status != 0 {
					return reported{status: status}
				}
				return nil
			case len(args) == 1 && args[0] == "eval":
				request, err := io.ReadAll(c.App.Reader)
				if err != nil {
					return err
				}
				answer, err := demo.EvalAnswer(request)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadUsage, err)
				}
				_, err = fmt.Fprintf(c.App.Writer, "%s\n", answer)
				return err
			}
			return argsError(c, "want kensa ARG… or eval")
		},
	}
}
