package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReportFileIsReadableByAll: eval report --html and --csv write through a temporary file,
// which os.CreateTemp makes private (0600); the report it becomes is for sharing.
func TestReportFileIsReadableByAll(t *testing.T) {
	name := filepath.Join(t.TempDir(), "report.html")
	if err := writeReportFile(name, func(w io.Writer) error { _, err := io.WriteString(w, "<html></html>"); return err }); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != reportFileMode {
		t.Errorf("report written %04o, want %04o", got, reportFileMode)
	}
}
