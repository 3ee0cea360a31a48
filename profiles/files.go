package profiles

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// Limits on a profile directory. The SI profile is 50 files and 275 KB; these leave room for
// much larger profiles while keeping a hostile directory from exhausting memory.
const (
	// MaxFileSize is the largest file a profile may hold.
	MaxFileSize = 8 << 20
	// MaxTotalSize caps the sum of all file sizes.
	MaxTotalSize = 64 << 20
	// MaxFiles caps the number of files.
	MaxFiles = 10_000
)

// fileSet is every regular file of a profile directory, read into memory once. Paths are
// slash-separated, relative to the profile root, and sorted bytewise (the profile tree order).
type fileSet struct {
	paths []string
	data  map[string][]byte
}

func (f *fileSet) get(path string) ([]byte, bool) {
	b, ok := f.data[path]
	return b, ok
}

// collectFiles reads every regular file under the root of fsys. Symlinks, devices, sockets and
// other non-regular files are refused (a profile tree holds files only, and following a link
// could read outside the profile); every such entry is named in one error.
func collectFiles(fsys fs.FS) (*fileSet, error) {
	files := &fileSet{data: map[string][]byte{}}
	var unsupported []string
	total := int64(0)
	err := fs.WalkDir(fsys, ".", func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() {
			return nil
		}
		if problem := unsupportedEntry(path, entry.Type()); problem != "" {
			unsupported = append(unsupported, path+" ("+problem+")")
			return nil
		}
		if len(files.paths) >= MaxFiles {
			return fmt.Errorf("%w: more than %d files", ErrTooLarge, MaxFiles)
		}
		data, err := readRegular(fsys, path)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > MaxTotalSize {
			return fmt.Errorf("%w: files add up to more than %d bytes", ErrTooLarge, MaxTotalSize)
		}
		files.paths = append(files.paths, path)
		files.data[path] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(unsupported) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedFile, strings.Join(unsupported, ", "))
	}
	// WalkDir visits each directory's entries in name order, which is not the bytewise order
	// of full paths ("a/b" sorts after "a-c"); the tree needs the latter.
	slices.Sort(files.paths)
	return files, nil
}

// unsupportedEntry says why a directory entry cannot be part of a profile tree, or "".
func unsupportedEntry(path string, mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "symlink"
	case !mode.IsRegular():
		return "not a regular file: " + mode.Type().String()
	case strings.ContainsAny(path, "\\\x00"):
		// store.ProfileTree paths are slash-separated and portable.
		return "name holds a backslash or NUL"
	}
	return ""
}

// readRegular reads one file, checking again that it is regular (it may have been replaced
// since the directory was listed) and no larger than MaxFileSize.
func readRegular(fsys fs.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: not a regular file", ErrUnsupportedFile, path)
	}
	if info.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s: %d bytes (limit %d)", ErrTooLarge, path, info.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s: more than %d bytes", ErrTooLarge, path, MaxFileSize)
	}
	return data, nil
}

// buildTree makes the profile tree object of a file set: every file as a blob descriptor in
// path order, plus the profile's identity. Its canonical encoding's digest is the Pin's Tree.
func buildTree(files *fileSet, meta Metadata, sourceCommit string) (store.ProfileTree, store.Digest, error) {
	tree := store.ProfileTree{
		ProfileID:      meta.ID,
		Version:        meta.Version,
		CoreDependency: meta.CoreDependency,
		SourceCommit:   sourceCommit,
		Entries:        make([]store.TreeEntry, 0, len(files.paths)),
	}
	for _, path := range files.paths {
		data := files.data[path]
		tree.Entries = append(tree.Entries, store.TreeEntry{
			Path: path,
			Blob: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: store.Sum(data), Size: int64(len(data))},
		})
	}
	_, desc, err := store.Encode(&tree)
	if err != nil {
		return store.ProfileTree{}, store.Digest{}, fmt.Errorf("profile tree of %s: %w", meta.ID, err)
	}
	return tree, desc.Digest, nil
}

// isHex reports whether s is lowercase hexadecimal.
func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// checkSourceCommit accepts "" or a full git object id (40 hex for SHA-1, 64 for SHA-256):
// a pin records the exact commit, never an abbreviation (Provider Conformance §5.3).
func checkSourceCommit(commit string) error {
	if commit == "" || ((len(commit) == 40 || len(commit) == 64) && isHex(commit)) {
		return nil
	}
	return fmt.Errorf("%w: source commit %q is not a full lowercase git object id (40 or 64 hex)", ErrInvalidOption, commit)
}
