package kensa

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrRunIDTwice: two run manifests of one .kensa directory carry the same run id.
var ErrRunIDTwice = errclass.New(errclass.Input, "kensa: import: a run id named by two run manifests")

// claimed reports whether the eval manifest mp (being read, m its header) carries the run id
// of another manifest that takes precedence, and if so counts the run it holds against it, in a
// problem naming both manifests and both results files.
//
// A run id names one run: Kensa writes runs/<run_id>.json and results/<run_id>.json, one of
// each, and every bundle records it. Two manifests with one run id (a copy renamed, a
// directory merged from two machines) would give two bundles of "the same run" whose results
// may disagree (one pass, one fail), and which one a reader meets would depend on the order it
// reads them. The manifest named by its run id (Kensa's own) is imported, whatever the order;
// of two others, the first in name order. The other is refused, and the import is partial
// (exit status 4). See docs/decisions.md, "A run id in two manifests".
func (l *loader) claimed(m *fkensa.RunManifest, mp string) bool {
	if m.Kind != "eval" {
		return false
	}
	if l.runIDs == nil {
		l.runIDs, l.conflicts = map[string]string{}, map[string]*Problem{}
	}
	if pr := l.conflicts[mp]; pr != nil {
		pr.Runs++
		return true
	}
	first, ok := l.runIDs[m.RunID]
	switch {
	case ok && first == mp:
		return false
	case !ok && l.ownName(mp, m.RunID):
		l.runIDs[m.RunID] = mp
		return false
	case !ok:
		// Kensa's own manifest of this run id, runs/<run id>.json, comes first when it exists
		// (m.RunID is a valid run id: a file name).
		own := filepath.Join(filepath.Dir(mp), m.RunID+".json")
		if _, err := fs.Stat(l.in.FS(), "runs/"+m.RunID+".json"); err != nil {
			l.runIDs[m.RunID] = mp
			return false
		}
		first = own
	}
	pr := &Problem{File: mp, Runs: 1, Err: fmt.Errorf("%w: run id %s is that of %s too (its results: %s); "+
		"this manifest and its results (%s) are not imported", ErrRunIDTwice, m.RunID, first,
		l.resultsPath(first), l.resultsPath(mp))}
	l.conflicts[mp] = pr
	l.plan.Problems = append(l.plan.Problems, pr)
	return true
}

// ownName reports whether manifest mp is named by its run id, as Kensa names it.
func (l *loader) ownName(mp, runID string) bool {
	return strings.TrimSuffix(filepath.Base(mp), ".json") == runID
}

// refused reports whether manifest mp was refused by claimed.
func (l *loader) refused(mp string) bool { return l.conflicts[mp] != nil }

// resultsPath is the results file of manifest mp, as the import looks for it (by the
// manifest's name).
func (l *loader) resultsPath(mp string) string {
	return filepath.Join(l.root, "results", strings.TrimSuffix(filepath.Base(mp), ".json")+".json")
}
