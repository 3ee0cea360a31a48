package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalReviewCommand() *cli.Command {
	return &cli.Command{
		Name:  "review",
		Usage: "the review queue of flagged cells: list, acknowledge, resolve",
		Description: "A matrix opens a review item for every flagged cell (a variation cell whose shift magnitude\n" +
			"is above the threshold of its scenario's risk level). An item goes open → acknowledged →\n" +
			"resolved (or open → resolved), each change with a note and who made it; every state is kept.\n\n" +
			groupExitStatus,
		Subcommands: []*cli.Command{
			{
				Name:  "ls",
				Usage: "list the review items (latest state of each)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "state", Usage: "only items in `STATE` (open, acknowledged, resolved)"},
					&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"},
				},
				Description: "Exit status: 0 listed; 2 bad usage or an unreadable store.",
				Action:      runEvalReviewLs,
			},
			{
				Name:        "show",
				Usage:       "print a review item and every state it went through",
				ArgsUsage:   "ITEM",
				Description: "Exit status: 0 shown; 2 bad usage or unknown item.",
				Action:      runEvalReviewShow,
			},
			reviewTransitionCommand("ack", store.EvalReviewAcknowledged, "acknowledge a review item: someone is looking at it"),
			reviewTransitionCommand("resolve", store.EvalReviewResolved, "resolve a review item, saying how in the note"),
		},
	}
}

func runEvalReviewLs(c *cli.Context) error {
	state := c.String("state")
	switch state {
	case "", store.EvalReviewOpen, store.EvalReviewAcknowledged, store.EvalReviewResolved:
	default:
		return argsError(c, "--state %q: want open, acknowledged or resolved", state)
	}
	return withStore(c, readOnly, func(s store.Store) error {
		items, err := evallib.Reviews(c.Context, s, state)
		if err != nil {
			return err
		}
		if c.Bool("json") {
			list := make([]*store.EvalReview, len(items))
			for i, it := range items {
				list[i] = it.EvalReview
			}
			return writeCanonical(c.App.Writer, list)
		}
		if len(items) == 0 {
			noneYet(c, "review items"+stateWord(state), "eval matrix opens one for each cell whose shift exceeds its threshold")
		}
		for _, it := range items {
			fmt.Fprintf(c.App.Writer, "%s  %-12s  %s / %s  shift %s > %s (%s)  matrix %s%s\n", it.Item, it.State,
				it.Scenario, it.Variation, it.Shift, it.Threshold, it.RiskLevel, it.Matrix.Digest.Short(), byNote(it.EvalReview))
		}
		return nil
	})
}

// stateWord is " in STATE" for a listing filtered by state, "" otherwise.
func stateWord(state string) string {
	if state == "" {
		return ""
	}
	return " in state " + state
}

func byNote(r *store.EvalReview) string {
	if r.By == "" {
		return ""
	}
	return fmt.Sprintf("  by %s: %s", r.By, r.Note)
}

func runEvalReviewShow(c *cli.Context) error {
	return withStore(c, readOnly, func(s store.Store) error {
		history, err := evallib.ReviewHistory(c.Context, s, c.Args().First())
		if err != nil {
			return err
		}
		cur := history[0]
		fmt.Fprintf(c.App.Writer, "%s: %s / %s (%s), shift magnitude %s above the threshold %s\nmatrix %s\n",
			cur.Item, cur.Scenario, cur.Variation, cur.RiskLevel, cur.Shift, cur.Threshold, cur.Matrix.Digest)
		for i := len(history) - 1; i >= 0; i-- {
			h := history[i]
			fmt.Fprintf(c.App.Writer, "  %d  %-12s  %s%s\n", h.Sequence, h.State, h.Object.Short(), byNote(h.EvalReview))
		}
		return nil
	})
}

func reviewTransitionCommand(name, state, usage string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "ITEM",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "note", Usage: "what was found or done (`TEXT`) (required)"},
			&cli.StringFlag{Name: "by", Value: os.Getenv("USER"), Usage: "who makes the change (`NAME`; default $USER) (required when $USER is unset)"},
		},
		Description: "Exit status: 0 changed; 2 bad usage, unknown item, or a change its state does not allow.",
		Action: func(c *cli.Context) error {
			// Both are checked here, together, so that one attempt names everything missing.
			var missing []string
			if c.String("note") == "" {
				missing = append(missing, "--note TEXT")
			}
			if c.String("by") == "" {
				missing = append(missing, "--by NAME ($USER is unset)")
			}
			if len(missing) > 0 {
				return usageErrorf(c, "missing required %s %s (see --help)", plural(len(missing), "flag", "flags"), strings.Join(missing, ", "))
			}
			return withStore(c, readWrite, func(s store.Store) error {
				it, err := evallib.Transition(c.Context, s, c.Args().First(), state, c.String("note"), c.String("by"))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s is %s (%s)\n", it.Item, it.State, it.Object.Short())
				return nil
			})
		},
	}
}
