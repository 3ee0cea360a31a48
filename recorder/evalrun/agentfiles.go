package evalrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrAgentFiles: the agent's files cannot be hashed as given (a pattern that is malformed or
// matches nothing, an unreadable file, more than the hashing limits allow).
var ErrAgentFiles = errclass.New(errclass.Input, "evalrun: agent files")

// AgentFile is one file of the agent, by content: its path as the command line or the
// --agent-files pattern named it (cleaned, '/'-separated), and the SHA-256 of its bytes. A
// symbolic link to a directory met inside a directory named by a pattern is not followed: it is
// kept as its target's text (Link), without a digest.
type AgentFile struct {
	Path   string       `json:"path"`
	Digest store.Digest `json:"digest,omitzero"`
	Link   string       `json:"link,omitempty"`
}

// Limits of hashing an agent's files: the files are hashed every time a run or a matrix is
// planned, so an argument that is a large data file, or a pattern naming a tree of
// dependencies, would cost that much reading every time; past the limits planning stops with an
// error that says to name the agent's own files (docs/decisions.md, "Eval Library: the agent's
// files are part of its identity").
const (
	MaxAgentFiles = 10_000
	MaxAgentBytes = 256 << 20
)

// The limits in force; tests lower them.
var maxAgentFiles, maxAgentBytes int64 = MaxAgentFiles, MaxAgentBytes

// FileAgent is an agent whose identity includes the content of files: a command (its program
// when given as a path, its arguments that are files) or any agent given --agent-files
// patterns. AgentFiles reads and hashes them now, so each plan sees the files as they are when
// it is made.
type FileAgent interface {
	AgentFiles() ([]AgentFile, error)
}

// NewAgentFiles is NewAgent for an agent whose files are named by patterns (--agent-files,
// filepath.Match syntax, relative to the working directory): with patterns, the files they match
// are the agent's files, in place of those its command line names.
func NewAgentFiles(spec, version string, patterns []string, limits Limits) (Agent, error) {
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("%w: --agent-files: an empty pattern", ErrAgentFiles)
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%w: --agent-files %q: %v", ErrAgentFiles, p, err)
		}
	}
	a, err := NewAgent(spec, version, limits)
	if err != nil {
		return nil, err
	}
	switch a := a.(type) {
	case *commandAgent:
		a.patterns = slices.Clone(patterns)
	case *httpAgent:
		a.patterns = slices.Clone(patterns)
	}
	return a, nil
}

// AgentFiles implements FileAgent. Without patterns the files are those the command line names:
// the program when it is given as a path (it contains a '/'; a bare name is looked up on PATH
// and is an installed program, such as python3, not the agent), and every argument that names
// an existing regular file, relative to the working directory.
func (a *commandAgent) AgentFiles() ([]AgentFile, error) {
	if len(a.patterns) > 0 {
		return hashPatterns(a.patterns)
	}
	h := newFileHasher()
	for i, arg := range a.argv {
		if i == 0 && !strings.ContainsRune(arg, '/') && !strings.ContainsRune(arg, filepath.Separator) {
			continue
		}
		if fi, err := os.Stat(arg); err != nil || !fi.Mode().IsRegular() {
			continue // not a file: an option, a word, a directory, a device
		}
		if err := h.file(arg, "the agent's command line"); err != nil {
			return nil, err
		}
	}
	return h.sorted(), nil
}

// AgentFiles implements FileAgent: an endpoint has files only when patterns name them (the
// code of a local server).
func (a *httpAgent) AgentFiles() ([]AgentFile, error) {
	if len(a.patterns) == 0 {
		return nil, nil
	}
	return hashPatterns(a.patterns)
}

// hashPatterns hashes every file the patterns match; a directory matched stands for every
// regular file below it. A pattern matching nothing is an error, as a mistyped name would
// otherwise leave the agent's files out of its identity silently.
func hashPatterns(patterns []string) ([]AgentFile, error) {
	h := newFileHasher()
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("%w: --agent-files %q: %v", ErrAgentFiles, p, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%w: --agent-files %q matches no file", ErrAgentFiles, p)
		}
		for _, m := range matches {
			if err := h.match(m, p); err != nil {
				return nil, err
			}
		}
	}
	return h.sorted(), nil
}

type fileHasher struct {
	files map[string]AgentFile
	bytes int64
}

func newFileHasher() *fileHasher { return &fileHasher{files: map[string]AgentFile{}} }

// match adds what a pattern matched: a file (a link to one followed), or every file below a
// directory.
func (h *fileHasher) match(path, pattern string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: --agent-files %q: %v", ErrAgentFiles, pattern, err)
	}
	switch {
	case fi.IsDir():
		return h.tree(path, pattern)
	case fi.Mode().IsRegular():
		return h.file(path, fmt.Sprintf("--agent-files %q", pattern))
	}
	return fmt.Errorf("%w: --agent-files %q: %s is %s, not a regular file or a directory", ErrAgentFiles, pattern, path, describeMode(fi.Mode()))
}

// describeMode names what a path that is neither a file nor a directory is.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "of mode " + m.Type().String()
}

// tree adds every regular file below root, in lexical order. Hidden entries (a name starting
// with '.', such as .git or .venv) and __pycache__ directories are skipped: they are not the
// agent's code, and Python writes its caches while the agent runs, which would change the
// identity between two plans. A symbolic link to a file is followed; one to a directory, or a
// dangling one, is kept as its target's text; sockets, pipes and devices are left out.
func (h *fileHasher) tree(root, pattern string) error {
	what := fmt.Sprintf("--agent-files %q", pattern)
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrAgentFiles, what, err)
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.IsDir() && d.Name() == "__pycache__") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				return h.file(path, what)
			}
			target, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrAgentFiles, what, err)
			}
			return h.add(AgentFile{Path: cleanPath(path), Link: target}, 0, what)
		case d.Type().IsRegular():
			return h.file(path, what)
		}
		return nil
	})
}

// file hashes one regular file.
func (h *fileHasher) file(path, what string) error {
	key := cleanPath(path)
	if _, ok := h.files[key]; ok {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrAgentFiles, what, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrAgentFiles, what, err)
	}
	if err := h.room(key, fi.Size(), what); err != nil {
		return err
	}
	d := store.NewDigester()
	// Read at most what is left under the limit, plus one byte to notice a file that grew.
	n, err := io.Copy(d, io.LimitReader(f, maxAgentBytes-h.bytes+1))
	if err != nil {
		return fmt.Errorf("%w: %s: reading %s: %v", ErrAgentFiles, what, path, err)
	}
	return h.add(AgentFile{Path: key, Digest: d.Digest()}, n, what)
}

// room checks that one more file of size bytes stays within the limits.
func (h *fileHasher) room(path string, size int64, what string) error {
	switch {
	case int64(len(h.files)) >= maxAgentFiles:
		return fmt.Errorf("%w: %s: more than %d files to hash (at %s); name the agent's own files with --agent-files", ErrAgentFiles, what, maxAgentFiles, path)
	case h.bytes+size > maxAgentBytes:
		return fmt.Errorf("%w: %s: %s (%d bytes) takes the files to hash past the limit of %d bytes; name the agent's own files with --agent-files, or label its version with --agent-version",
			ErrAgentFiles, what, path, size, maxAgentBytes)
	}
	return nil
}

func (h *fileHasher) add(f AgentFile, n int64, what string) error {
	if err := h.room(f.Path, n, what); err != nil {
		return err
	}
	h.files[f.Path] = f
	h.bytes += n
	return nil
}

// sorted returns the files by path: the identity depends on the files, not on the order the
// patterns or the command line named them.
func (h *fileHasher) sorted() []AgentFile {
	out := make([]AgentFile, 0, len(h.files))
	for _, f := range h.files {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b AgentFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func cleanPath(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// FilesOf returns the files of agent a as they are now: nil for an agent that has none.
func FilesOf(a Agent) ([]AgentFile, error) {
	fa, ok := a.(FileAgent)
	if !ok {
		return nil, nil
	}
	files, err := fa.AgentFiles()
	if err != nil && !errors.Is(err, ErrAgentFiles) {
		err = fmt.Errorf("%w: %v", ErrAgentFiles, err)
	}
	return files, err
}
