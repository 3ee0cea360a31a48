package inputfile

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrNotRegular: the input is not a regular file (or not a directory where one is expected).
var ErrNotRegular = errclass.New(errclass.Input, "inputfile: not a regular file")

// kind says what the file system holds at an input path.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// Expect says what an input may be.
type Expect int

const (
	// File: a regular file.
	File Expect = iota
	// Dir: a directory.
	Dir
	// FileOrDir: either.
	FileOrDir
)

func (e Expect) String() string {
	switch e {
	case Dir:
		return "a directory"
	case FileOrDir:
		return "a regular file or a directory"
	}
	return "a regular file"
}

// accepts reports whether mode is what e allows.
func (e Expect) accepts(m fs.FileMode) bool {
	switch e {
	case Dir:
		return m.IsDir()
	case FileOrDir:
		return m.IsDir() || m.IsRegular()
	}
	return m.IsRegular()
}

// Check stats path (following symbolic links) and refuses anything e does not allow. A missing
// path is the stat error, wrapped with the path.
func Check(path string, e Expect) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkMode(path, info.Mode(), e)
}

func checkMode(path string, m fs.FileMode, e Expect) error {
	if e.accepts(m) {
		return nil
	}
	return fmt.Errorf("%w: %s is %s, not %s", ErrNotRegular, path, kind(m), e)
}

// Open opens the regular file path for reading. The open does not block on a named pipe, and
// anything but a regular file is refused on the open descriptor. Reads end with ctx.
func Open(ctx context.Context, path string) (*Reader, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return checked(ctx, path, f)
}

// checked keeps f if it is a regular file, and closes it otherwise.
func checked(ctx context.Context, path string, f *os.File) (*Reader, error) {
	info, err := f.Stat()
	if err == nil {
		err = checkMode(path, info.Mode(), File)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Reader{File: f, ctx: ctx, path: path}, nil
}

// Reader is an open input file whose reads fail with the context's error once it is done.
type Reader struct {
	*os.File
	ctx  context.Context
	path string // as the caller named it, for messages
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.File.Read(p)
}

// WriteTo hides os.File's, which would read without looking at the context.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{r})
}

// Root is an input directory: files opened through it, by name relative to it and never
// outside it (os.Root), are regular files opened as by Open.
type Root struct {
	root *os.Root
	ctx  context.Context
	dir  string
}

// OpenRoot opens the directory dir.
func OpenRoot(ctx context.Context, dir string) (*Root, error) {
	if err := Check(dir, Dir); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{root: r, ctx: ctx, dir: dir}, nil
}

// Close releases the directory.
func (r *Root) Close() error { return r.root.Close() }

// FS returns the directory as a file system for fs.ReadFile, fs.ReadDir and fs.WalkDir:
// directories open as they are, files as by Open.
func (r *Root) FS() fs.FS { return rootFS{r} }

type rootFS struct{ r *Root }

// Open implements fs.FS.
func (f rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := f.r.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, f.r.explain(name, err)
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	if info.IsDir() {
		return file, nil
	}
	return checked(f.r.ctx, name, file)
}

// Stat implements fs.StatFS.
func (f rootFS) Stat(name string) (fs.FileInfo, error) { return f.r.root.FS().(fs.StatFS).Stat(name) }

// ReadDir implements fs.ReadDirFS.
func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.r.root.FS().(fs.ReadDirFS).ReadDir(name)
}

// CheckSpecial refuses path (its links followed) when it is a named pipe, a device or a socket,
// which no reader reads, saying it is not e; a path that does not exist, or is a file or a
// directory, is left to the reader. A command checks its inputs with it before anything else,
// whatever they are.
func CheckSpecial(path string, e Expect) error {
	info, err := os.Stat(path)
	if err != nil || info.Mode().IsRegular() || info.IsDir() {
		return nil
	}
	return checkMode(path, info.Mode(), e)
}
