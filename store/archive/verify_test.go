package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// failingReader returns the first n bytes of r, then err.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

// TestReadFailureIsNotBlamedOnTheArchive checks that a failing input (a disk or network error)
// is reported as such, not as a corrupt archive.
func TestReadFailureIsNotBlamedOnTheArchive(t *testing.T) {
	archive := export(t, buildSyntheticBundle(t), ExportOptions{})
	diskError := errors.New("input/output error")
	for _, cut := range []int{0, 100, len(archive) / 2, len(archive) - 1} {
		_, err := Verify(context.Background(), &failingReader{r: bytes.NewReader(archive), n: cut, err: diskError}, Limits{})
		if !errors.Is(err, diskError) {
			t.Errorf("input failing after %d bytes: Verify error = %v, want the input's error", cut, err)
		}
		for _, sentinel := range sentinels {
			if errors.Is(err, sentinel) {
				t.Errorf("input failing after %d bytes: %v blames the archive (%v)", cut, err, sentinel)
			}
		}
	}
}

func TestVerifyReport(t *testing.T) {
	tb := buildSyntheticBundle(t)
	report, err := Verify(context.Background(), bytes.NewReader(export(t, tb, ExportOptions{})), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var objects, blobs int
	var content int64
	for _, e := range report.Entries {
		if e.Kind == "" {
			blobs++
		} else {
			objects++
		}
		content += e.Size
	}
	if objects != report.Objects || blobs != report.Blobs || content != report.ContentBytes {
		t.Errorf("entries add up to %d objects, %d blobs, %d bytes; summary says %+v", objects, blobs, content, report.Summary)
	}
	// The synthetic bundle: manifest, profile tree, two scenario evidences; three profile
	// files, two observation payloads, the conformance answer and the claimed report.
	if objects != 4 || blobs != 7 {
		t.Errorf("%d objects and %d blobs, want 4 and 7", objects, blobs)
	}
}
