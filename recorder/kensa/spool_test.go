package kensa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// A finished run kept in its spool is recovered as the bundle kensa run would have sealed, byte
// for byte: the same digest, with its dataset row and input derived again, its spans, output,
// tag and findings; the spool is then gone.
func TestRecoverSpoolSealsTheSameBundle(t *testing.T) {
	p := newProject(t)
	p.write("orders.jsonl", `{"question": "where A-100", "order": "A-100"}`+"\n")
	p.write("ds.yaml", fmt.Sprintf("id: ds\nname: Dataset\ndataset: orders.jsonl\ninput_field: question\nrun_command: %s\nenv_overrides: {%s: \"1\"}\n%s",
		agent(t, "--emit", "otlp-proto"), agentEnv, whereChecks))
	p.write("plain.yaml", scenario(t, "plain", "where A-100", nil, whereChecks))
	jobs, err := Plan([]string{filepath.Join(p.dir, ".kensa")}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	spool := filepath.Join(t.TempDir(), SpoolPrefix+"test")
	lock, err := lockSpool(spool)
	if err != nil {
		t.Fatal(err)
	}
	opts := testOpts
	opts.Tag = "t"
	var want []store.Digest
	for i, job := range jobs {
		dir := filepath.Join(spool, fmt.Sprintf("run-%06d", i+1))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		job.Repeat = 1
		rec, err := Execute(t.Context(), job, opts, dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status, err = statusOf(rec); err != nil {
			t.Fatal(err)
		}
		if err := keepRecord(spool, rec); err != nil {
			t.Fatal(err)
		}
		s := memStore(t)
		ds, err := SealAll(t.Context(), s, []*Record{rec}, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ds[0])
	}
	if err := os.MkdirAll(filepath.Join(spool, "run-000009"), 0o700); err != nil { // in flight
		t.Fatal(err)
	}
	if _, err := RecoverSpool(t.Context(), spool, "test", nil); !errors.Is(err, ErrSpoolInUse) {
		t.Errorf("a spool kensa run holds: %v", err)
	}
	lock.unlock()
	s := memStore(t)
	got, err := RecoverSpool(t.Context(), spool, "test", func(use func(Writer) error) error { return use(s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Bundles) != len(want) || got.InFlight != 1 {
		t.Fatalf("%d bundles, %d in flight", len(got.Bundles), got.InFlight)
	}
	for i := range want {
		if got.Bundles[i] != want[i] || got.Records[i].Status != "pass" {
			t.Errorf("run %d: recovered as %s (%s), sealed as %s", i+1, got.Bundles[i], got.Records[i].Status, want[i])
		}
	}
	if d, err := s.GetRef(t.Context(), "tags/t-ds"); err != nil || d != got.Bundles[0] {
		t.Errorf("tag t-ds: %s %v", d, err)
	}
	if _, err := os.Stat(spool); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spool is still there: %v", err)
	}
}

func memStore(t *testing.T) store.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
