package inputfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrTooLarge: an input is larger than the named limit of the reader that reads it.
var ErrTooLarge = errclass.New(errclass.Input, "inputfile: too large")

// ErrOutside: a file named inside an input directory leads outside it, through a symbolic link,
// a "..", or an absolute path.
var ErrOutside = errclass.New(errclass.Input, "inputfile: outside the directory")

// Limit is a named bound on the bytes a reader takes from one input. The name is the constant a
// user finds in the README ("Untrusted input") and in the error.
type Limit struct {
	Name  string
	Bytes int64
}

func (l Limit) String() string { return fmt.Sprintf("%s (%d bytes)", l.Name, l.Bytes) }

// tooLarge is the error for path, of size bytes (or more: size < 0 when it grew while read).
func tooLarge(path string, size int64, l Limit) error {
	if size < 0 {
		return fmt.Errorf("%w: %s: more than %s", ErrTooLarge, path, l)
	}
	return fmt.Errorf("%w: %s: %d bytes, more than %s", ErrTooLarge, path, size, l)
}

// ReadFile reads the regular file path whole, as Open opens it, refusing one larger than
// limit: by its size before anything is read, and by what it yields (a file growing while it
// is read).
func ReadFile(ctx context.Context, path string, limit Limit) ([]byte, error) {
	f, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.readAll(limit)
}

// readAll reads the rest of r, at most limit.
func (r *Reader) readAll(limit Limit) ([]byte, error) {
	info, err := r.File.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit.Bytes {
		return nil, tooLarge(r.path, info.Size(), limit)
	}
	buf := make([]byte, 0, info.Size()+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit.Bytes {
			return nil, tooLarge(r.path, -1, limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Limited returns r as a reader of at most limit bytes: a read past it fails with ErrTooLarge
// naming the file, so that a streaming decoder stops at the limit with the reason.
func (r *Reader) Limited(limit Limit) io.Reader {
	return &limited{r: r, limit: limit, left: limit.Bytes}
}

type limited struct {
	r     *Reader
	limit Limit
	left  int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, tooLarge(l.r.path, -1, l.limit)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), tooLarge(l.r.path, -1, l.limit)
	}
	return n, err
}

// Dir is the directory the root was opened on, as it was named.
func (r *Root) Dir() string { return r.dir }

// Path is name (slash-separated, relative to the root) as a path, for messages.
func (r *Root) Path(name string) string { return filepath.Join(r.dir, filepath.FromSlash(name)) }

// Open opens the regular file name (slash-separated, relative to the root) for reading, as
// the package-level Open does, never outside the root: a name whose symbolic links lead out of
// it is ErrOutside, naming where it leads. The error names the path as Path does.
func (r *Root) Open(name string) (*Reader, error) {
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return nil, fmt.Errorf("%w: %s is not a path inside %s", ErrOutside, name, r.dir)
	}
	f, err := r.root.OpenFile(filepath.FromSlash(name), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, r.explain(name, err)
	}
	return checked(r.ctx, r.Path(name), f)
}

// ReadFile reads the regular file name inside the root whole, at most limit.
func (r *Root) ReadFile(name string, limit Limit) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.readAll(limit)
}

// Sub opens the directory name inside the root as a root of its own, never outside this one:
// what is read through it stays inside name.
func (r *Root) Sub(name string) (*Root, error) {
	sub, err := r.root.OpenRoot(filepath.FromSlash(name))
	if err != nil {
		return nil, r.explain(name, err)
	}
	return &Root{root: sub, ctx: r.ctx, dir: r.Path(name)}, nil
}

// Local is the name inside the root of the file at p (absolute, or relative to the working
// directory), its symbolic links resolved: ErrOutside, naming where it leads, when that is not
// inside the root.
func (r *Root) Local(p string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%w: %s leads to %s, outside %s", ErrOutside, p, real, r.dir)
	}
	return filepath.ToSlash(rel), nil
}

// explain turns the error of an open of name through the root into one that says why: os.Root
// refuses a name whose links leave the root with an error of its own ("path escapes from
// parent"); when name exists and resolves outside the root, the error says where it leads.
func (r *Root) explain(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(r.Path(name)); lerr != nil {
			return err
		}
		// A dangling link, or one leading out: EvalSymlinks says which.
	}
	p := r.Path(name)
	if _, lerr := r.Local(p); errors.Is(lerr, ErrOutside) {
		return lerr
	}
	return err
}
