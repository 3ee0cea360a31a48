// Package goldenfile is the project's one implementation of golden files: a test compares
// what it produced with a file under testdata, byte for byte, or rewrites the file when the
// package's tests run with -update. A difference fails the test with a line diff (go-cmp's
// rendering, for people) and the command that rewrites the file.
//
// Each test package keeps its own -update flag, since some use it for more than golden files,
// and passes its value to Check.
package goldenfile
