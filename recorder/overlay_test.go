package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestOverlay: the verdict check's store holds only what its base lacks, within its budget,
// reads through to the base, and writes nothing to it.
func TestOverlay(t *testing.T) {
	ctx := context.Background()
	base := memStore(t)
	shared := []byte("already in the store")
	sd, _, err := base.PutBlob(ctx, bytes.NewReader(shared))
	if err != nil {
		t.Fatal(err)
	}
	o := newOverlay(base, 64)
	if d, n, err := o.PutBlob(ctx, bytes.NewReader(shared)); err != nil || d != sd || n != int64(len(shared)) {
		t.Fatalf("put a blob the base has: %s %d %v", d, n, err)
	}
	if len(o.blobs) != 0 {
		t.Errorf("a blob the base has is held: %d held", len(o.blobs))
	}
	own := []byte("unredacted, only here")
	d, _, err := o.PutBlob(ctx, bytes.NewReader(own))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		d store.Digest
		b []byte
	}{{sd, shared}, {d, own}} {
		rc, _, err := o.OpenBlob(ctx, want.d)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, want.b) {
			t.Errorf("read %s: %q, want %q", want.d.Short(), got, want.b)
		}
	}
	if _, err := base.Stat(ctx, d); err == nil {
		t.Error("the overlay wrote into its base")
	}
	if err := o.SetRef(ctx, "bundles/x", d); err != nil {
		t.Fatal(err)
	}
	if refs, _ := base.ListRefs(ctx, ""); len(refs) != 0 {
		t.Errorf("the overlay set refs in its base: %v", refs)
	}
	if o.over {
		t.Fatal("over budget too early")
	}
	big := strings.Repeat("x", 100)
	bd, n, err := o.PutBlob(ctx, strings.NewReader(big))
	if !errors.Is(err, errOverBudget) || n != 100 || bd != store.Sum([]byte(big)) {
		t.Fatalf("put beyond the budget: %s %d %v", bd, n, err)
	}
	if !o.over {
		t.Error("a blob beyond the budget does not set over")
	}
	if _, ok := o.blobs[bd]; ok {
		t.Error("a blob beyond the budget is held")
	}
}

// sameVerdicts decides the same for every bundle.
type sameVerdicts struct{ calls int }

func (v *sameVerdicts) Outcomes(context.Context, Source, store.Digest) (map[string][]string, error) {
	v.calls++
	return map[string][]string{"": {"overall PASS"}}, nil
}

// TestVerdictCheckBudget: when what redaction changed is larger than the check may hold, the
// check is not made, and a warning says so.
func TestVerdictCheckBudget(t *testing.T) {
	var log bytes.Buffer
	if err := auditgen.Write(&log, 7, twinBudget+(1<<20)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	const agent = "system:serviceaccount:oasis-eval:oasis-agent"
	red, err := redact.New([]byte("0123456789abcdef-test-key"), []string{agent})
	if err != nil {
		t.Fatal(err)
	}
	v := &sameVerdicts{}
	opts := testOptions(t)
	opts.Redactor, opts.Verdicts = red, v
	res, err := RecordFiles(context.Background(), memStore(t), FilesInput{Scenario: filesScenario, AuditLog: path, AgentPrincipal: agent}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := findingsWith(res.Manifest, CodeRedactionUnchecked); len(got) != 1 || !strings.Contains(got[0].Message, fmt.Sprintf("%d MiB", twinBudget>>20)) {
		t.Errorf("findings %v", res.Manifest.Findings)
	}
	if got := findingsWith(res.Manifest, CodeRedactionChangesVerdict); len(got) != 0 {
		t.Errorf("findings %v", got)
	}
}
