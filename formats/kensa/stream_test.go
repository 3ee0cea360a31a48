package kensa

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// manifestOf is a run manifest of n runs of one scenario, as Kensa writes one.
func manifestOf(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"run_id": "r1", "timestamp": "2026-11-24T22:20:03.074397Z", "kind": "eval", "scenarios": {"s": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"trace_path": ".kensa/traces/s_%d.jsonl", "exit_code": 0, "duration_seconds": 0.14, "stdout": "ok", "stderr": "", "input": "q %d", "dataset_row": {"q": %d}}`, i, i, i)
	}
	b.WriteString("]}}")
	return b.Bytes()
}

// A manifest of 100,000 runs is past the document model's limits as one document, and read
// run by run; every run is the one ParseRunManifest reads from a small manifest.
func TestStreamRunManifest(t *testing.T) {
	big := manifestOf(100_000)
	if _, err := ParseRunManifest("big.json", big); err == nil {
		t.Log("the document model now reads 100,000 runs as one document")
	}
	n := 0
	m, err := StreamRunManifest("big.json", bytes.NewReader(big), func(m *RunManifest, id string, run ScenarioRun) error {
		if id != "s" || run.TracePath != fmt.Sprintf(".kensa/traces/s_%d.jsonl", n) || m.RunID != "r1" {
			return fmt.Errorf("run %d: %s %+v", n, id, run)
		}
		n++
		return nil
	})
	if err != nil || n != 100_000 || m.Timestamp != "2026-11-24T22:20:03.074397Z" {
		t.Fatalf("%d runs, %v", n, err)
	}

	small := manifestOf(3)
	want, err := ParseRunManifest("small.json", small)
	if err != nil {
		t.Fatal(err)
	}
	var got []ScenarioRun
	if _, err := StreamRunManifest("small.json", bytes.NewReader(small), func(_ *RunManifest, _ string, run ScenarioRun) error {
		got = append(got, run)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, run := range want.Scenarios[0].Runs {
		if !run.Raw.Equal(got[i].Raw) || run.TracePath != got[i].TracePath || run.ExitCode != got[i].ExitCode {
			t.Errorf("run %d: %+v, want %+v", i, got[i], run)
		}
	}

	for name, doc := range map[string]string{
		"runs before the run id":  `{"scenarios": {"s": []}, "run_id": "r1", "timestamp": "t"}`,
		"a run without exit_code": `{"run_id": "r1", "timestamp": "t", "scenarios": {"s": [{"trace_path": ""}]}}`,
		"not an object":           `[]`,
		"cut short":               `{"run_id": "r1", "timestamp": "t", "scenarios": {"s": [{"trace_path": "", "exit_code": 0}`,
		"a bad run id":            `{"run_id": "../x", "timestamp": "t", "scenarios": {}}`,
	} {
		if _, err := StreamRunManifest("m.json", strings.NewReader(doc), func(*RunManifest, string, ScenarioRun) error { return nil }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Results are read one at a time as ParseResults reads them all.
func TestResultStream(t *testing.T) {
	data := []byte(`[{"scenario_id": "a", "status": "pass", "check_results": []}, {"scenario_id": "b", "status": "fail"}]`)
	want, err := ParseResults("r.json", data)
	if err != nil {
		t.Fatal(err)
	}
	s := NewResultStream("r.json", bytes.NewReader(data))
	for i := 0; ; i++ {
		r, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			if i != len(want) {
				t.Fatalf("%d results, want %d", i, len(want))
			}
			break
		}
		if !bytes.Equal(r.Text, want[i].Text) {
			t.Errorf("result %d: %s, want %s", i, r.Text, want[i].Text)
		}
	}
	if _, err := NewResultStream("r.json", strings.NewReader(`[{"status": "pass"}]`)).Next(); err == nil {
		t.Error("a result without scenario_id: no error")
	}
}
