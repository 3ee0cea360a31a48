package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// input is a path a command reads, named in messages by its flag or argument.
type input struct {
	name   string // "--audit-log", "DIR"
	path   string
	expect inputfile.Expect
}

// flagInput is the input a flag names ("" when the flag is not given).
func flagInput(c *cli.Context, flag string, expect inputfile.Expect) input {
	return input{name: "--" + flag, path: c.String(flag), expect: expect}
}

// argInput is the first positional argument, named name in messages.
func argInput(c *cli.Context, name string, expect inputfile.Expect) input {
	return input{name: name, path: c.Args().First(), expect: expect}
}

// checkInputs checks, before the store is opened, that every input given exists and is what
// the command reads: a regular file, a directory, or either. A named pipe, a device or a
// socket would hang the command, with the store locked (see package inputfile); the readers
// check again on the open descriptor, but a command should not lock the store only to refuse
// its input.
func checkInputs(inputs ...input) error {
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		if err := inputfile.Check(in.path, in.expect); err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
	}
	return nil
}
