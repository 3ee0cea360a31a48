package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/kensastats"
	"github.com/oasis-replay/oasis-replay/store"
)

// kensaStatsSelectHelp is what kensa stats --help says of the runs it counts.
const kensaStatsSelectHelp = "Which runs count: --run ID keeps the runs of a run id (one kensa run invocation: its --run-id,\n" +
	"or the id it made from its start time; for imported runs, Kensa's run id), --tag T the runs\n" +
	"kensa run --tag T recorded, --since TIME those recorded at or after TIME (RFC 3339, or a\n" +
	"duration such as 24h or 90m back from now; a run with no recorded time is left out); --run\n" +
	"and --tag repeat, and the filters combine. When a scenario's definition changed (its files,\n" +
	"dataset, judge spec or prices), only the runs of its latest definition count — the\n" +
	"definition of its run recorded last — unless --all-definitions. The report's first line\n" +
	"says how many runs it counts and by which filter, the next lines which definitions were left\n" +
	"out, and each scenario lists its runs with the first cause of each one not passing (the\n" +
	"JSON: \"selection\")."

func kensaStatsSelectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "run", Usage: "count only the runs of run id `ID` (repeatable)"},
		&cli.StringSliceFlag{Name: "tag", Usage: "count only the runs kensa run --tag `T` recorded (repeatable)"},
		&cli.StringFlag{Name: "since", Usage: "count only the runs recorded at or after `TIME` (RFC 3339, or a duration back from now: 24h)"},
		&cli.BoolFlag{Name: "all-definitions", Usage: "count the runs of every definition of a scenario, not only its latest"},
	}
}

// kensaStatsReport replays the runs kensa stats counts and makes its report.
func kensaStatsReport(c *cli.Context, s store.Store) (*kensastats.Report, error) {
	f, err := kensaStatsFilter(c, time.Now())
	if err != nil {
		return nil, err
	}
	runs, sel, err := kensastats.GatherSelected(c.Context, s, f)
	if err != nil {
		return nil, err
	}
	return kensastats.ComputeSelected(runs, sel), nil
}

// kensaStatsFilter reads the filter flags. The clock (now) only places --since DURATION in
// time: it decides which runs are counted, never a verdict or a digest.
func kensaStatsFilter(c *cli.Context, now time.Time) (kensastats.Filter, error) {
	f := kensastats.Filter{RunIDs: c.StringSlice("run"), Tags: c.StringSlice("tag"), Scenarios: c.Args().Slice(),
		AllDefinitions: c.Bool("all-definitions")}
	if v := c.String("since"); v != "" {
		since, ok := parseSince(v, now)
		if !ok {
			return f, argsError(c, "--since %q: want an RFC 3339 time (2026-11-28T09:00:00Z) or a positive duration (24h, 90m)", v)
		}
		f.Since, f.SinceText = since, v
	}
	return f, nil
}

// parseSince is the time --since names: an RFC 3339 time, or a positive duration back from now.
func parseSince(v string, now time.Time) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return time.Time{}, false
	}
	return now.Add(-d), true
}
