package journal

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// Sentinel errors.
var (
	// ErrInUse: a live recorder holds the journal.
	ErrInUse = errclass.New(errclass.InUse, "journal: in use by a live recorder")
	// ErrNotJournal: the file does not start with the journal magic.
	ErrNotJournal = errclass.New(errclass.Input, "journal: not a journal")
	// ErrTooLarge: a record larger than MaxPayload was appended.
	ErrTooLarge = errclass.New(errclass.Internal, "journal: record too large")
	// ErrDamaged: a record read back (after it was scanned whole) does not match its checksum.
	ErrDamaged = errclass.New(errclass.Integrity, "journal: damaged record")
	// ErrClosed: the journal was closed.
	ErrClosed = errclass.New(errclass.Internal, "journal: closed")
)

// Type is the type of a record, chosen by the writer. 0 is never a valid type.
type Type uint8

// MaxPayload bounds one record's payload; a length beyond it marks a damaged record.
const MaxPayload = 16 << 20

// FileName is the name of the journal file inside its directory.
const FileName = "journal"

// magic opens every journal file.
const magic = "oasis-replay journal v1\n"

// headerSize is the size of a record header: crc, length, type.
const headerSize = 9

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one record read from a journal. Payload is valid until the next record is read.
type Record struct {
	Type    Type
	Payload []byte
	// Offset is where the record (its header) starts in the file: ReadRecordAt reads it
	// again.
	Offset int64
}

// file is the journal file with its lock, shared by the writer and the reader.
type file struct {
	dir string
	f   *os.File
}

// Dir is the journal's directory.
func (jf *file) Dir() string { return jf.dir }

// ReadRecordAt reads the record whose header starts at off, checking its checksum. buf is
// used for the payload when it is large enough.
func (jf *file) ReadRecordAt(off int64, buf []byte) (Record, error) {
	var h [headerSize]byte
	if _, err := jf.f.ReadAt(h[:], off); err != nil {
		return Record{}, fmt.Errorf("journal %s: read record at %d: %w", jf.dir, off, err)
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n > MaxPayload {
		return Record{}, fmt.Errorf("%w: %s: record at %d claims %d bytes", ErrDamaged, jf.dir, off, n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := jf.f.ReadAt(buf, off+headerSize); err != nil {
		return Record{}, fmt.Errorf("journal %s: read record at %d: %w", jf.dir, off, err)
	}
	if checksum(h[4:], buf) != binary.LittleEndian.Uint32(h[:4]) {
		return Record{}, fmt.Errorf("%w: %s: record at %d does not match its checksum", ErrDamaged, jf.dir, off)
	}
	return Record{Type: Type(h[8]), Payload: buf, Offset: off}, nil
}

func checksum(lengthAndType, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(lengthAndType, castagnoli), castagnoli, payload)
}

// Writer appends records to a new journal. It is safe for concurrent use: each Append is
// written whole, in the order of the calls.
type Writer struct {
	file

	mu   sync.Mutex
	off  int64  // end of the last record written
	buf  []byte // frame being written
	err  error  // the first write error: the journal takes no more records
	done bool

	syncMu sync.Mutex
	synced int64 // end of what the last Sync covered

	// space admits every record written: the journal keeps freespace.Margin free on its file
	// system, as the store does, so a recording cannot fill the disk the store is on.
	space *freespace.Guard
}

// Create creates a new journal under root (root/<id>/journal) and locks it.
func Create(root string) (*Writer, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dir, err := newDir(root)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("journal: %w", err)
	}
	w := &Writer{file: file{dir: dir, f: f}, space: freespace.New(dir, nil)}
	fail := func(err error) (*Writer, error) {
		f.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("journal: create %s: %w", dir, err)
	}
	if err := lock(f); err != nil {
		return fail(err)
	}
	if _, err := f.WriteAt([]byte(magic), 0); err != nil {
		return fail(err)
	}
	w.off = int64(len(magic))
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := syncDir(dir); err != nil {
		return fail(err)
	}
	if err := syncDir(root); err != nil {
		return fail(err)
	}
	w.synced = w.off
	return w, nil
}

// newDir creates the directory of a new journal, named as doc.go says.
func newDir(root string) (string, error) {
	for range 8 {
		var r [2]byte
		_, _ = rand.Read(r[:])
		id := fmt.Sprintf("%s-%d-%s", time.Now().UTC().Format("20060102T150405Z"), os.Getpid(), hex.EncodeToString(r[:]))
		dir := filepath.Join(root, id)
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("journal: %w", err)
		}
	}
	return "", fmt.Errorf("journal: cannot find a free name under %s", root)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Append writes one record whose payload is the concatenation of parts, and returns the
// offset of its header. After a failed write the journal takes no more records: the partial
// record is cut off again if the file system allows, and otherwise left as a torn tail.
func (w *Writer) Append(t Type, parts ...[]byte) (int64, error) {
	if t == 0 {
		return 0, fmt.Errorf("journal: record type 0")
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > MaxPayload {
		return 0, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, n, MaxPayload)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.err != nil:
		return 0, w.err
	case w.done:
		return 0, ErrClosed
	}
	frame := slices.Grow(w.buf[:0], headerSize+n)[:headerSize]
	binary.LittleEndian.PutUint32(frame[4:8], uint32(n))
	frame[8] = byte(t)
	for _, p := range parts {
		frame = append(frame, p...)
	}
	binary.LittleEndian.PutUint32(frame[:4], checksum(frame[4:headerSize], frame[headerSize:]))
	if len(frame) <= 1<<20 {
		w.buf = frame // reuse small frames; large ones are garbage at once
	}
	off := w.off
	if err := w.space.Admit(int64(len(frame))); err != nil {
		w.err = fmt.Errorf("journal %s: %w", w.dir, err)
		return 0, w.err
	}
	if _, err := w.f.WriteAt(frame, off); err != nil {
		_ = w.f.Truncate(off)
		w.err = fmt.Errorf("journal %s: write: %w", w.dir, err)
		return 0, w.err
	}
	w.off += int64(len(frame))
	return off, nil
}

// Sync makes every record appended before the call durable (a group commit, see doc.go).
func (w *Writer) Sync() error {
	w.mu.Lock()
	end, werr := w.off, w.err
	w.mu.Unlock()
	if werr != nil {
		return werr
	}
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.synced >= end {
		return nil
	}
	w.mu.Lock()
	end = w.off // everything written by now is covered by this sync
	w.mu.Unlock()
	if err := w.f.Sync(); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = fmt.Errorf("journal %s: sync: %w", w.dir, err)
		}
		w.mu.Unlock()
		return fmt.Errorf("journal %s: sync: %w", w.dir, err)
	}
	w.synced = end
	return nil
}

// Finish syncs the journal and ends writing (a failed sync was already reported to the
// writer's Sync callers, and sealing reads what the kernel holds anyway). The lock is kept:
// the returned Journal reads what was written, and is sealed or closed by the same process.
func (w *Writer) Finish() *Journal {
	_ = w.Sync()
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	return &Journal{file: w.file}
}

// Abandon ends writing and releases the journal without reading it: it stays on disk for a
// later recovery.
func (w *Writer) Abandon() error {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	_ = w.f.Sync()
	return w.f.Close()
}

// Journal is a journal opened for reading (to seal or recover it), locked by this process.
type Journal struct {
	file
	closed bool
}

// Open opens the journal in dir for reading and locks it: ErrInUse while a live recorder
// holds it.
func Open(dir string) (*Journal, error) {
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%w: %s", ErrInUse, dir)
		}
		return nil, fmt.Errorf("journal: lock %s: %w", dir, err)
	}
	return &Journal{file: file{dir: dir, f: f}}, nil
}

// Tail says where the valid records of a journal end.
type Tail struct {
	// End is the end of the last valid record.
	End int64
	// Size is the file's size; Size > End means a torn tail of Size-End bytes.
	Size int64
}

// Torn is the number of bytes after the last valid record.
func (t Tail) Torn() int64 { return t.Size - t.End }

// Scan reads the records in order and passes each to fn. It stops at the end of the file or
// at the first record that is not whole and valid (the torn tail, see doc.go), and returns
// where the valid records end. An error of fn stops the scan and is returned.
func (j *Journal) Scan(fn func(Record) error) (Tail, error) {
	if j.closed {
		return Tail{}, ErrClosed
	}
	st, err := j.f.Stat()
	if err != nil {
		return Tail{}, fmt.Errorf("journal %s: %w", j.dir, err)
	}
	size := st.Size()
	r := bufio.NewReaderSize(io.NewSectionReader(j.f, 0, size), 256<<10)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return Tail{}, fmt.Errorf("%w: %s does not start with the journal magic", ErrNotJournal, j.dir)
	}
	off := int64(len(magic))
	var h [headerSize]byte
	var payload []byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return Tail{End: off, Size: size}, nil // the end, or a torn header
		}
		n := binary.LittleEndian.Uint32(h[4:8])
		if n > MaxPayload || h[8] == 0 || off+headerSize+int64(n) > size {
			return Tail{End: off, Size: size}, nil
		}
		if cap(payload) < int(n) {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			return Tail{End: off, Size: size}, nil
		}
		if checksum(h[4:], payload) != binary.LittleEndian.Uint32(h[:4]) {
			return Tail{End: off, Size: size}, nil
		}
		if err := fn(Record{Type: Type(h[8]), Payload: payload, Offset: off}); err != nil {
			return Tail{End: off, Size: size}, err
		}
		off += headerSize + int64(n)
	}
}

// Cut removes a torn tail: the file is truncated to end, and synced.
func (j *Journal) Cut(end int64) error {
	if err := j.f.Truncate(end); err != nil {
		return fmt.Errorf("journal %s: cut the torn tail: %w", j.dir, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: cut the torn tail: %w", j.dir, err)
	}
	return nil
}

// Remove deletes the journal (its directory) and releases it.
func (j *Journal) Remove() error {
	if err := os.RemoveAll(j.dir); err != nil {
		return fmt.Errorf("journal: remove %s: %w", j.dir, err)
	}
	_ = syncDir(filepath.Dir(j.dir))
	return j.Close()
}

// Close releases the journal, leaving it on disk.
func (j *Journal) Close() error {
	if j.closed {
		return nil
	}
	j.closed = true
	return j.f.Close()
}

// List returns the directories of the journals under root, oldest first. A missing root
// holds none.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
			out = append(out, dir)
		}
	}
	return out, nil // os.ReadDir sorts by name, and names start with the creation time
}
