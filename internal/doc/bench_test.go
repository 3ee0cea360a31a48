package doc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

// benchSize is the size of the generated documents of the benchmarks.
const benchSize = 100 << 20

// genEvents writes Kubernetes-audit-like events, one per line, until size bytes: the shape of
// the largest documents the project reads. It is deterministic (a fixed linear congruential
// sequence), so runs compare.
func genEvents(w *bytes.Buffer, size int, sep string) {
	x := uint32(12345)
	next := func(n uint32) uint32 { x = x*1664525 + 1013904223; return (x >> 8) % n }
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	for i := 0; w.Len() < size; i++ {
		if i > 0 {
			w.WriteString(sep)
		}
		ns := next(40)
		fmt.Fprintf(w, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"%08x-4c1e-4b0e-9b3a-%012d",`+
			`"stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns-%d/pods/web-%d","verb":"%s",`+
			`"user":{"username":"system:serviceaccount:ns-%d:agent","groups":["system:serviceaccounts","system:authenticated"]},`+
			`"sourceIPs":["10.244.%d.%d"],"objectRef":{"resource":"pods","namespace":"ns-%d","name":"web-%d","apiVersion":"v1"},`+
			`"responseStatus":{"metadata":{},"code":%d},"latency":%d.%03d,"replicas":[%d,%d,%d],`+
			`"annotations":{"authorization.k8s.io/decision":"allow","note":"line\nbreak \"quoted\" caf\u00e9 ☃"}}`,
			next(1<<30), i, ns, next(100), verbs[next(7)], ns, next(255), next(255), ns, next(100), 200+next(300), next(5), next(1000), next(9), next(9), next(9))
	}
}

var benchDocs struct {
	once        sync.Once
	json, lines []byte
}

func benchData(b *testing.B) (doc, lines []byte) {
	b.Helper()
	benchDocs.once.Do(func() {
		var w bytes.Buffer
		w.WriteString(`{"kind":"EventList","items":[`)
		genEvents(&w, benchSize, ",\n")
		w.WriteString("]}\n")
		benchDocs.json = w.Bytes()
		var l bytes.Buffer
		genEvents(&l, benchSize, "\n")
		l.WriteString("\n")
		benchDocs.lines = l.Bytes()
	})
	return benchDocs.json, benchDocs.lines
}

var bigLimits = Limits{MaxBytes: 1 << 30, MaxNodes: 1 << 30}

func BenchmarkParseJSON(b *testing.B) {
	data, _ := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON("bench.json", data, bigLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONAny decodes the same bytes with encoding/json into interface{}, the
// reference ParseJSON is compared with.
func BenchmarkEncodingJSONAny(b *testing.B) {
	data, _ := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLines(b *testing.B) {
	_, data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
	}
}

var _ = strings.Repeat

func TestWriteBenchFiles(t *testing.T) {
	dir := os.Getenv("DOC_BENCH_DIR")
	if dir == "" {
		t.Skip()
	}
	benchDocs.once.Do(func() {})
	var w bytes.Buffer
	w.WriteString(`{"kind":"EventList","items":[`)
	genEvents(&w, benchSize, ",\n")
	w.WriteString("]}\n")
	os.WriteFile(dir+"/bench.json", w.Bytes(), 0o644)
	var l bytes.Buffer
	genEvents(&l, benchSize, "\n")
	l.WriteString("\n")
	os.WriteFile(dir+"/bench.jsonl", l.Bytes(), 0o644)
}
