package badgerstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// Benchmarks run on disk with the default options, as the CLI uses the store. Throughput is
// per byte of content; the store's compression ratio on the generated audit log is about 13×.

func openBench(b *testing.B, opts Options) *Store {
	b.Helper()
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkPutBlob stores distinct content each time (a small JSON document, or a 64 MiB
// audit log into a fresh store), then syncs.
func BenchmarkPutBlob(b *testing.B) {
	ctx := context.Background()
	b.Run("4KiB", func(b *testing.B) {
		s := openBench(b, Options{})
		doc := generatedLog(b, 3, 4<<10)
		b.SetBytes(int64(len(doc)))
		i := 0
		for b.Loop() {
			i++
			copy(doc, fmt.Sprintf("%08d", i)) // distinct content each time
			if _, _, err := s.PutBlob(ctx, bytes.NewReader(doc)); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("64MiB", func(b *testing.B) {
		data := generatedLog(b, 1, 64<<20)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			b.StopTimer()
			s, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, _, err := s.PutBlob(ctx, bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
			if err := s.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkOpenBlob reads back and verifies a 64 MiB chunked audit log.
func BenchmarkOpenBlob(b *testing.B) {
	ctx := context.Background()
	s := openBench(b, Options{})
	data := generatedLog(b, 1, 64<<20)
	d, _, err := s.PutBlob(ctx, bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 256<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, _, err := s.OpenBlob(ctx, d)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkCheck verifies a store holding a 64 MiB audit log and 20 sealed small bundles.
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	s := openBench(b, Options{})
	if _, _, err := s.PutBlob(ctx, bytes.NewReader(generatedLog(b, 1, 64<<20))); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		bundle := storetest.NewBundle(b, uint64(i), 64<<10)
		bundle.Store(b, s)
		if _, err := store.Seal(ctx, s, bundle.Manifest); err != nil {
			b.Fatal(err)
		}
	}
	var bytesChecked int64
	for b.Loop() {
		r, err := store.Check(ctx, s, store.CheckOptions{})
		if err != nil || !r.OK() {
			b.Fatalf("Check: %v %v", err, r)
		}
		bytesChecked = r.BytesChecked
	}
	b.SetBytes(bytesChecked)
}

// BenchmarkSeal seals a bundle whose content is stored: closure check, manifest, sync, ref.
func BenchmarkSeal(b *testing.B) {
	ctx := context.Background()
	s := openBench(b, Options{})
	bundle := storetest.NewBundle(b, 1, 64<<10)
	bundle.Store(b, s)
	i := 0
	for b.Loop() {
		i++
		m := *bundle.Manifest
		m.Annotations = map[string]string{"run": fmt.Sprint(i)} // a new bundle each time
		if _, err := store.Seal(ctx, s, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSession writes a session of twelve small documents like those of the session before
// and syncs, which cuts them into a pack with the earlier pack as base; then reads them back.
// The stored bytes per session are reported.
func BenchmarkSession(b *testing.B) {
	ctx := context.Background()
	s := openBench(b, Options{})
	run := 0
	session := func() []store.Digest {
		run++
		return putSession(b, s, 0, run)
	}
	session() // the base
	var stored int64
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			for _, d := range session() {
				e, err := s.Stat(ctx, d)
				if err != nil {
					b.Fatal(err)
				}
				stored += e.StoredSize
			}
		}
		b.ReportMetric(float64(stored)/float64(b.N), "stored-B/session")
	})
	ds := session()
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			s.packs.cache.drop(s.packs.next - 1) // decode the pack each time
			for _, d := range ds {
				r, _, err := s.OpenBlob(ctx, d)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		}
	})
}
