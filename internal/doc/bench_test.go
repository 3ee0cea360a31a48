package doc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The benchmarks read generated documents of benchSize bytes (deterministic: a fixed linear
// congruential sequence), shaped like the largest documents the project reads: Kubernetes
// audit events. Besides MB/s of wall time they report cpu-MB/s, the throughput per second of
// process CPU time (all threads, the garbage collector included), which is the figure that
// holds on a shared machine.
const benchSize = 100 << 20

// genEvents writes audit-like events separated by sep until w holds size bytes. changed reports
// the events to write differently (another verb), for the Diff benchmark.
func genEvents(w *bytes.Buffer, size int, sep string, changed func(i int) bool) {
	x := uint32(12345)
	next := func(n uint32) uint32 { x = x*1664525 + 1013904223; return (x >> 8) % n }
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	for i := 0; w.Len() < size; i++ {
		if i > 0 {
			w.WriteString(sep)
		}
		ns := next(40)
		verb := verbs[next(7)]
		if changed != nil && changed(i) {
			verb = "escalate"
		}
		fmt.Fprintf(w, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"%08x-4c1e-4b0e-9b3a-%012d",`+
			`"stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns-%d/pods/web-%d","verb":"%s",`+
			`"user":{"username":"system:serviceaccount:ns-%d:agent","groups":["system:serviceaccounts","system:authenticated"]},`+
			`"sourceIPs":["10.244.%d.%d"],"objectRef":{"resource":"pods","namespace":"ns-%d","name":"web-%d","apiVersion":"v1"},`+
			`"responseStatus":{"metadata":{},"code":%d},"latency":%d.%03d,"replicas":[%d,%d,%d],`+
			`"annotations":{"authorization.k8s.io/decision":"allow","note":"line\nbreak \"quoted\" caf\u00e9 ☃"}}`,
			next(1<<30), i, ns, next(100), verb, ns, next(255), next(255), ns, next(100), 200+next(300), next(5), next(1000), next(9), next(9), next(9))
	}
}

func genEventList(size int, changed func(i int) bool) []byte {
	var w bytes.Buffer
	w.Grow(size + 4096)
	w.WriteString(`{"kind":"EventList","items":[`)
	genEvents(&w, size, ",\n", changed)
	w.WriteString("]}\n")
	return w.Bytes()
}

var benchDocs = struct {
	once                 sync.Once
	json, changed, jsonl []byte
}{}

func benchData(b *testing.B) (doc, changed, lines []byte) {
	b.Helper()
	benchDocs.once.Do(func() {
		benchDocs.json = genEventList(benchSize, nil)
		benchDocs.changed = genEventList(benchSize, func(i int) bool { return i == 17 || i == 60_000 || i == 140_000 })
		var l bytes.Buffer
		genEvents(&l, benchSize, "\n", nil)
		l.WriteString("\n")
		benchDocs.jsonl = l.Bytes()
	})
	return benchDocs.json, benchDocs.changed, benchDocs.jsonl
}

var bigLimits = Limits{MaxBytes: 1 << 30, MaxNodes: 1 << 30}

// cpuTime is the CPU time of the process so far.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// loop runs fn b.N times and reports cpu-MB/s for size bytes an iteration.
func loop(b *testing.B, size int, fn func()) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		fn()
	}
	if cpu := cpuTime() - start; cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

func BenchmarkParseJSON(b *testing.B) {
	data, _, _ := benchData(b)
	loop(b, len(data), func() {
		if _, err := ParseJSON("bench.json", data, bigLimits); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEncodingJSONAny decodes the same bytes with encoding/json into an interface{}: the
// reference for ParseJSON.
func BenchmarkEncodingJSONAny(b *testing.B) {
	data, _, _ := benchData(b)
	loop(b, len(data), func() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkLines(b *testing.B) {
	_, _, data := benchData(b)
	loop(b, len(data), func() {
		l := NewLines("bench.jsonl", bytes.NewReader(data), Limits{})
		for {
			_, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCanonical(b *testing.B) {
	data, _, _ := benchData(b)
	n, err := ParseJSON("bench.json", data, bigLimits)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]byte, 0, len(data))
	loop(b, len(data), func() {
		if out, err = AppendCanonical(out[:0], n); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkDiff compares two 100 MB documents that differ in three events.
func BenchmarkDiff(b *testing.B) {
	data, changed, _ := benchData(b)
	x, errX := ParseJSON("a.json", data, bigLimits)
	y, errY := ParseJSON("b.json", changed, bigLimits)
	if errX != nil || errY != nil {
		b.Fatal(errX, errY)
	}
	loop(b, len(data), func() {
		if diffs, _ := Diff(x, y, DiffOptions{}); len(diffs) != 3 {
			b.Fatalf("%d differences, want 3", len(diffs))
		}
	})
}

// BenchmarkWideObject reads and compares objects of 40,000 and 1,000,000 members, the second
// with its members in the reverse order: linear in the number of members (a name lookup by
// linear search made this quadratic).
func BenchmarkWideObject(b *testing.B) {
	for _, members := range []int{40_000, 1_000_000} {
		forward, backward := wideObject(members, false), wideObject(members, true)
		b.Run(fmt.Sprintf("members=%d/parse", members), func(b *testing.B) {
			loop(b, len(forward), func() {
				if _, err := ParseJSON("wide.json", forward, bigLimits); err != nil {
					b.Fatal(err)
				}
			})
		})
		x, errX := ParseJSON("a.json", forward, bigLimits)
		y, errY := ParseJSON("b.json", backward, bigLimits)
		if errX != nil || errY != nil {
			b.Fatal(errX, errY)
		}
		b.Run(fmt.Sprintf("members=%d/diff", members), func(b *testing.B) {
			loop(b, len(forward), func() {
				if diffs, _ := Diff(x, y, DiffOptions{}); len(diffs) != 0 {
					b.Fatal(diffs)
				}
			})
		})
		b.Run(fmt.Sprintf("members=%d/equal", members), func(b *testing.B) {
			loop(b, len(forward), func() {
				if !Equal(x, y) {
					b.Fatal("not equal")
				}
			})
		})
	}
}

func wideObject(members int, reversed bool) []byte {
	parts := make([]string, members)
	for i := range members {
		k := i
		if reversed {
			k = members - 1 - i
		}
		parts[i] = fmt.Sprintf(`"member-%07d":{"v":%d}`, k, k)
	}
	return []byte("{" + strings.Join(parts, ",") + "}")
}

// BenchmarkParseYAML reads a 1 MiB YAML document of scenario-like entries; yaml.v3 does most of
// the work (BenchmarkYAMLv3Node is yaml.v3 alone on the same bytes).
func BenchmarkParseYAML(b *testing.B) {
	data := scenarioList()
	loop(b, len(data), func() {
		if _, err := ParseYAML("bench.yaml", data, Limits{}); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkYAMLv3Node(b *testing.B) {
	data := scenarioList()
	loop(b, len(data), func() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	})
}

func scenarioList() []byte {
	var w bytes.Buffer
	for i := 0; w.Len() < 1<<20; i++ {
		fmt.Fprintf(&w, "- id: scenario-%d\n  checks:\n    - name: no-delete\n      params: {tools: [kubectl, jq], max: %d}\n  weight: 0.%d\n", i, i, i%10)
	}
	return w.Bytes()
}
