package badgerstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

func TestOpenRefusesWhatIsNotAStore(t *testing.T) {
	tests := []struct {
		name     string
		prepare  func(t *testing.T) string
		readOnly bool
		want     error
		mention  string
	}{
		{"a file", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "file")
			os.WriteFile(p, []byte("x"), 0o644)
			return p
		}, false, ErrNotStore, "is not a directory"},
		{"an unrelated directory", func(t *testing.T) string {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
			return dir
		}, false, ErrNotStore, "holds other files"},
		{"another program's Badger database", func(t *testing.T) string {
			dir := t.TempDir()
			db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("their-key"), []byte("v")) })
			db.Close()
			return dir
		}, false, ErrNotStore, "without the oasis-replay format marker"},
		{"a missing directory, read-only", func(t *testing.T) string {
			return filepath.Join(t.TempDir(), "absent")
		}, true, ErrNotStore, "does not exist"},
		{"an empty directory, read-only", func(t *testing.T) string { return t.TempDir() }, true, ErrNotStore, "is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.prepare(t)
			s, err := Open(dir, Options{ReadOnly: tc.readOnly})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mention) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Open(%s) = %v, want %v naming the directory and saying %q", dir, err, tc.want, tc.mention)
			}
		})
	}
}

func TestOpenCreatesAndReopens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "store")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := s.PutBlob(t.Context(), strings.NewReader("kept"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetRef(t.Context(), "tags/x", d); err != nil {
		t.Fatal(err)
	}
	s.Close()

	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got, err := ro.GetRef(t.Context(), "tags/x"); err != nil || got != d {
		t.Fatalf("after reopening: ref = %s, %v", got, err)
	}
	if _, _, err := ro.PutBlob(t.Context(), strings.NewReader("no")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("PutBlob on a read-only store = %v, want ErrReadOnly", err)
	}
	if err := ro.SetRef(t.Context(), "tags/y", d); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("SetRef on a read-only store = %v, want ErrReadOnly", err)
	}
}

// TestOpenBesideJournals: the journals of live recordings live inside the store directory; a
// directory holding only them is a new store, and a store keeps opening with them inside.
func TestOpenBesideJournals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	journal := filepath.Join(dir, JournalsDir, "20260101T000000Z-1-abcd")
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(journal, "journal"), []byte("records"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("read-only open of a directory holding only journals = %v, want an empty store", err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := s.PutBlob(t.Context(), strings.NewReader("kept"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, readOnly := range []bool{false, true} {
		s, err := Open(dir, Options{ReadOnly: readOnly})
		if err != nil {
			t.Fatalf("reopen (read-only %v): %v", readOnly, err)
		}
		if e, err := s.Stat(t.Context(), d); err != nil || e.Size != 4 {
			t.Errorf("reopen (read-only %v): blob %s: %+v %v", readOnly, d, e, err)
		}
		s.Close()
	}
	if b, err := os.ReadFile(filepath.Join(journal, "journal")); err != nil || string(b) != "records" {
		t.Errorf("the journal changed: %q %v", b, err)
	}
}

func TestOpenInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{})
	s.Close()
	want := "badgerstore: locked: store " + dir + " is in use by another process"
	if !errors.Is(err, ErrLocked) || err.Error() != want {
		t.Fatalf("second Open = %v, want %q", err, want)
	}
}

// TestOpenInUseByAnotherProcess checks the message a second process gets, without Badger's
// internals.
func TestOpenInUseByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	child := childCommand(roleHoldLock, dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "open\n" {
		t.Fatalf("child said %q", line)
	}
	for _, readOnly := range []bool{false, true} {
		_, err := Open(dir, Options{ReadOnly: readOnly})
		want := fmt.Sprintf("badgerstore: locked: store %s is in use by another process (pid %d)", dir, child.Process.Pid)
		if !errors.Is(err, ErrLocked) || err.Error() != want {
			t.Errorf("Open(ReadOnly: %v) while another process holds the store = %v, want %q", readOnly, err, want)
		}
	}
}

func TestOptionsRejected(t *testing.T) {
	for _, o := range []Options{
		{ChunkSize: 100},
		{ChunkSize: maxChunkLimit + 1},
	} {
		if s, err := OpenInMemory(o); err == nil {
			s.Close()
			t.Errorf("OpenInMemory(%+v) accepted", o)
		}
	}
	if s, err := OpenInMemory(Options{ChunkSize: 1 << 20}); err == nil {
		s.Close()
		t.Error("a 1 MiB chunk cannot fit Badger's in-memory value limit with its header")
	}
}

func TestObjectSizeLimit(t *testing.T) {
	s, err := OpenInMemory(Options{ChunkSize: testChunkSize, MaxObjectSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc, _, err := store.Encode(&store.ProfileTree{ProfileID: strings.Repeat("p", 200), Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutObject(t.Context(), doc); !errors.Is(err, store.ErrTooLarge) {
		t.Fatalf("PutObject of %d bytes with a 100-byte limit = %v, want ErrTooLarge", len(doc), err)
	}
}

// TestOpenRefusesAnotherFormatVersion: a store of format version 1 named chunks by the digest
// of their own bytes; this build must refuse it, saying which versions are involved, rather
// than report its chunks as corrupt.
func TestOpenRefusesAnotherFormatVersion(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	tamper(t, dir, Options{}, metaFormatKey, func([]byte) []byte { return []byte("oasis-replay store\x00\x01") })
	for _, readOnly := range []bool{false, true} {
		s, err := Open(dir, Options{ReadOnly: readOnly})
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, store.ErrUnsupportedVersion) || !strings.Contains(err.Error(), dir) ||
			!strings.Contains(err.Error(), "store format version 1, this build reads version 4") {
			t.Errorf("Open(ReadOnly: %v) of a version 1 store = %v, want ErrUnsupportedVersion naming the directory and both versions", readOnly, err)
		}
	}
}
