package kensa

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// RunManifest is a .kensa/runs/<run_id>.json file (Kensa's RunManifest) of kind "eval".
type RunManifest struct {
	RunID     string
	Timestamp string
	Kind      string
	// Scenarios lists each scenario's runs, in file order.
	Scenarios []ScenarioRuns
}

// ScenarioRuns are the runs of one scenario in a manifest: one per dataset row, else one.
type ScenarioRuns struct {
	ScenarioID string
	Runs       []ScenarioRun
}

// ScenarioRun is Kensa's ScenarioRun: how one execution went.
type ScenarioRun struct {
	TracePath       string
	ExitCode        int64
	DurationSeconds float64
	Stdout, Stderr  string
	Input           pyvalue.Value
	DatasetRow      pyvalue.Value // a dict, or None
	// Raw is the run's JSON object, for the bundle.
	Raw pyvalue.Value
}

// runIDPattern is Kensa's rule for run ids (utils._SAFE_RUN_ID).
var runIDPattern = regexp.MustCompile(`^[\w.-]+$`)

// ValidRunID reports whether id is a run id Kensa accepts.
func ValidRunID(id string) bool { return runIDPattern.MatchString(id) }

// ParseRunManifest reads a run manifest. Capture manifests (kind "capture") are read but hold
// no scenario runs.
func ParseRunManifest(file string, data []byte) (*RunManifest, error) {
	v, err := pyvalue.Parse(data)
	if err != nil {
		return nil, fileError(file, 0, "", "%v", err)
	}
	if v.Kind() != pyvalue.KindDict {
		return nil, fileError(file, 0, "", "a run manifest is a JSON object")
	}
	r := fieldReader{v: v}
	m := &RunManifest{RunID: r.str("run_id", true), Timestamp: r.str("timestamp", true), Kind: "eval"}
	if k := r.optStr("kind"); k != nil {
		m.Kind = *k
	}
	if r.err != nil {
		return nil, fileError(file, 0, "", "%v", r.err)
	}
	if !ValidRunID(m.RunID) {
		return nil, fileError(file, 0, "run_id", "%q is not a valid run id", m.RunID)
	}
	if !slices.Contains([]string{"eval", "capture"}, m.Kind) {
		return nil, fileError(file, 0, "kind", "%q is not eval or capture", m.Kind)
	}
	sc, _ := v.Get("scenarios")
	if sc.IsNull() {
		return m, nil
	}
	if sc.Kind() != pyvalue.KindDict {
		return nil, fileError(file, 0, "scenarios", "must be an object")
	}
	var perr error
	sc.Members(func(id string, runs pyvalue.Value) {
		if perr != nil {
			return
		}
		sr := ScenarioRuns{ScenarioID: id}
		if runs.Kind() != pyvalue.KindList {
			perr = fileError(file, 0, "scenarios."+id, "must be a list of runs")
			return
		}
		for i, run := range runs.Items() {
			one, err := scenarioRun(run)
			if err != nil {
				perr = fileError(file, 0, fmt.Sprintf("scenarios.%s[%d]", id, i), "%v", err)
				return
			}
			sr.Runs = append(sr.Runs, one)
		}
		m.Scenarios = append(m.Scenarios, sr)
	})
	return m, perr
}

func scenarioRun(v pyvalue.Value) (ScenarioRun, error) {
	if v.Kind() != pyvalue.KindDict {
		return ScenarioRun{}, fmt.Errorf("a run is a JSON object")
	}
	r := fieldReader{v: v}
	run := ScenarioRun{Raw: v, TracePath: r.str("trace_path", true), ExitCode: r.int("exit_code"), DurationSeconds: r.float("duration_seconds")}
	run.Stdout, run.Stderr = r.str("stdout", false), r.str("stderr", false)
	run.Input, _ = v.Get("input")
	run.DatasetRow, _ = v.Get("dataset_row")
	if _, ok := v.Get("exit_code"); !ok {
		r.fail("exit_code", "missing")
	}
	if k := run.DatasetRow.Kind(); k != pyvalue.KindNull && k != pyvalue.KindDict {
		r.fail("dataset_row", "must be an object or null")
	}
	return run, r.err
}

// RunStdout and RunStderr are what Kensa's runner keeps of a run's streams in its run record
// (stripped, the last 2000 and 500 characters), which its judge prompt and error messages
// read. Applied to what Kensa already kept, they change nothing.
func RunStdout(s string) string { return lastRunes(strings.TrimSpace(s), 2000) }

// RunStderr: see RunStdout.
func RunStderr(s string) string { return lastRunes(strings.TrimSpace(s), 500) }

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}
