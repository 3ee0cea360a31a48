package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// hostileCase is an archive that must be refused with a specific error, by Verify and by Import.
type hostileCase struct {
	name    string
	archive func(t *testing.T, c *crafted) []byte
	limits  Limits
	wantErr error
	wantMsg string // a fragment of the message: the entry, digest or limit concerned
}

// alter rebuilds the base archive after fn has changed its entries.
func alter(fn func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry) func(*testing.T, *crafted) []byte {
	return func(t *testing.T, c *crafted) []byte {
		return zst(t, tarOf(t, fn(t, c, c.baseEntries()), true))
	}
}

// insertAfterIndex puts extra entries right after index.json.
func insertAfterIndex(extra ...fakeEntry) func(*testing.T, *crafted) []byte {
	return alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
		return slices.Insert(entries, 2, extra...)
	})
}

// replaceBlob swaps the entry of the shared audit-log blob for e.
func replaceBlob(e func(name string, body []byte) fakeEntry) func(*testing.T, *crafted) []byte {
	return alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
		i := find(t, entries, blobName(c.base.auditLog))
		entries[i] = e(entries[i].hdr.Name, entries[i].body)
		return entries
	})
}

// plainTar rebuilds the base archive's tar stream, lets fn change its bytes, and recompresses.
func plainTar(fn func(t *testing.T, c *crafted, plain []byte) []byte) func(*testing.T, *crafted) []byte {
	return func(t *testing.T, c *crafted) []byte {
		return zst(t, fn(t, c, tarOf(t, c.baseEntries(), true)))
	}
}

func hostileCases() []hostileCase {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	return []hostileCase{
		// Path tricks.
		{name: "path traversal ../x", archive: insertAfterIndex(regular("../x", []byte("pwned"))),
			wantErr: ErrUnsafePath, wantMsg: `"../x" climbs out`},
		{name: "traversal through blobs/sha256/../../x", archive: insertAfterIndex(regular("blobs/sha256/../../x", []byte("pwned"))),
			wantErr: ErrUnsafePath, wantMsg: `"blobs/sha256/../../x"`},
		{name: "absolute path", archive: insertAfterIndex(regular("/etc/cron.d/x", []byte("pwned"))),
			wantErr: ErrUnsafePath, wantMsg: `"/etc/cron.d/x" is absolute`},
		{name: "backslash path", archive: insertAfterIndex(regular(`..\..\x`, []byte("pwned"))),
			wantErr: ErrUnsafePath, wantMsg: "backslash"},
		{name: "non-UTF-8 name", archive: insertAfterIndex(rawEntry("blobs/sha256/\xff\xfe", tar.TypeReg, []byte("x"))),
			wantErr: ErrBadName, wantMsg: "not valid UTF-8"},
		{name: "overlong name", archive: insertAfterIndex(regular(strings.Repeat("a/", 149)+"aa", []byte("x"))),
			wantErr: ErrBadName, wantMsg: "name of 300 bytes"},
		{name: "file directly in blobs/", archive: insertAfterIndex(regular("blobs/x", []byte("x"))),
			wantErr: ErrBadName, wantMsg: `"blobs/x" is not an entry`},
		{name: "blob name in uppercase hex", archive: insertAfterIndex(regular(blobPrefix+strings.ToUpper(store.Sum(nil).Hex()), nil)),
			wantErr: ErrBadName, wantMsg: "64 lowercase hex"},
		{name: "blob name too short", archive: insertAfterIndex(regular("blobs/sha256/abc123", nil)),
			wantErr: ErrBadName, wantMsg: `"blobs/sha256/abc123"`},
		{name: "sha512 blob", archive: insertAfterIndex(regular("blobs/sha512/"+strings.Repeat("ab", 64), nil)),
			wantErr: ErrUnsupportedDigest, wantMsg: "only sha256"},

		// Entry types.
		{name: "symlink", archive: replaceBlob(func(name string, _ []byte) fakeEntry { return special(name, tar.TypeSymlink, "/etc/passwd") }),
			wantErr: ErrEntryType, wantMsg: `symbolic link to "/etc/passwd"`},
		{name: "hard link", archive: replaceBlob(func(name string, _ []byte) fakeEntry { return special(name, tar.TypeLink, layoutName) }),
			wantErr: ErrEntryType, wantMsg: "hard link"},
		{name: "character device", archive: replaceBlob(func(name string, _ []byte) fakeEntry { return special(name, tar.TypeChar, "") }),
			wantErr: ErrEntryType, wantMsg: "device node"},
		{name: "block device", archive: replaceBlob(func(name string, _ []byte) fakeEntry { return special(name, tar.TypeBlock, "") }),
			wantErr: ErrEntryType, wantMsg: "device node"},
		{name: "FIFO", archive: replaceBlob(func(name string, _ []byte) fakeEntry { return special(name, tar.TypeFifo, "") }),
			wantErr: ErrEntryType, wantMsg: "FIFO"},
		{name: "sparse file", archive: replaceBlob(func(name string, _ []byte) fakeEntry {
			pax := rawEntry("PaxHeaders.0/x", tar.TypeXHeader, paxRecords(
				"GNU.sparse.major", "0", "GNU.sparse.minor", "1", "GNU.sparse.numblocks", "1",
				"GNU.sparse.map", "0,5", "GNU.sparse.size", "5"))
			file := rawEntry(name, tar.TypeReg, []byte("zeros"))
			return fakeEntry{raw: append(pax.raw, file.raw...)}
		}), wantErr: ErrEntryType, wantMsg: "sparse file"},
		{name: "global PAX header", archive: insertAfterIndex(fakeEntry{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
			PAXRecords: map[string]string{"comment": "changes every later entry"}, Format: tar.FormatPAX}}),
			wantErr: ErrEntryType, wantMsg: "global PAX header"},
		{name: "blobs/sha256/ as a regular file", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[3] = rawEntry(blobPrefix, tar.TypeReg, nil)
			return entries
		}), wantErr: ErrEntryType, wantMsg: "want a directory"},

		// Decompression bombs and limits.
		{name: "zstd bomb: 1 GiB of zeros in 32 KiB", archive: bomb(1 << 30), limits: Limits{MaxTotalBytes: 64 << 20},
			wantErr: ErrLimit, wantMsg: "MaxTotalBytes"},
		{name: "zstd frame asks for a 2 TiB window", archive: func(*testing.T, *crafted) []byte { return hugeWindowFrame() },
			wantErr: ErrLimit, wantMsg: "MaxDecoderWindow"},
		{name: "descriptor announces a blob above MaxBlobSize", archive: func(t *testing.T, c *crafted) []byte {
			m := c.manifest()
			m.Conformance.Size = 1 << 40
			return c.withManifest(m, nil)
		}, wantErr: ErrLimit, wantMsg: "above MaxBlobSize"},
		{name: "index.json announces a terabyte", archive: func(t *testing.T, c *crafted) []byte {
			return zst(t, append(tarOf(t, c.layout[:1], false), rawHeader(indexName, tar.TypeReg, 1<<40)...))
		}, wantErr: ErrLimit, wantMsg: "above MaxIndexSize"},
		{name: "object above MaxObjectSize", archive: alter(func(t *testing.T, c *crafted, e []fakeEntry) []fakeEntry { return e }),
			limits: Limits{MaxObjectSize: 512}, wantErr: ErrLimit, wantMsg: "above MaxObjectSize (512)"},
		{name: "more entries than MaxEntries", archive: alter(func(t *testing.T, c *crafted, e []fakeEntry) []fakeEntry { return e }),
			limits: Limits{MaxEntries: 5}, wantErr: ErrLimit, wantMsg: "MaxEntries"},
		{name: "deeply nested index.json", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[1] = regular(indexName, []byte(`{"schemaVersion":2,"x":`+deep+`}`))
			return entries
		}), wantErr: ErrLimit, wantMsg: "nest deeper than the limit (Limits.MaxDepth is 64) (the archive's MaxJSONDepth)"},
		{name: "deeply nested run manifest", archive: func(t *testing.T, c *crafted) []byte {
			b := []byte(`{"kind":"run-manifest","schema_version":1,"x":` + deep + `}`)
			desc := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: store.Sum(b), Size: int64(len(b))}
			entries := c.entries(c.index(desc), nil)
			return zst(t, tarOf(t, append(entries, regular(blobName(desc.Digest), b)), true))
		}, wantErr: ErrLimit, wantMsg: "nest deeper than the limit (Limits.MaxDepth is 64) (the archive's MaxJSONDepth)"},
		{name: "run manifest of more values than MaxObjectValues", archive: func(t *testing.T, c *crafted) []byte {
			b := []byte(`{"kind":"run-manifest","schema_version":1,"x":[` + strings.Repeat("0,", 5000) + `0]}`)
			desc := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: store.Sum(b), Size: int64(len(b))}
			entries := c.entries(c.index(desc), nil)
			return zst(t, tarOf(t, append(entries, regular(blobName(desc.Digest), b)), true))
		}, limits: Limits{MaxObjectValues: 1000}, wantErr: ErrLimit, wantMsg: "(Limits.MaxNodes is 1000) (the archive's MaxObjectValues)"},

		// Sizes and digests that lie.
		{name: "tar size differs from the descriptor", archive: replaceBlob(func(name string, body []byte) fakeEntry {
			return regular(name, append(body, 'x'))
		}), wantErr: ErrSizeMismatch, wantMsg: "has 140 bytes but"},
		{name: "two descriptors disagree on a size", archive: func(t *testing.T, c *crafted) []byte {
			m := c.manifest()
			ev, _ := c.evidence(1)
			ev.Observations[0].Data.Size--
			forged := c.put(ev)
			m.Scenarios[1].Evidence = &forged
			return c.withManifest(m, c.swap(1, forged))
		}, wantErr: ErrSizeMismatch, wantMsg: "has size 139 for"},
		{name: "content does not match its name", archive: replaceBlob(func(name string, body []byte) fakeEntry {
			body = bytes.Clone(body)
			body[10] ^= 0x20
			return regular(name, body)
		}), wantErr: ErrDigestMismatch, wantMsg: "has content sha256:"},
		{name: "one digest both object and raw blob", archive: func(t *testing.T, c *crafted) []byte {
			m := c.manifest()
			ev, _ := c.evidence(0)
			ev.Observations[0].Data = store.Descriptor{MediaType: store.MediaTypeJSON, Digest: c.base.profile, Size: c.profileDesc().Size}
			forged := c.put(ev)
			m.Scenarios[0].Evidence = &forged
			return c.withManifest(m, c.swap(0, forged))
		}, wantErr: ErrConflict, wantMsg: "is a profile-tree object to index.json but a raw blob"},
		{name: "object of another kind than its descriptor", archive: func(t *testing.T, c *crafted) []byte {
			_, desc := c.evidence(0)
			m := c.manifest()
			m.Conformance = &store.Descriptor{MediaType: store.MediaTypeReceipt, Digest: desc.Digest, Size: desc.Size}
			m.Scenarios = m.Scenarios[2:] // only the scenario without evidence
			manifest := c.put(m)
			order := []store.Digest{manifest.Digest, c.base.profile, desc.Digest}
			return zst(t, tarOf(t, c.entries(c.index(manifest), order), true))
		}, wantErr: ErrInvalidObject, wantMsg: "is a scenario-evidence object but is referenced as a receipt"},

		// Framing.
		{name: "truncated zstd stream", archive: func(t *testing.T, c *crafted) []byte {
			a := zst(t, tarOf(t, c.baseEntries(), true))
			return a[:len(a)/2]
		}, wantErr: ErrTruncated, wantMsg: "zstd stream ends inside a frame"},
		{name: "tar cut inside a blob", archive: plainTar(func(t *testing.T, c *crafted, plain []byte) []byte {
			i := bytes.Index(plain, []byte(`{"agent_principal"`))
			return plain[:i+20]
		}), wantErr: ErrTruncated, wantMsg: "in blobs/sha256/"},
		{name: "tar without its end-of-archive marker", archive: plainTar(func(t *testing.T, c *crafted, plain []byte) []byte {
			return plain[:len(plain)-1024]
		}), wantErr: ErrTruncated, wantMsg: "end-of-archive marker"},
		{name: "empty stream", archive: func(t *testing.T, c *crafted) []byte { return zst(t, nil) },
			wantErr: ErrTruncated, wantMsg: "at the start of the archive"},
		{name: "not zstd (a plain tar)", archive: func(t *testing.T, c *crafted) []byte { return tarOf(t, c.baseEntries(), true) },
			wantErr: ErrCompression, wantMsg: "magic number mismatch"},
		{name: "data after the end of the archive", archive: plainTar(func(t *testing.T, c *crafted, plain []byte) []byte {
			return append(plain, "appended"...)
		}), wantErr: ErrTrailingData, wantMsg: "non-zero byte"},
		{name: "zero block then garbage", archive: plainTar(func(t *testing.T, c *crafted, plain []byte) []byte {
			return append(plain[:len(plain)-512], bytes.Repeat([]byte("x"), 512)...)
		}), wantErr: ErrMalformed, wantMsg: "invalid tar header"},
		{name: "header checksum wrong", archive: plainTar(func(t *testing.T, c *crafted, plain []byte) []byte {
			plain[0] ^= 0x01 // first byte of oci-layout's name
			return plain
		}), wantErr: ErrMalformed, wantMsg: "at the start of the archive"},

		// Duplicates.
		{name: "duplicate blob", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			i := find(t, entries, blobName(c.base.auditLog))
			return slices.Insert(entries, i, entries[i])
		}), wantErr: ErrDuplicate, wantMsg: "occurs twice"},
		{name: "duplicate index.json", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return slices.Insert(entries, 2, entries[1])
		}), wantErr: ErrDuplicate, wantMsg: "index.json occurs twice"},
		{name: "duplicate oci-layout", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return slices.Insert(entries, 1, entries[0])
		}), wantErr: ErrDuplicate, wantMsg: "oci-layout occurs twice"},

		// Layout files.
		{name: "wrong oci-layout version", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[0] = regular(layoutName, []byte(`{"imageLayoutVersion":"2.0.0"}`))
			return entries
		}), wantErr: ErrLayout, wantMsg: `imageLayoutVersion "2.0.0"`},
		{name: "oci-layout names a field twice", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[0] = regular(layoutName, []byte(`{"imageLayoutVersion":"2.0.0","imageLayoutVersion":"1.0.0"}`))
			return entries
		}), wantErr: ErrLayout, wantMsg: `oci-layout:1:31: imageLayoutVersion: duplicate key "imageLayoutVersion" (first at line 1, column 2)`},
		{name: "oci-layout is not JSON", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[0] = regular(layoutName, []byte(`imageLayoutVersion=1.0.0`))
			return entries
		}), wantErr: ErrLayout, wantMsg: "oci-layout"},
		{name: "missing oci-layout", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return entries[1:]
		}), wantErr: ErrMissingEntry, wantMsg: "oci-layout must come before blobs/"},
		{name: "missing index.json", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return slices.Delete(entries, 1, 2)
		}), wantErr: ErrMissingEntry, wantMsg: "index.json must come before blobs/"},
		{name: "index.json after the blobs", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			index := entries[1]
			return append(slices.Delete(entries, 1, 2), index)
		}), wantErr: ErrMissingEntry, wantMsg: "index.json must come before blobs/"},
		{name: "index.json with an unknown field", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[1] = regular(indexName, bytes.Replace(entries[1].body, []byte(`"schemaVersion"`), []byte(`"subject":{},"schemaVersion"`), 1))
			return entries
		}), wantErr: ErrIndex, wantMsg: `subject: unknown field`},
		{name: "index.json names a field twice", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[1] = regular(indexName, bytes.Replace(entries[1].body, []byte(`"schemaVersion":2`), []byte(`"schemaVersion":1,"schemaVersion":2`), 1))
			return entries
		}), wantErr: ErrIndex, wantMsg: `duplicate key "schemaVersion"`},
		{name: "index.json lists a nested index (itself)", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			var idx ociIndex
			if err := json.Unmarshal(entries[1].body, &idx); err != nil {
				t.Fatal(err)
			}
			self := store.Sum(entries[1].body)
			idx.Manifests = append(idx.Manifests, ociDescriptor{MediaType: mediaTypeIndex, Digest: self.String(), Size: int64(len(entries[1].body))})
			b, _ := store.Marshal(idx)
			entries[1] = regular(indexName, b)
			return append(entries, regular(blobName(self), entries[1].body))
		}), wantErr: ErrIndex, wantMsg: "is not a bundle manifest, profile tree or receipt"},
		{name: "sha512 digest in index.json", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			body := string(entries[1].body)
			i := strings.Index(body, `"sha256:`)
			entries[1] = regular(indexName, []byte(body[:i]+`"sha512:`+strings.Repeat("ab", 64)+body[i+72:]))
			return entries
		}), wantErr: ErrUnsupportedDigest, wantMsg: `"sha512:abab`},
		{name: "tag a store cannot hold", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			entries[1] = regular(indexName, bytes.Replace(entries[1].body, []byte(`{"digest"`),
				[]byte(`{"annotations":{"org.opencontainers.image.ref.name":"../../etc"},"digest"`), 1))
			return entries
		}), wantErr: ErrBadTag, wantMsg: `"../../etc"`},
		{name: "two run manifests in index.json", archive: func(t *testing.T, c *crafted) []byte {
			m := c.manifest()
			m.Tier = 2
			second := c.put(m)
			var idx ociIndex
			if err := json.Unmarshal(c.baseEntries()[1].body, &idx); err != nil {
				t.Fatal(err)
			}
			idx.Manifests = append(idx.Manifests, toOCI(second, nil))
			b, _ := store.Marshal(idx)
			return zst(t, tarOf(t, c.entries(b, c.order), true))
		}, wantErr: ErrIndex, wantMsg: "two bundle manifests"},
		{name: "index.json names another profile tree than the manifest", archive: func(t *testing.T, c *crafted) []byte {
			tree := &store.ProfileTree{ProfileID: "other", Version: "1"}
			other := c.put(tree)
			manifest := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: c.base.bundle, Size: int64(len(c.s.bytesOf(c.base.bundle)))}
			b, err := encodeIndex(&bundleIndex{manifest: manifest, profile: other})
			if err != nil {
				t.Fatal(err)
			}
			return zst(t, tarOf(t, c.entries(b, slices.Insert(slices.Clone(c.order), 1, other.Digest)), true))
		}, wantErr: ErrIndex, wantMsg: "the bundle manifest pins"},

		// The bundle graph.
		{name: "blob referenced by nothing", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return append(entries, regular(blobName(store.Sum([]byte("stray"))), []byte("stray")))
		}), wantErr: ErrUnreferenced, wantMsg: blobName(store.Sum([]byte("stray")))},
		{name: "blob before the object that refers to it", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			i := find(t, entries, blobName(c.base.auditLog))
			audit := entries[i]
			return slices.Insert(slices.Delete(entries, i, i+1), 4, audit)
		}), wantErr: ErrUnreferenced, wantMsg: "is not referenced by index.json or by any structured object before it"},
		{name: "manifest refers to a missing object", archive: func(t *testing.T, c *crafted) []byte {
			m := c.manifest()
			m.Scenarios[2].Evidence = &store.Descriptor{MediaType: store.MediaTypeScenarioEvidence, Digest: store.Sum([]byte("absent")), Size: 10}
			return c.withManifest(m, nil)
		}, wantErr: ErrMissingBlob, wantMsg: store.Sum([]byte("absent")).String()},
		{name: "object that refers to itself (content does not match its name)", archive: func(t *testing.T, c *crafted) []byte {
			// A manifest whose digest is its own content's is impossible; the nearest thing is
			// an entry named by the manifest's digest holding evidence that refers back to it.
			manifest := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: c.base.bundle, Size: int64(len(c.s.bytesOf(c.base.bundle)))}
			loop, _, err := store.Encode(&store.ScenarioEvidence{ScenarioID: "loop", Observations: []store.Observation{{Type: "audit_log", Data: manifest}}})
			if err != nil {
				t.Fatal(err)
			}
			entries := c.entries(c.index(store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: c.base.bundle, Size: int64(len(loop))}), nil)
			return zst(t, tarOf(t, append(entries, regular(blobName(c.base.bundle), loop)), true))
		}, wantErr: ErrDigestMismatch, wantMsg: blobName(store.Digest{})[:13]},
		{name: "layout files only", archive: alter(func(t *testing.T, c *crafted, entries []fakeEntry) []fakeEntry {
			return entries[:4]
		}), wantErr: ErrMissingBlob, wantMsg: "referenced by index.json"},
		{name: "second run manifest reached through an observation", archive: func(t *testing.T, c *crafted) []byte {
			other := c.manifest()
			other.Tier = 3
			second := c.put(other)
			ev, _ := c.evidence(0)
			ev.Observations[0].Data = second
			forged := c.put(ev)
			m := c.manifest()
			m.Scenarios[0].Evidence = &forged
			return c.withManifest(m, c.swap(0, forged), second.Digest)
		}, wantErr: ErrInvalidObject, wantMsg: "is a second bundle manifest"},
		{name: "receipt for another bundle", archive: func(t *testing.T, c *crafted) []byte {
			receipt := c.put(&store.Receipt{Bundle: store.Sum([]byte("another bundle")), Profile: c.base.profile, Verdict: c.base.verdict,
				Evaluator: store.EvaluatorInfo{Name: "e", Version: "1"}})
			manifest := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: c.base.bundle, Size: int64(len(c.s.bytesOf(c.base.bundle)))}
			return zst(t, tarOf(t, c.entries(c.index(manifest, receipt), append(slices.Clone(c.order), receipt.Digest)), true))
		}, wantErr: ErrInvalidObject, wantMsg: "is a receipt for bundle"},
		{name: "object names a field twice", archive: func(t *testing.T, c *crafted) []byte {
			b := append([]byte(`{"a":1,"a":2,`), c.s.bytesOf(c.base.bundle)[1:]...)
			desc := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: store.Sum(b), Size: int64(len(b))}
			entries := c.entries(c.index(desc), nil)
			return zst(t, tarOf(t, append(entries, regular(blobName(desc.Digest), b)), true))
		}, wantErr: ErrInvalidObject, wantMsg: `:1:8: a: duplicate key "a" (first at line 1, column 2)`},
		{name: "object not in canonical form", archive: func(t *testing.T, c *crafted) []byte {
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, c.s.bytesOf(c.base.bundle), "", "  "); err != nil {
				t.Fatal(err)
			}
			desc := store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: store.Sum(pretty.Bytes()), Size: int64(pretty.Len())}
			entries := c.entries(c.index(desc), nil)
			return zst(t, tarOf(t, append(entries, regular(blobName(desc.Digest), pretty.Bytes())), true))
		}, wantErr: ErrInvalidObject, wantMsg: "not in canonical JSON form"},
	}
}

// bomb is a valid start of an archive whose next blob is n zero bytes made of RLE blocks.
func bomb(n int64) func(*testing.T, *crafted) []byte {
	return func(t *testing.T, c *crafted) []byte {
		m := c.manifest()
		m.Claimed = &store.Descriptor{MediaType: store.MediaTypeJSON, Digest: store.Sum([]byte("zeros")), Size: n}
		desc := c.put(m)
		prefix := tarOf(t, c.entries(c.index(desc), []store.Digest{desc.Digest}), false)
		prefix = append(prefix, rawHeader(blobName(m.Claimed.Digest), tar.TypeReg, n)...)
		return append(zst(t, prefix), rleZeroFrames(n)...)
	}
}

// TestHostileArchives runs every hostile archive through Verify and Import: each must fail with
// its specific error, without a panic, without touching the file system, and without leaving a
// ref in the store.
func TestHostileArchives(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	c := newCrafted(t)
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			archive := tc.archive(t, c)
			_, err := Verify(context.Background(), bytes.NewReader(archive), tc.limits)
			checkHostileError(t, "Verify", err, tc)
			t.Log(err)
			s := newTestStore()
			_, err = Import(context.Background(), s, bytes.NewReader(archive), tc.limits, ImportOptions{ApplyTags: true})
			checkHostileError(t, "Import", err, tc)
			if refs, _ := s.ListRefs(context.Background(), ""); len(refs) != 0 {
				t.Errorf("Import left refs %v", refs)
			}
			if len(s.ops) != 0 {
				t.Errorf("Import synced or set refs: %q", s.ops)
			}
		})
	}
	if entries, err := os.ReadDir(cwd); err != nil || len(entries) != 0 {
		t.Errorf("the working directory holds %v (%v); reading archives must not write files", entries, err)
	}
}

func checkHostileError(t *testing.T, op string, err error, tc hostileCase) {
	t.Helper()
	if !errors.Is(err, tc.wantErr) {
		t.Fatalf("%s error = %v, want %v", op, err, tc.wantErr)
	}
	if !strings.Contains(err.Error(), tc.wantMsg) {
		t.Fatalf("%s error %q does not mention %q", op, err, tc.wantMsg)
	}
}

// TestBombMemory checks that a decompression bomb is stopped by MaxTotalBytes without the reader
// holding what it decompressed: the allocations of a Verify stay far below the bomb's size.
func TestBombMemory(t *testing.T) {
	const size = 1 << 30
	c := newCrafted(t)
	archive := bomb(size)(t, c)
	t.Logf("a %d-byte archive decompresses to more than %d bytes", len(archive), size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Verify(context.Background(), bytes.NewReader(archive), Limits{MaxTotalBytes: 256 << 20})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("Verify error = %v, want ErrLimit", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Verify allocated %d bytes", allocated)
	if allocated > 16<<20 {
		t.Errorf("Verify allocated %d bytes reading 256 MiB of a bomb; reading must stream", allocated)
	}
}
