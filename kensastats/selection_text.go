package kensastats

import (
	"fmt"
	"strings"
)

// Summary is one line saying which runs the report counts: how many of those recorded, and
// by which filter.
func (s *Selection) Summary() string {
	var by []string
	f := s.Filter
	if len(f.RunIDs) > 0 {
		by = append(by, "run "+strings.Join(f.RunIDs, ", "))
	}
	if len(f.Tags) > 0 {
		by = append(by, "tag "+strings.Join(f.Tags, ", "))
	}
	if f.Since != nil {
		by = append(by, "since "+*f.Since)
	}
	if len(f.Scenarios) > 0 {
		by = append(by, "scenario "+strings.Join(f.Scenarios, ", "))
	}
	switch {
	case f.AllDefinitions:
		by = append(by, "every definition")
	case len(s.Dropped) > 0:
		by = append(by, "the latest definition of each scenario")
	}
	if len(by) == 0 {
		by = append(by, "every run")
	}
	return fmt.Sprintf("counting %d of %d Kensa runs recorded (%s)", s.Counted, s.Recorded, strings.Join(by, "; "))
}

// NotCounted says, one line each, which runs a filter left out that a reader may expect: the
// runs of earlier definitions, and those --since cannot place in time.
func (s *Selection) NotCounted() []string { return s.notCounted() }

func (s *Selection) notCounted() []string {
	var out []string
	for _, d := range s.Dropped {
		out = append(out, fmt.Sprintf("not counted: %d %s of scenario %s under an earlier definition %s (latest %s; --all-definitions counts them)",
			d.Runs, plural(d.Runs, "run", "runs"), d.Scenario, d.Definition.Short(), d.Latest.Short()))
	}
	if s.Untimed > 0 {
		out = append(out, fmt.Sprintf("not counted: %d %s with no recorded time (--since)", s.Untimed, plural(s.Untimed, "run", "runs")))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// label names the run as flags do: its run id, with "#row" for a dataset row.
func (l Listed) label() string {
	if l.Case > 0 {
		return fmt.Sprintf("%s#%d", l.RunID, l.Case)
	}
	return l.RunID
}

// column is the run's line in a run list: run id, bundle, status and, for a run that did not
// pass, the first cause.
func (l Listed) column() string {
	s := fmt.Sprintf("%s %s %s", l.label(), l.Bundle.Short(), l.Status)
	if l.Reason != "" {
		s += "  " + l.Reason
	}
	return s
}
