package kensa

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/freespace"
	"github.com/oasis-replay/oasis-replay/recorder/command"
	"github.com/oasis-replay/oasis-replay/recorder/otlpreceiver"
)

// A spool write that would take the free space below the store's margin fails the run, with
// an error naming the margin: the agent's output (--flood) and its OTLP bodies alike.
func TestRunKeepsFreeSpaceMargin(t *testing.T) {
	tests := []struct{ name, flags string }{
		{"stdout", "--flood|4000000"},
		{"otlp body", "--emit|otlp-proto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			p.write("where.yaml", scenario(t, "where", "where A-100", strings.Split(tt.flags, "|"), whereChecks))
			jobs, err := Plan([]string{filepath.Join(p.dir, ".kensa")}, testOpts)
			if err != nil {
				t.Fatal(err)
			}
			spool := t.TempDir()
			used := func() int64 {
				var n int64
				_ = filepath.WalkDir(spool, func(_ string, d fs.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						if info, err := d.Info(); err == nil {
							n += info.Size()
						}
					}
					return nil
				})
				return n
			}
			opts := testOpts
			// Room for 1 KiB above the margin: the stream or the body does not fit.
			opts.freeSpace = func(string) (int64, error) { return freespace.Margin + 1<<10 - used(), nil }
			_, err = Execute(t.Context(), jobs[0], opts, spool)
			if !errors.Is(err, command.ErrSpool) || !strings.Contains(err.Error(), "less than the margin of 16 MiB (16777216 bytes) kept free for the store") {
				t.Errorf("error %v", err)
			}
		})
	}
}

// A run whose spans pass a limit of the run (in its OTLP bodies or its JSONL file) is an error
// run naming the limit, its span sources kept and nothing decoded.
func TestRunSpanLimits(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		lim     otlpreceiver.Limits
		want    string
		sources int // the body past the limit is refused; the JSONL file is kept
	}{
		{"otlp spans", []string{"--emit", "otlp-proto"}, otlpreceiver.Limits{Spans: 1}, "more than 1 spans per run (MaxRunSpans)", 0},
		{"otlp bytes", []string{"--emit", "otlp-json"}, otlpreceiver.Limits{Bytes: 100}, "more than 100 span bytes per run", 0},
		{"jsonl spans", nil, otlpreceiver.Limits{Spans: 1}, "more than 1 spans per run (MaxRunSpans)", 1},
		{"jsonl values", nil, otlpreceiver.Limits{Values: 10}, "more than 10 span values per run", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			p.write("where.yaml", scenario(t, "where", "where A-100", tt.flags, whereChecks))
			opts := testOpts
			opts.spanLimits = tt.lim
			rec := p.runAll(opts)[0]
			wantErr := "Scenario 'where': the agent's spans passed a limit of the run: otlpreceiver: span limit passed: " + tt.want
			if res := evaluate(t, rec); !strings.HasPrefix(deref(res.Error), wantErr) || rec.TraceFile != "" || len(rec.SpanSources) != tt.sources {
				t.Errorf("status %s, error %q, want %q; trace %q, %d sources", res.Status, deref(res.Error), wantErr, rec.TraceFile, len(rec.SpanSources))
			}
			if !hasFinding(rec, "spans_limit") {
				t.Errorf("findings %+v", rec.Findings)
			}
		})
	}
}

func hasFinding(rec *Record, code string) bool {
	for _, f := range rec.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

// A trace that would pass fkensa.MaxTraceBytes in Kensa's model is not written: its sources may
// be within the span bytes of a run, and Kensa's model escapes every string.
func TestWriteTraceLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	spans := []fkensa.Span{{Name: "a"}, {Name: strings.Repeat("\x01", fkensa.MaxTraceBytes/6)}}
	if _, err := writeTrace(path, spans, nil); !errors.Is(err, errTraceTooLarge) || !strings.Contains(err.Error(), "(32 MiB, MaxTraceBytes) at span 2 of 2") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("left on disk: %v", err)
	}
}
