package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// payloadBudget is what the values of one payload may take at most, the document model's tree
// and the Go values together: the rest of 256 MiB (DESIGN §7) is the program's own memory, the
// payload's bytes (three times) and the garbage collector's headroom.
const payloadBudget = 80 << 20

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestPayloadMemoryPerValue measures what a value of a payload costs, as a node of the document
// model and as the Go value Resource.Doc holds (readJSON holds both at once), for the shapes
// that cost most per byte, and checks that MaxValues of the dearest stay within payloadBudget.
func TestPayloadMemoryPerValue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds payloads of 200,000 values")
	}
	shapes := []struct{ name, item string }{
		{"numbers", `0`},
		{"empty objects", `{}`},
		{"objects of one member", `{"a":0}`},
		{"short strings", `"abcdefgh"`},
		{"pods", `{"kind":"Pod","metadata":{"name":"p","namespace":"d","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]},"status":{"phase":"Running"}}`},
	}
	worst := 0.0
	for _, shape := range shapes {
		const items = 10_000
		data := []byte("[" + strings.Repeat(shape.item+",", items-1) + shape.item + "]")
		before := heapInUse()
		n, err := doc.ParseJSON("payload", data, doc.Limits{MaxBytes: DefaultMaxBytes, MaxNodes: MaxValues})
		if err != nil {
			t.Fatal(err)
		}
		tree := heapInUse()
		var v any
		if err := doc.Decode(n, &v); err != nil {
			t.Fatal(err)
		}
		both := heapInUse()
		values := 0
		for range n.All() {
			values++
		}
		perValue := float64(both-before) / float64(values)
		t.Logf("%-22s %4.1f bytes of JSON, %5.1f bytes as a node, %5.1f more as a Go value: %5.1f bytes a value",
			shape.name, float64(len(data))/float64(values), float64(tree-before)/float64(values), float64(both-tree)/float64(values), perValue)
		worst = max(worst, perValue)
		runtime.KeepAlive(n)
		runtime.KeepAlive(v)
	}
	if cost := worst * MaxValues; cost > payloadBudget {
		t.Errorf("MaxValues (%d) values at %.0f bytes each take %.0f MiB, more than the budget of %d MiB",
			MaxValues, worst, cost/(1<<20), payloadBudget>>20)
	}
}

// TestParseLimits: a payload beyond a limit is refused with an error naming it.
func TestParseLimits(t *testing.T) {
	tests := []struct {
		name, payload, limit string
	}{
		{"values", "[" + strings.Repeat("0,", MaxValues) + "0]", "Limits.MaxNodes"},
		{"bytes", `{"kind":"List","items":[],"pad":"` + strings.Repeat("x", DefaultMaxBytes) + `"}`, "Limits.MaxBytes"},
		{"depth", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "Limits.MaxDepth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(bytes.NewReader([]byte(tt.payload)), store.MediaTypeK8sObjects, Options{Name: "state.json"})
			if !errors.Is(err, ErrPayload) || !errors.Is(err, doc.ErrLimit) || !strings.Contains(err.Error(), tt.limit+" ") {
				t.Errorf("got %v, want an ErrPayload naming %s", err, tt.limit)
			}
			if !strings.Contains(fmt.Sprint(err), "state.json") {
				t.Errorf("the error does not name the payload: %v", err)
			}
		})
	}
}
