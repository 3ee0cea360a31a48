package evalrun

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/freespace"
	"github.com/oasis-replay/oasis-replay/recorder/command"
)

// An HTTP endpoint's answer spooled to a file keeps the store's free-space margin, as a command
// agent's captured streams do: an endpoint answering megabytes must not fill the file system.
func TestHTTPAnswerKeepsFreeSpaceMargin(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, 4<<20))
	}))
	defer srv.Close()
	a, err := NewAgent(srv.URL, "", Limits{MaxAnswer: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		free int64
		fail bool
	}{
		{"room for the answer", freespace.Margin + 64<<20, false},
		{"answer would cross the margin", freespace.Margin + 1<<20, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The file system's free space less what the spool has written so far.
			freeSpace = func(dir string) (int64, error) { return tt.free - written(t, dir), nil }
			defer func() { freeSpace = nil }()
			r, err := a.Ask(t.Context(), []byte(`{}`), t.TempDir())
			if !tt.fail {
				if err != nil || r.Answer.Size != 4<<20 {
					t.Fatalf("Ask = %v, answer %d bytes; want the whole answer spooled", err, r.Answer.Size)
				}
				return
			}
			if !errors.Is(err, command.ErrSpool) || !errors.Is(err, freespace.ErrNoSpace) || !strings.Contains(err.Error(), "margin") {
				t.Fatalf("Ask = %v, want a spool failure naming the free-space margin", err)
			}
		})
	}
}

// written is the bytes of the files in dir.
func written(t *testing.T, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := os.Stat(filepath.Join(dir, e.Name())); err == nil {
			n += info.Size()
		}
	}
	return n
}
