// Package profiledir reads an OASIS profile directory on disk. It is the one place where
// profiles meet the file system: package profiles works on an fs.FS so that the evaluator,
// which imports it, never reaches os.
//
// The directory is opened with os.Root, so no path inside it, symlink or not, can resolve
// outside it; package profiles refuses symlinks and non-regular files altogether.
package profiledir
