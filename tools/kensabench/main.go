// Command kensabench writes the data of the Kensa benchmarks (scripts/bench-kensa.sh): a
// project whose .kensa directory holds many recorded runs of the scripted agent
// (internal/kensaagent), in the files Kensa v0.7.0 writes — scenarios, one run manifest, and a
// trace in Kensa's span model per run — so that real Kensa's judge and oasis-replay's import,
// replay and stats read the same runs. The output depends on its arguments only.
//
//	kensabench -scenarios DIR -runs N -o PROJECT
//
// Runs cycle over the cases of the scenarios in DIR (a dataset row is a case), in file order;
// each has its own trace (span ids and times differ), so no two runs share evidence.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/formats/otlp"
	"github.com/oasis-replay/oasis-replay/internal/kensaagent"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kensabench:", err)
		os.Exit(1)
	}
}

// runID names the one run manifest; startNanos is the first run's start (2026-11-24T22:20:03Z).
const (
	runID      = "20261124T222003000"
	startNanos = 1795558803_000_000_000
)

// testCase is one scenario with one dataset row (or none).
type testCase struct {
	sc  *fkensa.Scenario
	row *fkensa.Row
}

func run() error {
	scenarios := flag.String("scenarios", "", "scenarios directory to copy (`DIR`)")
	runs := flag.Int("runs", 10000, "number of recorded runs")
	out := flag.String("o", "", "project directory to write (`PROJECT`); its .kensa is replaced")
	flag.Parse()
	if *scenarios == "" || *out == "" || *runs < 1 {
		return errors.New("usage: kensabench -scenarios DIR -runs N -o PROJECT")
	}
	kensa := filepath.Join(*out, ".kensa")
	if err := os.RemoveAll(kensa); err != nil {
		return err
	}
	for _, sub := range []string{"scenarios", "traces", "runs"} {
		if err := os.MkdirAll(filepath.Join(kensa, sub), 0o755); err != nil {
			return err
		}
	}
	cases, err := copyScenarios(*scenarios, filepath.Join(kensa, "scenarios"))
	if err != nil {
		return err
	}
	var order []string
	perScenario := map[string][]pyvalue.Value{}
	for i := range *runs {
		c := cases[i%len(cases)]
		id := c.sc.ID
		if _, seen := perScenario[id]; !seen {
			order = append(order, id)
		}
		r, err := writeRun(kensa, i, c)
		if err != nil {
			return err
		}
		perScenario[id] = append(perScenario[id], r)
	}
	vals := make([]pyvalue.Value, len(order))
	for i, id := range order {
		vals[i] = pyvalue.NewList(perScenario[id])
	}
	manifest := pyvalue.NewDict([]string{"run_id", "timestamp", "kind", "scenarios"}, []pyvalue.Value{
		pyvalue.NewStr(runID), pyvalue.NewStr("2026-11-24T22:20:03.000000Z"), pyvalue.NewStr("eval"), pyvalue.NewDict(order, vals)})
	return os.WriteFile(filepath.Join(kensa, "runs", runID+".json"), []byte(pyvalue.Dumps(manifest)+"\n"), 0o644)
}

// copyScenarios copies the scenario files and datasets of src and lists their cases.
func copyScenarios(src, dst string) ([]testCase, error) {
	files, err := rkensa.ScenarioFiles(src)
	if err != nil {
		return nil, err
	}
	var cases []testCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc, err := fkensa.ParseScenario(f, data)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
			return nil, err
		}
		if sc.Dataset == "" {
			cases = append(cases, testCase{sc: sc})
			continue
		}
		ds, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(sc.Dataset)))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dst, path.Base(sc.Dataset)), ds, 0o644); err != nil {
			return nil, err
		}
		rows, err := fkensa.ReadDataset(sc.Dataset, ds, sc.InputField)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			cases = append(cases, testCase{sc: sc, row: &rows[i]})
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no scenarios in %s", src)
	}
	return cases, nil
}

// writeRun writes run i's trace as Kensa stores it and returns its entry of the run manifest.
func writeRun(kensa string, i int, c testCase) (pyvalue.Value, error) {
	input := c.sc.Input
	if c.row != nil {
		input, _ = c.row.Value.Get(c.sc.InputField)
	}
	request, _ := input.AsStr()
	start := int64(startNanos + i*1_000_000_000)
	lines, answer := kensaagent.ExporterLines(request, i%2 == 1, start, uint64(i)+1)
	spans, err := otlp.ReadJSONL("spans.jsonl", lines)
	if err != nil {
		return pyvalue.Value{}, err
	}
	tracePath := fmt.Sprintf(".kensa/traces/%s_%d.jsonl", c.sc.ID, start/1_000_000)
	trace := fkensa.WriteTrace(rkensa.ToKensa(spans, nil))
	if err := os.WriteFile(filepath.Join(filepath.Dir(kensa), filepath.FromSlash(tracePath)), trace, 0o644); err != nil {
		return pyvalue.Value{}, err
	}
	keys := []string{"trace_path", "exit_code", "duration_seconds", "stdout", "stderr", "input"}
	vals := []pyvalue.Value{pyvalue.NewStr(tracePath), pyvalue.NewInt(0), pyvalue.NewFloat(0.08), pyvalue.NewStr(answer), pyvalue.NewStr(""), input}
	if c.row != nil {
		keys, vals = append(keys, "dataset_row"), append(vals, c.row.Value)
	}
	return pyvalue.NewDict(keys, vals), nil
}
