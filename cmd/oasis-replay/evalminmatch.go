package main

import (
	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
)

// minMatchFlag is --min-match of the commands that print the heatmap (eval matrix, eval report).
func minMatchFlag() cli.Flag {
	return &cli.StringFlag{Name: "min-match", Value: evallib.DefaultMinMatch,
		Usage: "flag (✗) the cells whose match rate is below `RATE`, from 0 (none) to 1, however small their shift"}
}

// evalMinMatch reads --min-match before anything runs: a bad value is bad usage, not a matrix
// whose report cannot be drawn.
func evalMinMatch(c *cli.Context) (evalmetric.Ratio, error) {
	return evallib.ParseMinMatch(c.String("min-match"))
}

// evalMinMatchHelp says, in eval matrix's and eval report's --help, how a cell with a low match
// rate is shown.
const evalMinMatchHelp = "Each cell also shows its match rate: \"✗\" after a cell whose match rate is below --min-match\n" +
	"(default " + evallib.DefaultMinMatch + "; baseline cells included), in the terminal and in the match-rate grid; in the\n" +
	"HTML page a bar under each cell, filled to its match rate, outlined in red with \"✗\" when below.\n" +
	"Such cells are listed and counted after the flagged ones, and marked below_min_match in JSON\n" +
	"and CSV: the colour says how far the answers moved from the baseline's, not whether they are\n" +
	"right, so a cell whose every answer is wrong, alike, is green.\n\n"
