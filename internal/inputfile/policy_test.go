package inputfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a directory "in" holding a file, a link to it, a link leading out of "in" to a
// file beside it, a dangling link and a sub-directory, and returns in's parent.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	for _, d := range []string{in, filepath.Join(in, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"in/file": "content", "secret": "not evidence", "in/sub/f": "sub"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"in/link": "file", "in/out": "../secret", "in/abs": filepath.Join(dir, "secret"),
		"in/dangling": "nowhere", "in/sub/up": "../file"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRootStaysInside: files read through a Root are inside it, its links resolved; a name
// leading out is ErrOutside naming where it leads, never its content.
func TestRootStaysInside(t *testing.T) {
	dir := tree(t)
	root, err := OpenRoot(t.Context(), filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	limit := Limit{Name: "test.Max", Bytes: 100}
	tests := []struct {
		name string
		want string // content, or the error's text
		is   error
	}{
		{"file", "content", nil},
		{"link", "content", nil},
		{"sub/up", "content", nil},
		{"out", "leads to " + filepath.Join(dir, "secret") + ", outside " + filepath.Join(dir, "in"), ErrOutside},
		{"abs", "outside", ErrOutside},
		{"../secret", "is not a path inside", ErrOutside},
		{"dangling", "", fs.ErrNotExist},
		{"absent", "", fs.ErrNotExist},
		{"sub", "is a directory", ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := root.ReadFile(tt.name, limit)
			if tt.is == nil {
				if err != nil || string(b) != tt.want {
					t.Fatalf("ReadFile = %q, %v; want %q", b, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile = %q, %v; want %v saying %q", b, err, tt.is, tt.want)
			}
		})
	}
	sub, err := root.Sub("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if b, err := sub.ReadFile("f", limit); err != nil || string(b) != "sub" {
		t.Errorf("sub/f = %q, %v", b, err)
	}
	if _, err := sub.ReadFile("up", limit); !errors.Is(err, ErrOutside) {
		t.Errorf("a link out of the sub-root = %v, want ErrOutside", err)
	}
	if name, err := root.Local(filepath.Join(dir, "in", "sub", "up")); err != nil || name != "file" {
		t.Errorf("Local = %q, %v; want file", name, err)
	}
}

// TestLimits: a file larger than the limit is refused by its size, naming the file and the
// limit; a stream is cut at the limit with the same reason.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "huge")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil { // sparse: nothing written
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	limit := Limit{Name: "test.MaxBytes", Bytes: 8}
	_, err = ReadFile(t.Context(), p, limit)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p+": 1099511627776 bytes, more than test.MaxBytes (8 bytes)") {
		t.Errorf("ReadFile of a huge file = %v", err)
	}
	r, err := Open(t.Context(), small)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r.Limited(limit))
	if !errors.Is(err, ErrTooLarge) || len(b) != 8 || !strings.Contains(err.Error(), small) {
		t.Errorf("a stream past the limit = %q, %v", b, err)
	}
	if b, err := ReadFile(t.Context(), small, Limit{Name: "x", Bytes: 10}); err != nil || string(b) != "0123456789" {
		t.Errorf("a file at the limit = %q, %v", b, err)
	}
}
