package kensa

import (
	"fmt"
	"path/filepath"
	"strings"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrRunIDTwice: two run manifests of one .kensa directory carry the same run id.
var ErrRunIDTwice = errclass.New(errclass.Input, "kensa: import: a run id named by two run manifests")

// claimed reports whether the eval manifest mp (being read, m its header) carries the run id
// of a manifest read before it, and if so counts the run it holds against it, in a problem
// naming both manifests and both results files.
//
// A run id names one run: Kensa writes runs/<run_id>.json and results/<run_id>.json, one of
// each, and every bundle records it. Two manifests with one run id (a copy renamed, a
// directory merged from two machines) would give two bundles of "the same run" whose results
// may disagree (one pass, one fail), and which one a reader meets would depend on the order it
// reads them. The manifest read first (runs/ in name order, which is Kensa's order for its own
// run ids, timestamps) is imported; the other is refused, and the import is partial (exit
// status 4). See docs/decisions.md, "A run id in two manifests".
func (l *loader) claimed(m *fkensa.RunManifest, mp string) bool {
	if m.Kind != "eval" {
		return false
	}
	if l.runIDs == nil {
		l.runIDs, l.conflicts = map[string]string{}, map[string]*Problem{}
	}
	first, ok := l.runIDs[m.RunID]
	if !ok {
		l.runIDs[m.RunID] = mp
		return false
	}
	if first == mp {
		return false
	}
	pr := l.conflicts[mp]
	if pr == nil {
		pr = &Problem{File: mp, Err: fmt.Errorf("%w: run id %s is that of %s too, read first (its results: %s); "+
			"this manifest and its results (%s) are not imported", ErrRunIDTwice, m.RunID, first,
			l.resultsPath(first), l.resultsPath(mp))}
		l.conflicts[mp] = pr
		l.plan.Problems = append(l.plan.Problems, pr)
	}
	pr.Runs++
	return true
}

// refused reports whether manifest mp was refused by claimed.
func (l *loader) refused(mp string) bool { return l.conflicts[mp] != nil }

// resultsPath is the results file of manifest mp, as the import looks for it (by the
// manifest's name).
func (l *loader) resultsPath(mp string) string {
	return filepath.Join(l.root, "results", strings.TrimSuffix(filepath.Base(mp), ".json")+".json")
}
