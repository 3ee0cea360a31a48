package demo

import (
	"embed"
	"io/fs"
)

// files holds the example profile (profile/) and the example run (run/), embedded so that the
// demo, the tests and the golden corpus need nothing but the binary.
//
//go:embed profile run
var files embed.FS

// FS returns the embedded example: the directories profile/ and run/.
func FS() fs.FS { return files }

// ProfileFS returns the example profile: a directory in the oasis-spec layout (profile.md,
// behavior-definitions.md, …, scenarios/**/*.yaml) that profiles.Load accepts.
func ProfileFS() fs.FS { return sub("profile") }

// RunFS returns the example run: an oasisctl output directory (verdict.json and
// evidence/evidence-<scenario id>.json) that recorder.RecordOasisctlFS records.
func RunFS() fs.FS { return sub("run") }

// sub roots the embedded files at dir. fs.Sub fails only for a malformed name, and both names
// are constants.
func sub(dir string) fs.FS {
	s, err := fs.Sub(files, dir)
	if err != nil {
		panic("demo: embedded directory " + dir + ": " + err.Error())
	}
	return s
}
