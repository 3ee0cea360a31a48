package recorder

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// benchLog writes a generated audit log of size bytes (the full-size run is
// scripts/bench-record.sh).
func benchLog(b *testing.B, size int64) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := auditgen.Write(f, 1, size); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRecordFiles records a generated audit log into a fresh on-disk store: the one pass
// (checked, hashed, compressed, written) and the seal, with and without redaction.
func BenchmarkRecordFiles(b *testing.B) {
	path := benchLog(b, 64<<20)
	red, err := redact.New([]byte("0123456789abcdef-bench-key"), []string{"not-in-the-log-0001", "system:serviceaccount:oasis-eval:oasis-agent", "kube-system"})
	if err != nil {
		b.Fatal(err)
	}
	for name, r := range map[string]*redact.Redactor{"plain": nil, "redacted": red} {
		b.Run(name, func(b *testing.B) {
			opts := testOptions(b)
			opts.Redactor = r
			b.SetBytes(64 << 20)
			for b.Loop() {
				b.StopTimer()
				s, err := badgerstore.Open(filepath.Join(b.TempDir(), "store"), badgerstore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := RecordFiles(context.Background(), s, FilesInput{Scenario: filesScenario, AuditLog: path}, opts); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}
