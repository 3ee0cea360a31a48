package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzScan reads arbitrary bytes after the magic as a journal: never a panic, every record
// returned reads again the same, and the valid records and the torn tail add up to the file.
func FuzzScan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'D'})
	seedDir := f.TempDir()
	w, err := Create(seedDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range sample {
		if _, err := w.Append(r.t, []byte(r.p)); err != nil {
			f.Fatal(err)
		}
	}
	w.Abandon()
	whole, err := os.ReadFile(filepath.Join(w.Dir(), FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole[len(magic):])
	f.Add(whole[len(magic) : len(whole)-3])
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), append([]byte(magic), data...), 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var total int64 = int64(len(magic))
		tail, err := j.Scan(func(r Record) error {
			again, err := j.ReadRecordAt(r.Offset, nil)
			if err != nil || again.Type != r.Type || !bytes.Equal(again.Payload, r.Payload) {
				t.Errorf("record at %d read again: %v", r.Offset, err)
			}
			total += headerSize + int64(len(r.Payload))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if tail.End != total || tail.Size != int64(len(magic)+len(data)) {
			t.Errorf("tail %+v, records end at %d, file is %d bytes", tail, total, len(magic)+len(data))
		}
	})
}
