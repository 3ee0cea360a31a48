package kensadiff

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// kensaTool is real Kensa: the real-kensa script and the Python path its statistics need.
type kensaTool struct {
	script     string
	pythonPath string
}

// realKensa finds real Kensa, or skips t saying what is missing.
func realKensa(t *testing.T) *kensaTool {
	t.Helper()
	script := sharedtest.Path(t, "tools", "real-kensa")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("real Kensa cannot run: no python3 (%v)", err)
	}
	for _, mod := range []string{"pydantic", "click", "yaml"} {
		if out, err := exec.Command("python3", "-c", "import "+mod).CombinedOutput(); err != nil {
			t.Skipf("real Kensa cannot run: python3 lacks %s (%v: %s)", mod, err, strings.TrimSpace(string(out)))
		}
	}
	if out, err := exec.Command("python3", "-c", "import pydantic, sys; sys.exit(0 if pydantic.VERSION >= '2' else 1)").CombinedOutput(); err != nil {
		t.Skipf("real Kensa cannot run: python3's pydantic is older than 2, which Kensa v0.7.0 needs (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	third := filepath.Join(filepath.Dir(filepath.Dir(script)), "third_party")
	kensaSrc, otelSrc := os.Getenv("KENSA_SRC"), os.Getenv("OTEL_SRC")
	if kensaSrc == "" {
		kensaSrc = filepath.Join(third, "kensa-v0.7.0")
	}
	if otelSrc == "" {
		otelSrc = filepath.Join(third, "opentelemetry-python")
	}
	for _, d := range []string{filepath.Join(kensaSrc, "src", "kensa"), filepath.Join(otelSrc, "opentelemetry-sdk", "src")} {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("real Kensa cannot run: %v (set KENSA_SRC and OTEL_SRC, or place the sources in the shared third_party)", err)
		}
	}
	path := []string{filepath.Join(kensaSrc, "src")}
	for _, p := range []string{"opentelemetry-api", "opentelemetry-sdk", "opentelemetry-semantic-conventions"} {
		path = append(path, filepath.Join(otelSrc, p, "src"))
	}
	return &kensaTool{script: script, pythonPath: strings.Join(path, string(os.PathListSeparator))}
}

// kensaEnv is the environment Kensa runs in: the price fetch of pricing.py is sent to a port
// where nothing listens, so that a cost never depends on the network (oasis-replay without a
// price table computes none either).
func kensaEnv() []string {
	env := os.Environ()
	for _, v := range []string{"https_proxy", "http_proxy", "HTTPS_PROXY", "HTTP_PROXY"} {
		env = append(env, v+"=http://127.0.0.1:9")
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

// kensaRuns is what real Kensa recorded of a project: each scenario's results in run order,
// and its statistics.
type kensaRuns struct {
	results  map[string][]pyvalue.Value
	order    []string
	stats    map[string]kensaAggregate
	manifest string
	// flags are kensa analyze's flagged traces, as "trace-id flag: detail" lines.
	flags []string
}

// kensaAggregate is aggregate.AggregatedResult without the per-run results.
type kensaAggregate struct {
	ScenarioID     string             `json:"scenario_id"`
	NumRuns        int                `json:"num_runs"`
	PassRate       float64            `json:"pass_rate"`
	PassPowK       map[string]float64 `json:"estimated_pass_rate_pow_k"`
	StatusCounts   map[string]int     `json:"status_counts"`
	Cost           spread             `json:"cost"`
	Duration       spread             `json:"duration"`
	AssertionStats []struct {
		Name       string  `json:"name"`
		PassCount  int     `json:"pass_count"`
		TotalCount int     `json:"total_count"`
		PassRate   float64 `json:"pass_rate"`
	} `json:"assertion_stats"`
	HighVariance bool `json:"high_variance"`
}

type spread struct {
	Mean, Stddev, Min, Max float64
}

// run runs Kensa over the project in dir: kensa run, kensa judge (checks only: no scenario
// has criteria), and aggregate_all over the results.
func (k *kensaTool) run(t *testing.T, dir string) *kensaRuns {
	t.Helper()
	for _, args := range [][]string{{"run", "--timeout", "120"}, {"judge", "--format", "json"}} {
		cmd := exec.Command(k.script, args...)
		cmd.Dir, cmd.Env = dir, kensaEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("real-kensa %s in %s: %v\n%s", strings.Join(args, " "), dir, err, tail(out))
		}
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, ".kensa", "runs", "*.json"))
	results, _ := filepath.Glob(filepath.Join(dir, ".kensa", "results", "*.json"))
	if len(manifests) != 1 || len(results) != 1 {
		t.Fatalf("Kensa wrote %d manifests and %d results files, want one each", len(manifests), len(results))
	}
	kr := &kensaRuns{results: map[string][]pyvalue.Value{}, stats: map[string]kensaAggregate{}, manifest: manifests[0]}
	mdata, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := pyvalue.Loads(manifests[0], mdata)
	if err != nil {
		t.Fatal(err)
	}
	rdata, err := os.ReadFile(results[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := pyvalue.Loads(results[0], rdata)
	if err != nil {
		t.Fatal(err)
	}
	// Results follow the manifest: its scenarios in order, each one's runs in order
	// (judge.judge_manifest).
	items := res.Items()
	scen, _ := manifest.Get("scenarios")
	i := 0
	for _, sid := range scen.Keys() {
		runs, _ := scen.Get(sid)
		kr.order = append(kr.order, sid)
		for range runs.Items() {
			if i >= len(items) {
				t.Fatalf("Kensa's results stop at %d, its manifest has more runs", i)
			}
			got, _ := items[i].Get("scenario_id")
			if s, _ := got.AsStr(); s != sid {
				t.Fatalf("Kensa's result %d is of %q, its manifest says %q", i, s, sid)
			}
			kr.results[sid] = append(kr.results[sid], items[i])
			i++
		}
	}
	cmd := exec.Command("python3", filepath.Join(testdataDir(t), "aggregate.py"), results[0])
	cmd.Env = append(os.Environ(), "PYTHONPATH="+k.pythonPath)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("aggregate.py: %v\n%s", err, tail(stderr))
	}
	var aggs []kensaAggregate
	if err := json.Unmarshal(out, &aggs); err != nil {
		t.Fatalf("aggregate.py: %v", err)
	}
	for _, a := range aggs {
		kr.stats[a.ScenarioID] = a
	}
	cmd = exec.Command(k.script, "analyze", "--format", "json")
	cmd.Dir, cmd.Env = dir, kensaEnv()
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("real-kensa analyze: %v", err)
	}
	var analysis struct {
		Flagged []struct {
			TraceID string `json:"trace_id"`
			Flag    string `json:"flag"`
			Detail  string `json:"detail"`
		} `json:"flagged_traces"`
	}
	if err := json.Unmarshal(out, &analysis); err != nil {
		t.Fatalf("real-kensa analyze: %v\n%s", err, tail(out))
	}
	for _, f := range analysis.Flagged {
		kr.flags = append(kr.flags, fmt.Sprintf("%s %s: %s", f.TraceID, f.Flag, f.Detail))
	}
	slices.Sort(kr.flags)
	return kr
}

func testdataDir(t *testing.T) string {
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func tail(b []byte) string {
	if len(b) > 4000 {
		return fmt.Sprintf("…%s", b[len(b)-4000:])
	}
	return string(b)
}
