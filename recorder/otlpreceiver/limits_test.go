package otlpreceiver

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// traces builds an export of spans spans, each with attrs attributes, one of them a list of
// nested lists depth deep.
func traces(spans, attrs, depth int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "agent")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range spans {
		s := ss.Spans().AppendEmpty()
		s.SetName(fmt.Sprintf("span %d", i))
		for a := range attrs {
			s.Attributes().PutStr(fmt.Sprintf("a%d", a), "v")
		}
		if depth > 0 {
			l := s.Attributes().PutEmptySlice("nested")
			for range depth - 1 {
				l = l.AppendEmpty().SetEmptySlice()
			}
		}
		s.Events().AppendEmpty().SetName("event")
	}
	return td
}

func protobufOf(t *testing.T, td ptrace.Traces) []byte {
	t.Helper()
	var m ptrace.ProtoMarshaler
	b, err := m.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonOf(t *testing.T, td ptrace.Traces) []byte {
	t.Helper()
	var m ptrace.JSONMarshaler
	b, err := m.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Both counters count the same spans, and values as each encoding holds them, without
// decoding: a span is counted once, whatever its size.
func TestCount(t *testing.T) {
	td := traces(3, 4, 2)
	pc, err := countProtobuf(bytes.NewReader(protobufOf(t, td)), NewBudget(Limits{}).Left())
	if err != nil {
		t.Fatal(err)
	}
	// resource spans, resource, 1 attribute and its value, scope spans, scope, then per span:
	// the span, 4 attributes and their values, the nested list (attribute, value, list, inner
	// value, its list), an event.
	if want := (Count{Spans: 3, Values: 6 + 3*(1+8+5+1)}); pc != want {
		t.Errorf("protobuf: %+v, want %+v", pc, want)
	}
	jc, err := countJSON(bytes.NewReader(jsonOf(t, td)), NewBudget(Limits{}).Left(), false)
	if err != nil || jc.Spans != 3 || jc.Values < pc.Values {
		t.Errorf("json: %+v %v", jc, err)
	}
	lc, err := countJSON(strings.NewReader("{\"name\":\"a\"}\n\n{\"name\":\"b\",\"attributes\":{\"x\":[1,2]}}\n"), NewBudget(Limits{}).Left(), true)
	if want := (Count{Spans: 2, Values: 8}); err != nil || lc != want {
		t.Errorf("jsonl: %+v %v, want %+v", lc, err, want)
	}
	// A body cut short is counted up to its fault and reported malformed.
	cut := protobufOf(t, td)
	if c, err := countProtobuf(bytes.NewReader(cut[:len(cut)-3]), NewBudget(Limits{}).Left()); !errors.Is(err, errMalformed) || c.Spans != 3 {
		t.Errorf("cut short: %+v %v", c, err)
	}
}

// Past a limit of the run, the body that passes it and every later one are refused with 413
// naming the limit, and nothing of them is kept; what came before is kept.
func TestReceiverLimits(t *testing.T) {
	tests := []struct {
		name   string
		lim    Limits
		first  []byte // fits
		second []byte // passes the limit
		answer string
	}{
		{"span bytes", Limits{Bytes: 4000}, protobufOf(t, traces(2, 1, 0)), protobufOf(t, traces(100, 1, 0)),
			"more than 4000 span bytes per run (0 MiB, MaxRunBytes)"},
		{"spans", Limits{Spans: 10}, protobufOf(t, traces(10, 1, 0)), protobufOf(t, traces(1, 0, 0)),
			"more than 10 spans per run (MaxRunSpans)"},
		{"values, json", Limits{Values: 1000}, jsonOf(t, traces(2, 1, 0)), jsonOf(t, traces(5, 100, 0)),
			"more than 1000 span values per run"},
		{"nesting", Limits{}, protobufOf(t, traces(1, 1, MaxNesting)), protobufOf(t, traces(1, 1, MaxNesting+10)),
			"values nested more than 64 deep (MaxNesting)"},
		{"nesting, json", Limits{}, jsonOf(t, traces(1, 1, MaxNesting)), jsonOf(t, traces(1, 1, MaxNesting+10)),
			"values nested more than 64 deep (MaxNesting)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			budget := NewBudget(tt.lim)
			r, err := Start(dir, Config{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			mt := Protobuf
			if tt.first[0] == '{' {
				mt = JSON
			}
			if status, answer := post(t, r, mt, "", tt.first); status != 200 {
				t.Fatalf("first: %d %s", status, answer)
			}
			for _, body := range [][]byte{tt.second, tt.first} {
				if status, answer := post(t, r, mt, "", body); status != http.StatusRequestEntityTooLarge || !strings.Contains(answer, tt.answer) {
					t.Errorf("%d %q, want 413 %q", status, answer, tt.answer)
				}
			}
			got := r.Close()
			if len(got.Bodies) != 1 || got.Rejected != 2 || !errors.Is(budget.Err(), ErrLimit) || !strings.Contains(budget.Err().Error(), tt.answer) {
				t.Errorf("%+v, budget %v", got, budget.Err())
			}
			if left, _ := os.ReadDir(dir); len(left) != 1 {
				t.Errorf("left on disk: %v", left)
			}
		})
	}
}

// A body that would take the free space below the margin is refused with 507, nothing of it
// stays, and Close reports it: the run cannot be recorded whole.
func TestReceiverFreeSpace(t *testing.T) {
	dir := t.TempDir()
	space := freespace.New(dir, func(string) (int64, error) { return freespace.Margin + 1000, nil })
	r, err := Start(dir, Config{Space: space})
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := post(t, r, Protobuf, "", protobufOf(t, traces(100, 2, 0))); status != http.StatusInsufficientStorage {
		t.Errorf("status %d", status)
	}
	got := r.Close()
	if len(got.Bodies) != 0 || !errors.Is(got.SpoolErr, freespace.ErrNoSpace) || !strings.Contains(got.SpoolErr.Error(), "margin of 16 MiB") {
		t.Errorf("%+v", got)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left on disk: %v", left)
	}
}
