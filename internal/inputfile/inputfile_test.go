package inputfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inputs makes one of each kind of file system object in a directory and returns the directory.
func inputs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "link-to-fifo")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "device")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "socket"))
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return dir
}

var kinds = []struct {
	name   string
	expect Expect
	says   string // "" when accepted
}{
	{"file", File, ""},
	{"file", FileOrDir, ""},
	{"file", Dir, "is a regular file, not a directory"},
	{"dir", Dir, ""},
	{"dir", FileOrDir, ""},
	{"dir", File, "is a directory, not a regular file"},
	{"fifo", File, "is a named pipe, not a regular file"},
	{"fifo", FileOrDir, "is a named pipe, not a regular file or a directory"},
	{"link-to-fifo", File, "is a named pipe"},
	{"device", File, "is a device, not a regular file"},
	{"socket", FileOrDir, "is a socket"},
}

func TestCheck(t *testing.T) {
	dir := inputs(t)
	for _, k := range kinds {
		t.Run(k.name+"/"+k.expect.String(), func(t *testing.T) {
			p := filepath.Join(dir, k.name)
			err := Check(p, k.expect)
			expectRefusal(t, p, err, k.says)
		})
	}
	if err := Check(filepath.Join(dir, "absent"), File); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check of a missing path = %v, want fs.ErrNotExist", err)
	}
}

func expectRefusal(t *testing.T, path string, err error, says string) {
	t.Helper()
	if says == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), says) {
		t.Fatalf("got %v, want ErrNotRegular naming %s and saying %q", err, path, says)
	}
}

// TestOpenDoesNotBlock: opening a named pipe with no writer, or a device, returns at once with
// an error naming it, directly or through a Root.
func TestOpenDoesNotBlock(t *testing.T) {
	dir := inputs(t)
	root, err := OpenRoot(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"file", "fifo", "link-to-fifo", "device"} {
		t.Run(name, func(t *testing.T) {
			says := ""
			if name != "file" {
				says = "not a regular file"
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				p := filepath.Join(dir, name)
				f, err := Open(t.Context(), p)
				expectRefusal(t, p, err, says)
				if err == nil {
					f.Close()
				}
				if name == "device" {
					return // outside the root
				}
				g, err := root.FS().Open(name)
				expectRefusal(t, name, err, says)
				if err == nil {
					g.Close()
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("open blocked")
			}
		})
	}
	if b, err := fs.ReadFile(root.FS(), "file"); err != nil || string(b) != "content" {
		t.Errorf("ReadFile through the root = %q, %v", b, err)
	}
	if entries, err := fs.ReadDir(root.FS(), "."); err != nil || len(entries) != 6 {
		t.Errorf("ReadDir through the root = %d entries, %v", len(entries), err)
	}
}

// TestReadsEndWithTheContext: once the command's context is done, reads fail with its error,
// through io.Copy too.
func TestReadsEndWithTheContext(t *testing.T) {
	dir := inputs(t)
	ctx, cancel := context.WithCancel(t.Context())
	f, err := Open(ctx, filepath.Join(dir, "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := io.Copy(io.Discard, f); !errors.Is(err, context.Canceled) {
		t.Fatalf("io.Copy after cancel = %v, want context.Canceled", err)
	}
}

// TestCheckSpecial refuses only what no reader reads, and leaves the rest to the reader.
func TestCheckSpecial(t *testing.T) {
	dir := inputs(t)
	for name, says := range map[string]string{"file": "", "dir": "", "absent": "", "fifo": "is a named pipe",
		"link-to-fifo": "is a named pipe", "device": "is a device", "socket": "is a socket"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			expectRefusal(t, p, CheckSpecial(p, File), says)
		})
	}
}
