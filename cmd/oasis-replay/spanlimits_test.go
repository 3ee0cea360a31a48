package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spanFlood is the scripts' `span-flood MODE N`, an agent that sends kensa run's OTLP receiver
// N bodies of the kind MODE names, says the order shipped and exits 0:
//
//	wide      one export as large as the run's limits allow: 20,000 spans of 24 values each,
//	          costly to decode (its trace is about 30 MiB in Kensa's model)
//	big       60 MiB protobuf bodies of large attributes (past the span bytes of a run)
//	tiny      protobuf bodies of 1 MiB, each holding 20,000 spans (past the spans of a run)
//	garbage   60 MiB bodies that are not protobuf
//	bomb      gzip bodies of 64 KiB that decompress to 64 MiB of zeros
//
// Refused bodies (413) do not stop it.
func spanFlood() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: span-flood MODE N")
		os.Exit(2)
	}
	n, _ := strconv.Atoi(os.Args[2])
	body, encoding := floodBody(os.Args[1])
	url := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	for range n {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		if encoding != "" {
			req.Header.Set("Content-Encoding", encoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "span-flood:", err)
			os.Exit(1)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		fmt.Fprintf(os.Stderr, "span-flood: %s: %s\n", resp.Status, strings.TrimSpace(string(msg)))
	}
	fmt.Println("Order A-100 has shipped.")
}

func floodBody(mode string) (body []byte, encoding string) {
	spansOf := func(spans, attrs, size int) []byte {
		td := ptrace.NewTraces()
		ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
		value := strings.Repeat("x", size)
		for i := range spans {
			s := ss.Spans().AppendEmpty()
			s.SetName("step")
			s.SetTraceID([16]byte{1})
			s.SetSpanID([8]byte{byte(i), byte(i >> 8), byte(i >> 16), 1})
			s.SetStartTimestamp(1_700_000_000_000_000_000)
			s.SetEndTimestamp(1_700_000_000_100_000_000)
			for a := range attrs {
				s.Attributes().PutStr("attribute."+strconv.Itoa(a), value)
			}
		}
		// The last span is the agent's answer, which the scenario's check reads.
		last := ss.Spans().AppendEmpty()
		last.SetName("answer")
		last.SetTraceID([16]byte{1})
		last.SetSpanID([8]byte{2})
		last.SetStartTimestamp(1_700_000_000_200_000_000)
		last.SetEndTimestamp(1_700_000_000_300_000_000)
		last.Attributes().PutStr("openinference.span.kind", "LLM")
		last.Attributes().PutStr("output.value", "Order A-100 has shipped.")
		var m ptrace.ProtoMarshaler
		b, err := m.MarshalTraces(td)
		if err != nil {
			panic(err)
		}
		return b
	}
	switch mode {
	case "wide":
		return spansOf(19_999, 11, 80), ""
	case "big":
		return spansOf(60, 1, 1<<20), ""
	case "tiny":
		return spansOf(20_000, 0, 0), ""
	case "garbage":
		return bytes.Repeat([]byte{0xff}, 60<<20), ""
	case "bomb":
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(make([]byte, 64<<20))
		_ = zw.Close()
		return b.Bytes(), "gzip"
	}
	panic("span-flood: unknown mode " + mode)
}

// spanBudget is the peak resident memory kensa run, replay and kensa stats may reach whatever
// the agent sends (README, "Untrusted input").
const spanBudget = 256 << 20

// peakRSS runs oasis-replay with args as a child process and returns its peak resident set
// (VmHWM, its high-water mark, sampled every 10 ms while it runs), its exit status and output.
func peakRSS(t *testing.T, args ...string) (int64, int, string) {
	t.Helper()
	cmd := exec.Command("oasis-replay", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var hwm int64
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(10 * time.Millisecond):
			if n, ok := procStatus(cmd.Process.Pid, "VmHWM"); ok {
				hwm = max(hwm, n)
			}
		}
	}
	// Not the kernel's maxrss of the child: Linux carries into it the peak of the process it was
	// forked from (this test's), which a vfork-like exec shares until the exec.
	return hwm, cmd.ProcessState.ExitCode(), out.String()
}

// Whatever an agent sends its OTLP receiver (or prints), kensa run records it within the memory
// budget, as an error run naming the limit when it passes one, and replay and kensa stats
// re-check the stored runs within it too: each is measured as a child process. The bodies past a limit are
// refused with 413. OASIS_REPLAY_SPAN_FLOOD=N runs each scenario N times, two agents at once,
// so that replay and kensa stats meet N runs at the limits.
func TestKensaRunSpanLimitsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends hundreds of MiB of spans")
	}
	runs, parallel := "1", "1"
	if v := os.Getenv("OASIS_REPLAY_SPAN_FLOOD"); v != "" {
		runs, parallel = v, "2"
	}
	dir := filepath.Join(t.TempDir(), ".kensa")
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mode   string
		bodies int
		error  string // the run's error, "" when it passes
	}{
		{"wide", 1, ""},
		{"big", 3, "more than 33554432 span bytes per run (32 MiB, MaxRunBytes)"},
		{"tiny", 2, "more than 20000 spans per run (MaxRunSpans)"},
		{"garbage", 3, "more than 33554432 span bytes per run (32 MiB, MaxRunBytes)"},
		{"bomb", 2, "more than 33554432 span bytes per run (32 MiB, MaxRunBytes)"},
	}
	for _, tt := range tests {
		sc := fmt.Sprintf("id: %s\nname: %s\nrun_command: [span-flood, %s, %q]\nchecks:\n  - type: output_contains\n    params: {value: shipped}\n",
			tt.mode, tt.mode, tt.mode, strconv.Itoa(tt.bodies))
		if err := os.WriteFile(filepath.Join(dir, "scenarios", tt.mode+".yaml"), []byte(sc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An agent printing 100 MB on each stream (64 MiB of each is kept), and no spans: replay
	// reads only the ends of its streams that Kensa keeps.
	output := "id: output\nname: output\nrun_command: [sh, -c, \"head -c 100000000 /dev/zero | tr '\\\\0' a; head -c 100000000 /dev/zero | tr '\\\\0' b >&2\"]\n" +
		"checks:\n  - type: output_contains\n    params: {value: shipped}\n"
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "output.yaml"), []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		mode   string
		bodies int
		error  string
	}{"output", 0, "ran successfully but produced no traces"})
	storeDir := filepath.Join(t.TempDir(), "store")
	rss, status, out := peakRSS(t, "--store", storeDir, "kensa", "run", "--runs", runs, "--parallel", parallel, "--tag", "flood", dir)
	t.Logf("kensa run: peak RSS %d MiB", rss>>20)
	if rss > spanBudget {
		t.Errorf("kensa run: peak RSS %d MiB, more than %d MiB", rss>>20, spanBudget>>20)
	}
	n, _ := strconv.Atoi(runs)
	if status != 2 || !strings.Contains(out, fmt.Sprintf("%d runs sealed, %d did not pass: 0 failed, %d in error", 6*n, 5*n, 5*n)) {
		t.Fatalf("kensa run: status %d\n%s", status, out)
	}
	for _, tt := range tests {
		var show bytes.Buffer
		args := []string{"oasis-replay", "--store", storeDir, "replay", "--no-store", "flood-" + tt.mode}
		run(args, strings.NewReader(""), &show, &show)
		if tt.error == "" && !strings.Contains(show.String(), "PASS") || tt.error != "" && !strings.Contains(show.String(), tt.error) {
			t.Errorf("%s: replay says\n%s", tt.mode, show.String())
		}
	}
	for _, args := range [][]string{{"replay", "--no-store", "flood-wide"}, {"replay", "--no-store", "flood-output"}, {"kensa", "stats"}} {
		rss, status, out := peakRSS(t, append([]string{"--store", storeDir}, args...)...)
		t.Logf("%s: peak RSS %d MiB", strings.Join(args, " "), rss>>20)
		if rss > spanBudget || status > 2 {
			t.Errorf("%s: peak RSS %d MiB (budget %d MiB), status %d\n%s", strings.Join(args, " "), rss>>20, spanBudget>>20, status, out)
		}
	}
}
