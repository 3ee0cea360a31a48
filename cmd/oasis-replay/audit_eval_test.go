package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// audit of an Eval Library matrix compares the verdict recorded for it with the one derived
// now: the same digest reproduces (0); another digest recorded by this very evaluator is a
// mismatch (1); one recorded by an evaluator of other rules (a version or rules digest this
// build does not implement) is not re-derivable (3), never a mismatch; no recorded verdict is
// an error (2).
func TestAuditEvalOutcomes(t *testing.T) {
	base := evalStore(t)
	var out bytes.Buffer
	// Exit status 1 says a cell is flagged; the matrix is sealed either way.
	run(append(base, "eval", "matrix", "--agent", "eval-agent", "--runs", "1", "--min-match", "0"), strings.NewReader(""), &out, io.Discard)
	m := regexp.MustCompile(`(?m)^sealed matrix (sha256:[0-9a-f]{64})$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no matrix sealed: %s", out.String())
	}
	d, err := store.ParseDigest(m[1])
	if err != nil {
		t.Fatal(err)
	}
	dir := base[2]
	audit := func(format string) (int, string, string) {
		return runInStore(dir, "audit", "--format", format, d.String())
	}
	status, stdout, stderr := audit("text")
	if status != exitOK || !strings.Contains(stdout, "reproduced: the recorded verdict has the same digest") {
		t.Fatalf("recorded by this evaluator: status %d\n%s%s", status, stdout, stderr)
	}

	// recordAs replaces the recorded receipt by one of another evaluator or verdict.
	recordAs := func(edit func(*store.Receipt)) {
		t.Helper()
		ctx := context.Background()
		s, err := badgerstore.Open(dir, badgerstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		name := store.EvalVerdictRefName(d)
		rd, err := s.GetRef(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.GetObject(ctx, rd)
		if err != nil {
			t.Fatal(err)
		}
		r, err := store.DecodeReceipt(b)
		if err != nil {
			t.Fatal(err)
		}
		if edit == nil {
			if err := s.DeleteRef(ctx, name); err != nil {
				t.Fatal(err)
			}
			return
		}
		edit(r)
		desc, err := store.Put(ctx, s, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetRef(ctx, name, desc.Digest); err != nil {
			t.Fatal(err)
		}
	}
	otherVerdict := store.Sum([]byte("a verdict of other rules"))
	tests := []struct {
		name   string
		edit   func(*store.Receipt)
		status int
		text   string
		json   string
	}{
		{"another version", func(r *store.Receipt) { r.Evaluator.Version = "0"; r.Verdict = otherVerdict }, exitNotReDerivable,
			`not-re-derivable: neither confirmed nor contradicted`, `"outcome":"not-re-derivable"`},
		{"other rules", func(r *store.Receipt) { r.Evaluator.RulesDigest = otherVerdict }, exitNotReDerivable,
			"(rules " + otherVerdict.Short() + `); this evaluator is "` + evalmetric.Name + `" version "` + evalmetric.Version, `"cause":"the recorded verdict`},
		{"this evaluator, another verdict", func(r *store.Receipt) { r.Evaluator = evalmetric.Info(); r.Verdict = otherVerdict }, exitMismatch,
			"MISMATCH", `"outcome":"mismatch"`},
		{"no recorded verdict", nil, exitError, "", ""},
	}
	// Each case edits the receipt the previous one left.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recordAs(tt.edit)
			status, stdout, stderr := audit("text")
			if status != tt.status || !strings.Contains(stdout, tt.text) {
				t.Fatalf("text: status %d, want %d, without %q:\n%s%s", status, tt.status, tt.text, stdout, stderr)
			}
			if tt.edit == nil {
				if !strings.Contains(stderr, "has no recorded verdict") {
					t.Errorf("stderr %q", stderr)
				}
				return
			}
			status, stdout, _ = audit("json")
			if status != tt.status || !strings.Contains(stdout, tt.json) {
				t.Fatalf("json: status %d, want %d, without %q:\n%s", status, tt.status, tt.json, stdout)
			}
		})
	}
}
