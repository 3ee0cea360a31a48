package kensa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// timestampInputs are span times as JSON values: numbers around each magnitude boundary of
// _parse_timestamp, and ISO strings from a grammar of dates, separators, times, fractions and
// offsets (valid and not).
func timestampInputs(n int) []string {
	rng := rand.New(rand.NewPCG(21, 7))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	out := []string{"0", "1", "true", "false", "null", "[1]", `{"a": 1}`, "1.5", "-1.5", "1e18", "999999999999999999",
		"1000000000000000000", "1795558803765181000", "1795558803765181", "1795558803765", "1795558803.765181",
		"1e15", "999999999999999", "1e12", "999999999999", "99999999999", "253402300799", "253402300800", "-62135596800",
		"-62135596801", "1e300", "1795558803765181000.0", "0.0000005", "0.0000015", "-0.0000005", `""`, `"Z"`}
	for range n {
		switch rng.IntN(6) {
		case 0:
			out = append(out, fmt.Sprintf("%d", rng.Int64N(4e18)-2e18))
		case 1:
			scale := []float64{1, 1e3, 1e6, 1e9}[rng.IntN(4)]
			out = append(out, fmt.Sprintf("%.6f", (1.7e9+rng.Float64()*1e8)*scale))
		default:
			date := pick("2026-11-24", "20261124", "2026-W47", "2026W47", "2026-W47-2", "2026W472", "2026-W53-1", "2020-W53-7",
				"2026-02-29", "2024-02-29", "2026-13-01", "0000-01-01", "9999-12-31", "2026-1-1", "2026-11-2", "2026-001", "２０２６-11-24")
			s := date
			if rng.IntN(5) > 0 {
				s += pick("T", " ", "x", "é", "t")
				s += pick("22", "22:20", "2220", "22:20:03", "222003", "22:2", "24:00", "22:60", "22:20:60", "22:20:03:5", "2220:03")
				if rng.IntN(2) == 0 {
					s += pick(".", ",") + strings.Repeat("7", rng.IntN(10))
				}
				if rng.IntN(3) > 0 {
					s += pick("Z", "+00:00", "-05:30", "+0530", "+05", "+05:30:15", "-05:30:15.5", "+23:59", "+24:00", "-99:00",
						"ZZ", "Z+01:00", " +01:00", "x+01:00", "+01:00x", "+1", "+01:0")
				}
			}
			out = append(out, fmt.Sprintf("%q", s))
		}
	}
	return out
}

// SpanTimestamp reads every input as Kensa's translate._parse_timestamp (taken from Kensa's
// source and run by python3) does: the same microsecond, or the same error text.
func TestSpanTimestampIsKensas(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	translate := sharedtest.Path(t, "third_party", "kensa-v0.7.0", "src", "kensa", "translate.py")
	inputs := timestampInputs(3000)
	const script = `
import sys, os, json
from datetime import datetime, timezone, timedelta
from typing import Any
src = open(os.environ["KENSA_TRANSLATE"]).read()
start = src.index("def _parse_timestamp"); end = src.index("def _extract_kind")
ns = {"datetime": datetime, "timezone": timezone, "Any": Any}
exec(src[start:end], ns)
epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
for line in sys.stdin:
    try:
        d = ns["_parse_timestamp"](json.loads(line))
        if d.tzinfo is None: d = d.replace(tzinfo=timezone.utc)
        print((d - epoch) // timedelta(microseconds=1))
    except Exception as e:
        print("error: " + str(e))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(os.Environ(), "KENSA_TRANSLATE="+translate)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	failures := 0
	for i, in := range inputs {
		n, err := doc.ParseJSON("t", []byte(in), doc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		ns, err := SpanTimestamp(n)
		var te *TimestampError
		switch {
		case errors.As(err, &te):
			got = "error: " + te.Msg
		case err != nil:
			got = "unheld: " + err.Error()
		default:
			got = fmt.Sprint(MicrosFromNanos(ns))
		}
		want := lines[i]
		if strings.HasPrefix(got, "unheld: ") && !strings.HasPrefix(want, "error: ") {
			continue // a time Kensa reads that nanoseconds cannot hold (documented)
		}
		if got != want {
			if failures++; failures <= 30 {
				t.Errorf("%s: %s, Kensa %s", in, got, want)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d differ", failures, len(inputs))
	}
	_ = json.Valid
}
