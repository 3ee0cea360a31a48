package doc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/jsondiff"
)

// TestDiffMatchesJSONDiff pins Diff to internal/jsondiff, whose output golden files and replay
// --repeat print: same paths, same renderings, same order, same truncation, on jsondiff's own
// cases and on pairs of generated documents. It goes when internal/jsondiff does.
func TestDiffMatchesJSONDiff(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("..", "jsondiff", "testdata", "cases", "*.a.json"))
	for _, a := range cases {
		b := strings.TrimSuffix(a, ".a.json") + ".b.json"
		da, errA := os.ReadFile(a)
		db, errB := os.ReadFile(b)
		if err := errors.Join(errA, errB); err != nil {
			t.Fatal(err)
		}
		compareWithJSONDiff(t, filepath.Base(a), da, db, jsondiff.MaxDifferences)
	}
	r := rand.New(rand.NewPCG(1, 2))
	total := 0
	for i := range 2000 {
		a := genValue(r, 0)
		b := mutate(r, a, 0)
		total += compareWithJSONDiff(t, fmt.Sprintf("generated %d", i), []byte(a), []byte(b), 1+r.IntN(8))
	}
	if total < 1000 {
		t.Errorf("the generated pairs gave only %d differences", total)
	}
}

// compareWithJSONDiff compares the outputs and returns the number of differences.
func compareWithJSONDiff(t *testing.T, name string, a, b []byte, limit int) int {
	t.Helper()
	want, wantErr := jsondiff.DiffN(a, b, limit)
	na, errA := ParseJSON("a.json", a, Limits{MaxDepth: jsondiff.MaxDepth})
	nb, errB := ParseJSON("b.json", b, Limits{MaxDepth: jsondiff.MaxDepth})
	if err := errors.Join(errA, errB); err != nil {
		if !errors.Is(wantErr, jsondiff.ErrSyntax) {
			t.Errorf("%s: doc refuses (%v), jsondiff does not (%v)", name, err, wantErr)
		}
		return 0
	}
	if errors.Is(wantErr, jsondiff.ErrSyntax) {
		t.Errorf("%s: jsondiff refuses (%v), doc does not", name, wantErr)
		return 0
	}
	got, truncated := Diff(na, nb, DiffOptions{MaxDifferences: limit, MaxValueBytes: jsondiff.MaxValueBytes})
	if truncated != errors.Is(wantErr, jsondiff.ErrTruncated) || len(got) != len(want) {
		t.Errorf("%s: %d differences (truncated %v), jsondiff %d (%v)\n%s\n%s", name, len(got), truncated, len(want), wantErr, a, b)
		return 0
	}
	for i := range got {
		if got[i].Path != want[i].Path || got[i].A != want[i].Want || got[i].B != want[i].Got || got[i].String() != want[i].String() {
			t.Errorf("%s: difference %d is %v, jsondiff says %v", name, i, got[i], want[i])
		}
	}
	return len(got)
}

var genKeys = []string{"a", "b", "status", "a/b", "m~n", "é", "\U0001F600", "\ue000", "", "10", "2"}

// genValue writes a random JSON value.
func genValue(r *rand.Rand, depth int) string {
	switch k := r.IntN(10); {
	case depth > 3 || k < 4:
		return genScalar(r)
	case k < 7:
		n := r.IntN(5)
		items := make([]string, n)
		for i := range items {
			items[i] = genValue(r, depth+1)
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		perm := r.Perm(len(genKeys))[:r.IntN(5)]
		members := make([]string, len(perm))
		for i, k := range perm {
			members[i] = fmt.Sprintf("%q:%s", genKeys[k], genValue(r, depth+1))
		}
		return "{" + strings.Join(members, ",") + "}"
	}
}

func genScalar(r *rand.Rand) string {
	return []string{`null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `10e-1`, `2.5`, `1e2`, `100`, `""`, `"x"`,
		`"\u0000\"\\"`, `"é"`, `"` + strings.Repeat("long ", 10) + `"`}[r.IntN(16)]
}

// mutate returns a variant of the JSON text v: parsed, changed here and there, written back.
func mutate(r *rand.Rand, v string, depth int) string {
	n, err := ParseJSON("", []byte(v), Limits{})
	if err != nil {
		panic(err)
	}
	var write func(n *Node, depth int) string
	write = func(n *Node, depth int) string {
		if r.IntN(8) == 0 {
			return genValue(r, depth)
		}
		switch n.Kind() {
		case Array:
			var items []string
			for _, item := range n.Items() {
				if r.IntN(10) > 0 {
					items = append(items, write(item, depth+1))
				}
			}
			return "[" + strings.Join(items, ",") + "]"
		case Object:
			var members []string
			ms := n.Members()
			for _, i := range r.Perm(len(ms)) {
				if r.IntN(10) > 0 {
					members = append(members, string(AppendString(nil, ms[i].Key))+":"+write(ms[i].Value, depth+1))
				}
			}
			return "{" + strings.Join(members, ",") + "}"
		}
		return string(n.Compact())
	}
	return write(n, depth)
}
