package kensa

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/oasis-replay/oasis-replay/internal/doc"
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
	root, err := doc.ParseJSON(file, data, doc.Limits{})
	if err != nil {
		return nil, err
	}
	f, err := newFields(root, "a run manifest", nil, nil)
	if err != nil {
		return nil, err
	}
	m := &RunManifest{RunID: f.str("run_id", true), Timestamp: f.str("timestamp", true), Kind: "eval"}
	if k := f.optStr("kind"); k != nil {
		m.Kind = *k
	}
	if f.err == nil && !ValidRunID(m.RunID) {
		f.fail(root.Get("run_id"), "run_id", "%q is not a valid run id", m.RunID)
	}
	f.oneOf("kind", m.Kind, []string{"eval", "capture"}, "eval or capture")
	sc := f.sub("scenarios", "scenarios", nil)
	if f.err != nil || sc == nil {
		return m, f.err
	}
	for _, mem := range sc.obj.Members() {
		sr := ScenarioRuns{ScenarioID: mem.Key}
		if mem.Value.Kind() != doc.Array {
			return nil, invalid(mem.Value, "must be a list of runs, got %s", mem.Value.Kind().Article())
		}
		for _, run := range mem.Value.Items() {
			one, err := scenarioRun(run)
			if err != nil {
				return nil, err
			}
			sr.Runs = append(sr.Runs, one)
		}
		m.Scenarios = append(m.Scenarios, sr)
	}
	return m, nil
}

func scenarioRun(n *doc.Node) (ScenarioRun, error) {
	f, err := newFields(n, "a run", nil, nil)
	if err != nil {
		return ScenarioRun{}, err
	}
	run := ScenarioRun{TracePath: f.str("trace_path", true), ExitCode: f.int("exit_code"), DurationSeconds: f.float("duration_seconds")}
	run.Stdout, run.Stderr = f.str("stdout", false), f.str("stderr", false)
	run.Input, _ = f.value("input")
	row, rn := f.value("dataset_row")
	run.DatasetRow = row
	if !f.has("exit_code") {
		f.fail(nil, "exit_code", "missing (required)")
	}
	if k := row.Kind(); f.err == nil && k != pyvalue.KindNull && k != pyvalue.KindDict {
		f.fail(rn, "dataset_row", "must be an object or null, got %s", row.TypeName())
	}
	if f.err == nil {
		run.Raw, f.err = pyvalue.FromNode(n, nil)
	}
	return run, f.err
}

// RunStdout and RunStderr are what Kensa's runner keeps of a run's streams in its run record
// (stripped, the last RunStdoutRunes and RunStderrRunes characters), which its judge prompt
// and error messages read. Applied to what Kensa already kept, they change nothing.
func RunStdout(s string) string { return RunTail(s, RunStdoutRunes) }

// RunStderr: see RunStdout.
func RunStderr(s string) string { return RunTail(s, RunStderrRunes) }

// How many characters of a run's streams Kensa keeps (runner.run_scenario).
const (
	RunStdoutRunes = 2000
	RunStderrRunes = 500
)

// RunTail is s stripped (Python's str.strip: Unicode whitespace and U+001C–U+001F), then its
// last n characters.
func RunTail(s string, n int) string {
	return lastRunes(strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F }), n)
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}
