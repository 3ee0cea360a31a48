package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// didYouMean returns ` (did you mean "NAME"?)` for the candidate closest to a mistyped name,
// or "" when none is close (closest).
func didYouMean(typed string, candidates []string) string {
	if best := closest(typed, candidates); best != "" {
		return ` (did you mean "` + best + `"?)`
	}
	return ""
}

// closest is the candidate nearest to typed: within an edit distance of a third of its length
// (at least one), or one that starts with what was typed; "" when none is. The first of equals
// wins, so the answer follows the order of the candidates, not chance. urfave/cli's own
// suggestions (App.Suggest) are not reached — the program reports unknown commands itself
// (runGroup) and turns flag errors into bad usage (usageError) — and would name the nearest
// candidate however far it is.
func closest(typed string, candidates []string) string {
	best, bestDist := "", max(1, len(typed)/3)+1
	for _, c := range candidates {
		d := editDistance(typed, c)
		if len(typed) >= 2 && strings.HasPrefix(c, typed) {
			d = 0
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance of a and b, in bytes (names are
// ASCII): insertions, deletions, substitutions and swaps of neighbours ("stroe") cost one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// commandNames are the names and aliases of the visible commands of cmds.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return names
}

// flagSuggestion is the did-you-mean of an undefined-flag error ("flag provided but not
// defined: -stroe"), from the flags of the command and of the program; "" for other errors.
func flagSuggestion(c *cli.Context, err error) string {
	_, typed, ok := strings.Cut(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	typed = strings.TrimLeft(typed, "-")
	var names []string
	for _, flags := range [][]cli.Flag{commandFlagsOf(c), c.App.Flags} {
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
	}
	name := closest(typed, names)
	if name == "" {
		return ""
	}
	dash := "--"
	if len(name) == 1 {
		dash = "-"
	}
	return ` (did you mean "` + dash + name + `"?)`
}

func commandFlagsOf(c *cli.Context) []cli.Flag {
	if c.Command == nil {
		return nil
	}
	return c.Command.Flags
}
