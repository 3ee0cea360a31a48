package kensa

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/kensaagent"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// agentEnv makes the test binary, run by a scenario, the scripted agent (see TestMain).
const agentEnv = "KENSA_AGENT_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(agentEnv) == "1" {
		os.Exit(kensaagent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// project is a directory with .kensa/scenarios written by a test.
type project struct {
	t   *testing.T
	dir string
}

func newProject(t *testing.T) *project {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".kensa", "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &project{t: t, dir: dir}
}

// write writes a file under .kensa/scenarios.
func (p *project) write(name, text string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, ".kensa", "scenarios", name), []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// agent is a run_command running the scripted agent with flags, as a YAML flow sequence.
func agent(t *testing.T, flags ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{strconv.Quote(exe)}
	for _, f := range flags {
		words = append(words, strconv.Quote(f))
	}
	return "[" + strings.Join(words, ", ") + "]"
}

// whereChecks pass for the request "where A-100", whatever channel carries the spans.
const whereChecks = `checks:
  - type: output_contains
    params: {value: "A-100 has shipped"}
  - type: tools_called
    params: {tools: [lookup_order]}
  - type: tools_not_called
    params: {tools: [refund_order]}
  - type: tool_order
    params: {order: [lookup_order]}
  - type: max_turns
    params: {max: 2}
  - type: no_repeat_calls
  - type: trajectory
    params: {steps: [{tool: lookup_order, args: {order_id: A-100}}], max_steps: 1}
  - type: max_duration
    params: {max_seconds: 1}
`

// scenario is a scenario file running the agent with flags on input, with env_overrides
// making the test binary the agent.
func scenario(t *testing.T, id, input string, flags []string, rest string) string {
	return fmt.Sprintf("id: %s\nname: %s\ninput: %s\nrun_command: %s\nenv_overrides: {%s: \"1\"}\n%s",
		id, id, input, agent(t, flags...), agentEnv, rest)
}

// runAll plans and executes every scenario of p, in order, and returns the records.
func (p *project) runAll(opts Options) []*Record {
	p.t.Helper()
	jobs, err := Plan([]string{filepath.Join(p.dir, ".kensa")}, opts)
	if err != nil {
		p.t.Fatal(err)
	}
	var out []*Record
	for i, job := range jobs {
		spool := filepath.Join(p.t.TempDir(), fmt.Sprint(i))
		if err := os.MkdirAll(spool, 0o700); err != nil {
			p.t.Fatal(err)
		}
		rec, err := Execute(p.t.Context(), job, opts, spool)
		if err != nil {
			p.t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

func evaluate(t *testing.T, rec *Record) *ekensa.Result {
	t.Helper()
	ev, err := EvidenceOf(rec)
	if err != nil {
		t.Fatal(err)
	}
	return ekensa.Evaluate(ev)
}

var testOpts = Options{Runs: 1, Timeout: time.Minute, RunID: "test", Version: "test"}

// Spans arrive the ways instrumented agents emit them — Kensa's JSONL exporter, OTLP/HTTP in
// protobuf and JSON, gzip-compressed or not — in each vocabulary, and every way gives the
// same checks.
func TestRunEmitters(t *testing.T) {
	tests := []struct {
		emit, semconv, mediaType string
		gzip                     bool
	}{
		{"jsonl", "openinference", store.MediaTypeOpenInferenceJSONL, false},
		{"otlp-proto", "openinference", store.MediaTypeOTLPProtobuf, false},
		{"otlp-json", "openinference", store.MediaTypeOTLPJSON, false},
		{"otlp-proto", "genai", store.MediaTypeOTLPProtobuf, false},
		{"otlp-json", "genai-old", store.MediaTypeOTLPJSON, false},
		{"otlp-proto", "openinference", store.MediaTypeOTLPProtobuf, true},
		{"otlp-json", "genai", store.MediaTypeOTLPJSON, true},
	}
	p := newProject(t)
	for i, tt := range tests {
		flags := []string{"--emit", tt.emit, "--semconv", tt.semconv}
		if tt.gzip {
			flags = append(flags, "--gzip")
		}
		p.write(fmt.Sprintf("s%d.yaml", i), scenario(t, fmt.Sprintf("s%d", i), "where A-100", flags, whereChecks))
	}
	recs := p.runAll(testOpts)
	for i, tt := range tests {
		rec := recs[i]
		res := evaluate(t, rec)
		if res.Status != ekensa.StatusPass {
			t.Errorf("%s %s gzip %v: status %s, error %v, checks %+v", tt.emit, tt.semconv, tt.gzip, res.Status, deref(res.Error), res.CheckResults)
		}
		if len(rec.SpanSources) != 1 || rec.SpanSources[0].MediaType != tt.mediaType {
			t.Errorf("%s %s: span sources %+v", tt.emit, tt.semconv, rec.SpanSources)
		}
		if res.Trace.LLMCalls != 2 || res.Trace.ToolCalls != 1 {
			t.Errorf("%s %s: trace %+v", tt.emit, tt.semconv, res.Trace)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A dataset runs once per row with {{field}} placeholders filled in check params;
// env_overrides reach the agent, except the variables Kensa protects.
func TestRunDatasetAndEnv(t *testing.T) {
	p := newProject(t)
	p.write("orders.jsonl", `{"question": "where B-1", "order": "B-1"}`+"\n\n"+`{"question": "where b-2", "order": "B-2"}`+"\n")
	run := agent(t, "--echo-env", "GREETING")
	p.write("ds.yaml", fmt.Sprintf(`id: ds
name: Dataset
dataset: orders.jsonl
input_field: question
run_command: %s
env_overrides: {%s: "1", GREETING: "hello", KENSA_TRACE_DIR: /nowhere}
checks:
  - type: output_contains
    params: {value: "{{order}}", case_sensitive: true}
`, run, agentEnv))
	recs := p.runAll(testOpts)
	if len(recs) != 2 {
		t.Fatalf("%d runs, want one per row", len(recs))
	}
	for i, want := range []string{ekensa.StatusPass, ekensa.StatusFail} {
		res := evaluate(t, recs[i])
		if recs[i].Case != i+1 || res.Status != want {
			t.Errorf("row %d: case %d status %s, want %s (%+v)", i+1, recs[i].Case, res.Status, want, res.CheckResults)
		}
		stderr, _ := recs[i].Stderr.tail(500)
		if stderr != "GREETING=hello" {
			t.Errorf("row %d: stderr %q", i+1, stderr)
		}
	}
	if got := evaluate(t, recs[1]).CheckResults[0].Detail; !strings.Contains(got, "'B-2'") {
		t.Errorf("the placeholder was not filled from the row: %s", got)
	}
}

// The agent is told to export OTLP over HTTP in protobuf (the receiver speaks no gRPC), in
// both variables OpenTelemetry SDKs read, unless the scenario's env_overrides choose a
// protocol themselves.
func TestRunOTLPProtocolEnv(t *testing.T) {
	p := newProject(t)
	for i, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		run := agent(t, "--echo-env", v)
		p.write(fmt.Sprintf("a%d.yaml", i), fmt.Sprintf("id: a%d\nname: a\ninput: where A-1\nrun_command: %s\nenv_overrides: {%s: \"1\"}\n", i, run, agentEnv))
		p.write(fmt.Sprintf("b%d.yaml", i), fmt.Sprintf("id: b%d\nname: b\ninput: where A-1\nrun_command: %s\nenv_overrides: {%s: \"1\", OTEL_EXPORTER_OTLP_PROTOCOL: http/json}\n", i, run, agentEnv))
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc") // the caller's own setting does not reach the agent
	want := []string{"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="}
	recs := p.runAll(testOpts) // a0 a1 b0 b1
	for i, rec := range recs {
		if got, _ := rec.Stderr.tail(500); got != want[i] {
			t.Errorf("%s: agent saw %q, want %q", rec.Definition.Scenario.ID, got, want[i])
		}
	}
}

// Misbehaving agents give a recorded run with a clear error, never a lost run.
func TestRunMisbehaving(t *testing.T) {
	p := newProject(t)
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	p.write("a_missing.yaml", "id: a_missing\nname: m\ninput: where A-1\nrun_command: [/nonexistent/agent]\n")
	p.write("b_exit.yaml", scenario(t, "b_exit", "where A-1", []string{"--exit", "3", "--stderr", "boom"}, ""))
	p.write("c_hang.yaml", scenario(t, "c_hang", "where A-1", []string{"--hang", "--pidfile", pidfile}, ""))
	p.write("d_malformed_jsonl.yaml", scenario(t, "d_malformed_jsonl", "where A-1", []string{"--malformed"}, ""))
	p.write("e_malformed_otlp.yaml", scenario(t, "e_malformed_otlp", "where A-1", []string{"--emit", "otlp-proto", "--malformed"}, ""))
	p.write("f_truncated.yaml", scenario(t, "f_truncated", "where A-1", []string{"--truncate"}, ""))
	p.write("g_nospans.yaml", scenario(t, "g_nospans", "where A-1", []string{"--emit", "none", "--stderr", "no instrumentation"}, ""))
	opts := testOpts
	opts.Timeout = time.Second
	recs := p.runAll(opts)
	want := []string{
		`Scenario 'a_missing' could not start: /nonexistent/agent: no such file or directory`,
		"Scenario subprocess exited with code 3.\nstderr:\nboom",
		`Scenario subprocess exited with code -1.`,
		`Scenario 'd_malformed_jsonl': the agent's spans could not be read: otlp: malformed spans: spans.jsonl:5:30: trace_id: unexpected character`,
		`Scenario 'e_malformed_otlp': the agent's spans could not be read: otlp: malformed spans: protobuf: `,
		`Scenario 'f_truncated': the agent's spans could not be read: otlp: malformed spans: spans.jsonl:4:143: start_time: the last line is truncated`,
		"Scenario 'g_nospans' ran successfully but produced no traces.\nstderr:\nno instrumentation",
	}
	for i, rec := range recs {
		res := evaluate(t, rec)
		if res.Status != ekensa.StatusError || res.Error == nil || !strings.HasPrefix(*res.Error, want[i]) {
			t.Errorf("%s: status %s, error %q, want error %q…", rec.Definition.Scenario.ID, res.Status, deref(res.Error), want[i])
		}
		if rec.Exit.Code == 0 {
			t.Errorf("%s: exit code 0 recorded for a failed run", rec.Definition.Scenario.ID)
		}
	}
	if hang := recs[2]; !hang.Exit.TimedOut || hang.Exit.Code != -1 {
		t.Errorf("hang: %+v", hang.Exit)
	}
	if !strings.Contains(*evaluate(t, recs[5]).Error, "the last line is truncated") {
		t.Errorf("truncated trace: %s", *evaluate(t, recs[5]).Error)
	}
	// The hanging agent's child was killed with its process group.
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the hanging agent's child %d is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Every run is sealed and replays to the same status.
	s := newStore(t)
	digests, err := SealAll(t.Context(), s, recs, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range digests {
		b, err := replay.LoadKensa(t.Context(), s, d)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		if want := evaluate(t, recs[i]); res.Result.Status != want.Status || deref(res.Result.Error) != deref(want.Error) {
			t.Errorf("%s replays to %s %q, recorded %s %q", recs[i].Definition.Scenario.ID, res.Result.Status, deref(res.Result.Error), want.Status, deref(want.Error))
		}
	}
}

// A stream past the cap is cut, and the run is recorded with how much was written.
func TestRunCapsOutput(t *testing.T) {
	p := newProject(t)
	p.write("flood.yaml", scenario(t, "flood", "where A-100", []string{"--flood", strconv.Itoa(8 << 20)}, whereChecks))
	opts := testOpts
	opts.MaxOutput = 1 << 20
	rec := p.runAll(opts)[0]
	if !rec.Stdout.Truncated || rec.Stdout.Total != 8<<20+int64(len("Order A-100 has shipped.\n")) {
		t.Errorf("stdout %+v", rec.Stdout)
	}
	if st, err := os.Stat(rec.Stdout.Path); err != nil || st.Size() != 1<<20 {
		t.Errorf("kept %v bytes (%v), want the cap", st, err)
	}
	if res := evaluate(t, rec); res.Status != ekensa.StatusPass {
		t.Errorf("status %s", res.Status)
	}
}

func newStore(t *testing.T) store.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
