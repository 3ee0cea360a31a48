package pyre

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pythonOutcomes runs, in one python3 process, re.compile on each case's pattern and
// re.search over each of its subjects, and prints one outcome per subject as JSON lines:
// the match's span, "nomatch", "error: " and str(re.error), or "exception: " and the type of
// another exception.
const pythonOutcomes = `
import json, re, sys, warnings
warnings.simplefilter("ignore")
out = []
for case in json.load(sys.stdin):
    try:
        rx = re.compile(case["pattern"])
    except re.error as e:
        out.append(["error: " + str(e)] * len(case["subjects"]))
        continue
    except Exception as e:
        out.append(["exception: " + type(e).__name__] * len(case["subjects"]))
        continue
    row = []
    for s in case["subjects"]:
        m = rx.search(s)
        row.append("match %d %d" % m.span() if m else "nomatch")
    out.append(row)
json.dump(out, sys.stdout)
`

// diffBudget is the step budget of the comparisons: a tenth of the default, which no
// generated case has come near, so that a case that spent it would not hold the test for
// seconds.
const diffBudget = DefaultBudget / 10

// outcome is what this package gives for re.search(pattern, subject), written as
// pythonOutcomes writes Python's; cannot is set when it cannot say (a spent budget, \N{...}).
func outcome(pattern, subject string) (got string, cannot bool) {
	re, err := Compile(pattern)
	var perr *Error
	switch {
	case errors.As(err, &perr):
		return "error: " + perr.Error(), false
	case errors.Is(err, ErrNotReError):
		return "exception: " + strings.SplitN(strings.TrimPrefix(err.Error(), ErrNotReError.Error()+": "), ":", 2)[0], false
	case err != nil:
		return err.Error(), true
	}
	start, end, found, err := re.Search(subject, diffBudget)
	switch {
	case err != nil:
		return err.Error(), true
	case found:
		return fmt.Sprintf("match %d %d", start, end), false
	}
	return "nomatch", false
}

func askPython(t testing.TB, cases []genCase) [][]string {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	if err := json.Unmarshal([]byte(runPython(t, pythonOutcomes, in)), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(cases) {
		t.Fatalf("python3 answered %d cases of %d", len(out), len(cases))
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// Generated patterns × subjects give, here and in python3's re, the same outcome: the same
// span of the first match, no match, or the same re.error text (or both raise another
// exception). PYRE_DIFF_COMPARISONS sets how many comparisons (6,000 by default: five
// subjects for each of 1,200 patterns; make difftest-regex runs 200,000) and PYRE_DIFF_SEED
// the first seed; a failing case names its seed, which generate(seed, 5) writes again.
func TestAgainstPython(t *testing.T) {
	const perPattern = 5
	comparisons := envInt("PYRE_DIFF_COMPARISONS", 6000)
	first := uint64(envInt("PYRE_DIFF_SEED", 1))
	patterns := (comparisons + perPattern - 1) / perPattern
	agree, total, cannot, spent, invalid, matched, failures := 0, 0, 0, 0, 0, 0, 0
	const batch = 2000
	for lo := 0; lo < patterns; lo += batch {
		var cases []genCase
		for i := lo; i < min(lo+batch, patterns); i++ {
			cases = append(cases, generate(first+uint64(i), perPattern))
		}
		answers := askPython(t, cases)
		for i, c := range cases {
			for j, s := range c.Subjects {
				total++
				want := answers[i][j]
				got, unsure := outcome(c.Pattern, s)
				switch {
				case unsure:
					cannot++
					if strings.Contains(got, ErrStepBudget.Error()) {
						spent++
						if spent <= 5 {
							t.Logf("seed %d: re.search(%q, %q) spent the budget; Python %s", c.Seed, c.Pattern, s, want)
						}
					}
					continue
				case got == want:
					agree++
					if strings.HasPrefix(want, "error") {
						invalid++
					} else if strings.HasPrefix(want, "match") {
						matched++
					}
					continue
				}
				failures++
				if failures <= 25 {
					t.Errorf("seed %d: re.search(%q, %q): %s, Python %s", c.Seed, c.Pattern, s, got, want)
				}
			}
		}
	}
	t.Logf("%d/%d comparisons agree (%d patterns from seed %d to %d; %d matches, %d invalid patterns, %d that cannot be re-derived here, %d of them for the step budget)",
		agree, total, patterns, first, first+uint64(patterns)-1, matched, invalid, cannot, spent)
	if failures > 0 {
		t.Errorf("%d comparisons differ from Python's re", failures)
	}
}

// regression is a case once found to differ, kept with Python's outcome so that it is checked
// without python3 too.
type regression struct {
	Pattern string `json:"pattern"`
	Subject string `json:"subject"`
	Python  string `json:"python"`
}

// The cases of testdata/regressions.json give Python's recorded outcome here; with python3,
// the recorded outcomes are checked to be Python's.
func TestRegressions(t *testing.T) {
	data, err := os.ReadFile("testdata/regressions.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []regression
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got, _ := outcome(c.Pattern, c.Subject); got != c.Python {
			t.Errorf("re.search(%q, %q): %s, Python %s", c.Pattern, c.Subject, got, c.Python)
		}
	}
	if _, err := lookPython(); err != nil || len(cases) == 0 {
		return
	}
	var asked []genCase
	for _, c := range cases {
		asked = append(asked, genCase{Pattern: c.Pattern, Subjects: []string{c.Subject}})
	}
	for i, a := range askPython(t, asked) {
		if a[0] != cases[i].Python {
			t.Errorf("testdata/regressions.json: re.search(%q, %q) is %s in python3, recorded %s", cases[i].Pattern, cases[i].Subject, a[0], cases[i].Python)
		}
	}
}
