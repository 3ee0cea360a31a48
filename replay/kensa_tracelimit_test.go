package replay

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// A stored trace past the limits is not decoded, and the reason names the limit.
func TestTraceTooLarge(t *testing.T) {
	tests := []struct {
		name string
		size int64
		raw  []byte
		want string
	}{
		{"within", 100, []byte("{}\n{}\n"), ""},
		{"bytes", fkensa.MaxTraceBytes + 1, nil, "more than replay decodes (32 MiB, MaxTraceBytes)"},
		{"spans", 1 << 20, bytes.Repeat([]byte("{}\n"), fkensa.MaxTraceSpans+1), "more than the 50000 spans replay decodes (MaxTraceSpans)"},
	}
	for _, tt := range tests {
		got := traceTooLarge(store.Descriptor{Size: tt.size}, tt.raw)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The runs loaded at once decode at most MaxTraceBytes of traces together: a run waits until
// the others give back their share.
func TestTraceBudget(t *testing.T) {
	b := newTraceBudget()
	release := b.acquire(fkensa.MaxTraceBytes - 10)
	small := b.acquire(10) // fits beside it
	var got atomic.Bool
	go func() {
		b.acquire(1 << 20)()
		got.Store(true)
	}()
	time.Sleep(50 * time.Millisecond)
	if got.Load() {
		t.Fatal("a trace was decoded beyond the budget")
	}
	release()
	small()
	for deadline := time.Now().Add(5 * time.Second); !got.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiting run never got its share")
		}
	}
}
