package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

type rec struct {
	t Type
	p string
}

func write(t *testing.T, root string, records []rec) string {
	t.Helper()
	w, err := Create(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if _, err := w.Append(r.t, []byte(r.p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abandon(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

func scanAll(t *testing.T, dir string) ([]rec, Tail) {
	t.Helper()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var out []rec
	tail, err := j.Scan(func(r Record) error {
		again, err := j.ReadRecordAt(r.Offset, nil)
		if err != nil || again.Type != r.Type || !bytes.Equal(again.Payload, r.Payload) {
			t.Errorf("record at %d read again: %v %+v", r.Offset, err, again)
		}
		out = append(out, rec{r.Type, string(r.Payload)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, tail
}

var sample = []rec{{'H', `{"format":1}`}, {'B', "exchange one"}, {'D', ""}, {'D', string(bytes.Repeat([]byte("x"), 70000))}, {'E', "end"}}

func TestRoundTrip(t *testing.T) {
	dir := write(t, t.TempDir(), sample)
	got, tail := scanAll(t, dir)
	if len(got) != len(sample) || tail.Torn() != 0 {
		t.Fatalf("%d records, tail %+v", len(got), tail)
	}
	for i := range got {
		if got[i] != sample[i] {
			t.Errorf("record %d: %v, want %v", i, got[i].t, sample[i].t)
		}
	}
	for _, name := range []string{dir, filepath.Join(dir, FileName)} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is readable by others: %v", name, st.Mode())
		}
	}
}

// TestTornTail cuts the file at every length inside the last record, and damages every byte
// of it: the records before it are read, the rest is reported torn, and Cut leaves a
// journal that reads clean.
func TestTornTail(t *testing.T) {
	root := t.TempDir()
	dir := write(t, root, sample[:3])
	path := filepath.Join(dir, FileName)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := scanAll(t, dir)
	if len(first) != 3 {
		t.Fatalf("%d records", len(first))
	}
	// The second record starts after the magic and the first record.
	secondStart := len(magic) + headerSize + len(sample[0].p)
	secondEnd := secondStart + headerSize + len(sample[1].p)
	for cut := secondStart + 1; cut < secondEnd; cut++ {
		if err := os.WriteFile(path, whole[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		got, tail := scanAll(t, dir)
		if len(got) != 1 || tail.End != int64(secondStart) || tail.Size != int64(cut) {
			t.Fatalf("cut at %d: %d records, tail %+v", cut, len(got), tail)
		}
	}
	for i := secondStart; i < secondEnd; i++ {
		damaged := bytes.Clone(whole)
		damaged[i] ^= 0x40
		if err := os.WriteFile(path, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		got, tail := scanAll(t, dir)
		if len(got) != 1 || tail.Torn() != int64(len(whole)-secondStart) {
			t.Fatalf("byte %d damaged: %d records, tail %+v", i, len(got), tail)
		}
		j, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Cut(tail.End); err != nil {
			t.Fatal(err)
		}
		j.Close()
		if got, tail := scanAll(t, dir); len(got) != 1 || tail.Torn() != 0 {
			t.Fatalf("after the cut: %d records, tail %+v", len(got), tail)
		}
	}
	// A file system that extended the file with zeros.
	if err := os.WriteFile(path, append(bytes.Clone(whole), make([]byte, 4096)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, tail := scanAll(t, dir); len(got) != 3 || tail.Torn() != 4096 {
		t.Fatalf("zero tail: %d records, tail %+v", len(got), tail)
	}
}

func TestNotJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("something else entirely"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Scan(func(Record) error { return nil }); !errors.Is(err, ErrNotJournal) {
		t.Errorf("scan: %v", err)
	}
}

// TestLock: a journal being written cannot be opened; once its writer is gone, it can.
func TestLock(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(w.Dir()); !errors.Is(err, ErrInUse) {
		t.Fatalf("open while written: %v", err)
	}
	j := w.Finish()
	if _, err := Open(w.Dir()); !errors.Is(err, ErrInUse) {
		t.Fatalf("open while finished but held: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, err := Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Dir()); !os.IsNotExist(err) {
		t.Errorf("removed journal: %v", err)
	}
}

// TestConcurrentAppends: records appended from many goroutines are all whole.
func TestConcurrentAppends(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if _, err := w.Append('D', []byte(fmt.Sprintf("%d-%d-", g, i)), bytes.Repeat([]byte{byte(i)}, i*13)); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					if err := w.Sync(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	j := w.Finish()
	seen := map[string]bool{}
	tail, err := j.Scan(func(r Record) error {
		var g, i int
		if _, err := fmt.Sscanf(string(r.Payload), "%d-%d-", &g, &i); err != nil {
			return err
		}
		seen[string(r.Payload[:bytes.LastIndexByte(r.Payload[:min(len(r.Payload), 12)], '-')+1])] = true
		return nil
	})
	if err != nil || tail.Torn() != 0 || len(seen) != 8*200 {
		t.Errorf("scan: %v, tail %+v, %d distinct records", err, tail, len(seen))
	}
	j.Close()
}

func TestList(t *testing.T) {
	root := t.TempDir()
	if got, err := List(filepath.Join(root, "none")); err != nil || len(got) != 0 {
		t.Fatalf("missing root: %v %v", got, err)
	}
	a := write(t, root, sample[:1])
	b := write(t, root, sample[:1])
	if err := os.Mkdir(filepath.Join(root, "not-a-journal"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := List(root)
	if err != nil || len(got) != 2 || !((got[0] == a && got[1] == b) || (got[0] == b && got[1] == a)) {
		t.Errorf("List: %v %v", got, err)
	}
}

func TestAppendLimits(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abandon()
	if _, err := w.Append(0, nil); err == nil {
		t.Error("type 0 accepted")
	}
	if _, err := w.Append('D', make([]byte, MaxPayload+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized record: %v", err)
	}
}
