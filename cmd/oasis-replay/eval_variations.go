package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalVariationsCommand() *cli.Command {
	return &cli.Command{
		Name:  "variations",
		Usage: "list the variation catalogue: the built-in variations and those of --variations files",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "variations", Usage: "a catalogue `FILE` extending or overriding the built-in variations (repeatable)"},
			&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"},
		},
		Description: "Every run pins the exact entry it used by the digest shown here.\n\n" +
			"Exit status: 0 listed; 2 bad usage or an invalid catalogue file.",
		Action: func(c *cli.Context) error {
			cat, err := evalCatalogue(c)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				type entry struct {
					ID     string       `json:"id"`
					Name   string       `json:"name"`
					Tests  string       `json:"tests"`
					Kind   string       `json:"kind"`
					Text   string       `json:"text"`
					Factor int          `json:"factor,omitempty"`
					Origin string       `json:"origin"`
					Digest store.Digest `json:"digest"`
				}
				var out []entry
				for _, v := range cat.All() {
					out = append(out, entry{v.ID, v.Name, v.Tests, v.Kind, v.Text, v.Factor, v.Origin, v.Digest()})
				}
				return writeCanonical(c.App.Writer, out)
			}
			for _, v := range cat.All() {
				fmt.Fprintf(c.App.Writer, "%-28s %-13s %s  %s\n", v.ID, v.Kind, v.Digest().Short(), v.Name)
				switch v.Kind {
				case evalfmt.KindNoise:
					fmt.Fprintf(c.App.Writer, "    %q, then irrelevant context %d× the input's size\n", v.Text, v.Factor)
				case evalfmt.KindContradiction:
					fmt.Fprintf(c.App.Writer, "    %q, then one instruction against each expected value\n", v.Text)
				default:
					fmt.Fprintf(c.App.Writer, "    %q\n", v.Text)
				}
			}
			return nil
		},
	}
}
