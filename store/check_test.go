package store_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

func TestCheck(t *testing.T) {
	type want struct {
		kind    store.ProblemKind
		ref     string // expected Problem.Ref, or ""
		mention string
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, s *storeUnderTest) (at store.Digest)
		want    []want
	}{
		{
			name:    "sealed bundle",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest { s.sealed(t, 1); return store.Digest{} },
		},
		{
			name: "unreferenced content is garbage, not damage",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				storetest.NewBundle(t, 2, 30<<10).Store(t, s)
				return store.Digest{}
			},
		},
		{
			name: "orphan chunks are garbage",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				d := storetest.Put(t, s, storetest.LogBytes(3, 50<<10))
				if err := s.Delete(t.Context(), d); err != nil {
					t.Fatal(err)
				}
				return store.Digest{}
			},
		},
		{
			name: "object refers to a missing blob",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				b := storetest.NewBundle(t, 4, 100)
				putObjects(t, s, b.Objects[1])
				s.setRef(t, "test/holder", store.Sum(b.Objects[1]))
				return store.Sum(b.Objects[1])
			},
			want: []want{{kind: store.ProblemMissingReference, mention: "is not in the store"}},
		},
		{
			// A failed import or an interrupted write can leave an object without the blobs
			// it names; no ref reaches it, so it is garbage, not damage.
			name: "unreachable object refers to a missing blob",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				b := storetest.NewBundle(t, 4, 100)
				putObjects(t, s, b.Objects[1])
				return store.Digest{}
			},
		},
		{
			name: "chunk list names a missing chunk",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				d := storetest.Put(t, s, storetest.LogBytes(5, 50<<10))
				e, _ := s.Stat(t.Context(), d)
				if err := s.DeleteChunk(t.Context(), e.Chunks[3]); err != nil {
					t.Fatal(err)
				}
				return d
			},
			want: []want{{kind: store.ProblemMissingChunk, mention: "chunk 4 of"}},
		},
		{
			name: "descriptor size disagrees",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				storetest.Put(t, s, []byte("abc"))
				doc, desc := storetest.Encode(t, &store.ScenarioEvidence{ScenarioID: "s", Observations: []store.Observation{{Type: "audit_log",
					Data: store.Descriptor{MediaType: store.MediaTypeJSON, Digest: store.Sum([]byte("abc")), Size: 2}}}})
				putObjects(t, s, doc)
				s.setRef(t, "test/holder", desc.Digest)
				return desc.Digest
			},
			want: []want{{kind: store.ProblemBadDescriptor, mention: "with size 2"}},
		},
		{
			name: "descriptor kind disagrees",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				x := storetest.Put(t, s, []byte("{}"))
				doc, desc := storetest.Encode(t, &store.Receipt{Bundle: x, Profile: x, Verdict: x})
				putObjects(t, s, doc)
				s.setRef(t, store.ReceiptRefName(desc.Digest), desc.Digest)
				return desc.Digest
			},
			want: []want{
				{kind: store.ProblemBadDescriptor, mention: "as a profile-tree"},
				{kind: store.ProblemBadDescriptor, mention: "as a run-manifest"},
				{kind: store.ProblemBadDescriptor, mention: "as a verdict"},
			},
		},
		{
			name: "dangling ref",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				s.setRef(t, "tags/gone", store.Sum([]byte("gone")))
				return store.Digest{}
			},
			want: []want{{kind: store.ProblemMissingReference, ref: "tags/gone", mention: "not in the store"}},
		},
		{
			name: "bundle ref to a blob",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				d := storetest.Put(t, s, []byte("not a manifest"))
				s.setRef(t, store.BundleRefName(d), d)
				return store.Digest{}
			},
			want: []want{{kind: store.ProblemBadRef, ref: "bundles/", mention: "a raw blob rather than a bundle manifest"}},
		},
		{
			name: "bundle ref named after another digest",
			prepare: func(t *testing.T, s *storeUnderTest) store.Digest {
				d := s.sealed(t, 6)
				s.setRef(t, store.BundleRefName(store.Sum([]byte("other"))), d)
				return store.Digest{}
			},
			want: []want{{kind: store.ProblemBadRef, ref: "bundles/", mention: "not at the digest in its name"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &storeUnderTest{newStore(t)}
			at := tc.prepare(t, s)
			var progress []store.CheckProgress
			report, err := store.Check(t.Context(), s, store.CheckOptions{Progress: func(p store.CheckProgress) { progress = append(progress, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(report.Problems) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %v", len(report.Problems), len(tc.want), report.Problems)
			}
			for i, w := range tc.want {
				p := report.Problems[i]
				if p.Kind != w.kind || !strings.HasPrefix(p.Ref, w.ref) || (w.ref == "" && p.Digest != at) || !strings.Contains(p.Message, w.mention) {
					t.Errorf("problem %d = %+v, want kind %s at %s%s mentioning %q", i, p, w.kind, at, w.ref, w.mention)
				}
			}
			if n := len(progress); n > 0 && progress[n-1].EntriesDone != progress[n-1].EntriesTotal || n == 0 && report.Blobs+report.Objects > 0 {
				t.Errorf("progress did not reach the total: %v", progress)
			}
			again, err := store.Check(t.Context(), s, store.CheckOptions{Workers: 1})
			if err != nil || !reflect.DeepEqual(again, report) {
				t.Errorf("a second check with one worker reports differently:\n%+v\n%+v", report, again)
			}
		})
	}
}

func TestCheckCounts(t *testing.T) {
	s := &storeUnderTest{newStore(t)}
	s.sealed(t, 7)
	orphan := storetest.Put(t, s, storetest.LogBytes(8, 20<<10))
	e, err := s.Stat(t.Context(), orphan)
	if err != nil {
		t.Fatal(err)
	}
	orphanChunks := len(e.Chunks)
	if err := s.Delete(t.Context(), orphan); err != nil {
		t.Fatal(err)
	}
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("Check = %v, %v", report, err)
	}
	var entries, chunks int
	var logical int64
	s.Walk(t.Context(), func(e store.Entry) error {
		if e.Chunk {
			chunks++
		} else {
			entries++
			logical += e.Size
		}
		return nil
	})
	if got := report.Blobs + report.Objects; got != entries || report.Chunks != chunks || report.Refs != 1 || report.ChunkedBlobs != 1 {
		t.Fatalf("report %+v; store has %d blobs and objects, %d chunks", report, entries, chunks)
	}
	// The orphan's chunks are decoded, not hashed: they cannot be verified without a chunk list.
	if report.BytesChecked != logical {
		t.Fatalf("BytesChecked %d, want the %d logical bytes of the blobs and objects", report.BytesChecked, logical)
	}
	if report.OrphanChunks != orphanChunks || orphanChunks < 2 {
		t.Fatalf("OrphanChunks = %d, want the %d chunks of the deleted blob", report.OrphanChunks, orphanChunks)
	}
}

// storeUnderTest adds setup helpers to the engine, keeping its optional interfaces
// (ChunkDecoder, ChunkDeleter, Compactor) visible to the code under test.
type storeUnderTest struct{ *badgerstore.Store }

func (s *storeUnderTest) sealed(t *testing.T, seed uint64) store.Digest {
	t.Helper()
	b := storetest.NewBundle(t, seed, 30<<10)
	b.Store(t, s)
	d, err := store.Seal(t.Context(), s, b.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (s *storeUnderTest) setRef(t *testing.T, name string, d store.Digest) {
	t.Helper()
	if err := s.SetRef(t.Context(), name, d); err != nil {
		t.Fatal(err)
	}
}

func TestCheckCountsDanglingGarbage(t *testing.T) {
	s := &storeUnderTest{newStore(t)}
	b := storetest.NewBundle(t, 4, 100)
	putObjects(t, s, b.Objects[1])
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !report.OK() || report.DanglingGarbage == 0 {
		t.Fatalf("problems %v, dangling garbage %d: want none and some", report.Problems, report.DanglingGarbage)
	}
}
