package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// This file builds hand-made archives, valid and hostile, for the tests.

// fakeEntry is one tar entry of a hand-made archive: a header and body written by archive/tar, or
// raw bytes for what archive/tar refuses to write.
type fakeEntry struct {
	hdr  tar.Header
	body []byte
	raw  []byte
}

func regular(name string, body []byte) fakeEntry {
	return fakeEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body)), Format: tar.FormatPAX}, body: body}
}

func special(name string, typeflag byte, linkname string) fakeEntry {
	return fakeEntry{hdr: tar.Header{Typeflag: typeflag, Name: name, Linkname: linkname, Mode: 0o644, Format: tar.FormatPAX}}
}

// tarOf writes entries as a tar stream, with the end-of-archive marker if end is set.
func tarOf(t testing.TB, entries []fakeEntry, end bool) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, e := range entries {
		if e.raw != nil {
			out.Write(e.raw)
			continue
		}
		tw := tar.NewWriter(&out)
		hdr := e.hdr
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatalf("tar header %q: %v", e.hdr.Name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatalf("tar body %q: %v", e.hdr.Name, err)
		}
		if err := tw.Flush(); err != nil {
			t.Fatalf("tar flush %q: %v", e.hdr.Name, err)
		}
	}
	if end {
		out.Write(make([]byte, 1024))
	}
	return out.Bytes()
}

// zst compresses plain with the exporter's settings.
func zst(t testing.TB, plain []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, encoderOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// entriesOf parses an archive back into entries, to be altered and rebuilt.
func entriesOf(t testing.TB, archive []byte) []fakeEntry {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(decompress(t, archive)))
	var entries []fakeEntry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, fakeEntry{hdr: *hdr, body: body})
	}
}

// rawHeader is a USTAR header block made by hand, for names and sizes archive/tar will not write.
// A size that does not fit 11 octal digits is written in the base-256 form readers accept.
func rawHeader(name string, typeflag byte, size int64) []byte {
	var b [512]byte
	copy(b[0:100], name)
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	if size < 1<<33 {
		copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	} else {
		b[124] = 0x80
		for i := 135; i > 124; i-- {
			b[i] = byte(size)
			size >>= 8
		}
	}
	copy(b[136:148], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:265], "ustar\x0000")
	for i := 148; i < 156; i++ {
		b[i] = ' '
	}
	var sum int
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b[:]
}

// rawEntry is a hand-made header followed by body and its padding.
func rawEntry(name string, typeflag byte, body []byte) fakeEntry {
	raw := append(rawHeader(name, typeflag, int64(len(body))), body...)
	return fakeEntry{raw: append(raw, make([]byte, padding(int64(len(body))))...)}
}

// paxRecords encodes PAX extended header records ("<length> <key>=<value>\n").
func paxRecords(kv ...string) []byte {
	var b []byte
	for i := 0; i+1 < len(kv); i += 2 {
		rec := " " + kv[i] + "=" + kv[i+1] + "\n"
		n := len(rec) + 1
		for len(fmt.Sprint(n))+len(rec) != n {
			n++
		}
		b = fmt.Appendf(b, "%d%s", n, rec)
	}
	return b
}

// rleZeroFrames is a zstd frame of n zero bytes made of RLE blocks (RFC 8878 §3.1.1.2: block
// type 1 repeats one byte Block_Size times, at most 128 KiB per block), so 1 GiB costs 32 KiB:
// a decompression bomb.
func rleZeroFrames(n int64) []byte {
	// Magic number, then a frame header without checksum or content size whose window is
	// 128 KiB (Window_Descriptor exponent 7: 1 << (10+7)), RFC 8878 §3.1.1.1.
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
	const blockMax = 128 << 10
	for n > 0 {
		size := min(n, blockMax)
		n -= size
		h := uint32(size)<<3 | 1<<1
		if n == 0 {
			h |= 1 // Last_Block
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0x00)
	}
	return b
}

// hugeWindowFrame is a zstd frame whose header asks for a window of 2 TiB (exponent 31).
func hugeWindowFrame() []byte {
	return []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 31 << 3, 1<<3 | 1<<1 | 1, 0, 0, 0x00}
}

// crafted holds the synthetic bundle (exported without receipts) and its archive order, so tests
// can forge objects and assemble archives from any list of digests.
type crafted struct {
	t      testing.TB
	base   testBundle
	s      *testStore
	order  []store.Digest // the base archive's blobs, in archive order
	layout []fakeEntry    // oci-layout, index.json and the two directories of the base archive
}

func newCrafted(t testing.TB) *crafted {
	t.Helper()
	base := buildSyntheticBundle(t)
	archive := export(t, base, ExportOptions{})
	report, err := Verify(context.Background(), bytes.NewReader(archive), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := &crafted{t: t, base: base, s: base.s, layout: entriesOf(t, archive)[:4]}
	for _, e := range report.Entries {
		c.order = append(c.order, e.Digest)
	}
	return c
}

// manifest returns a fresh copy of the base run manifest, to alter.
func (c *crafted) manifest() *store.RunManifest {
	m, err := store.DecodeManifest(c.s.bytesOf(c.base.bundle))
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// evidence returns a fresh copy of the base bundle's i-th scenario evidence.
func (c *crafted) evidence(i int) (*store.ScenarioEvidence, store.Descriptor) {
	desc := *c.manifest().Scenarios[i].Evidence
	e, err := store.DecodeScenarioEvidence(c.s.bytesOf(desc.Digest))
	if err != nil {
		c.t.Fatal(err)
	}
	return e, desc
}

// put stores a forged object and returns its descriptor.
func (c *crafted) put(obj store.Object) store.Descriptor { return putObject(c.t, c.s, obj) }

func (c *crafted) profileDesc() store.Descriptor {
	return store.Descriptor{MediaType: store.MediaTypeProfileTree, Digest: c.base.profile, Size: int64(len(c.s.bytesOf(c.base.profile)))}
}

// index encodes an index.json for a manifest, the base profile tree and receipts.
func (c *crafted) index(manifest store.Descriptor, receipts ...store.Descriptor) []byte {
	b, err := encodeIndex(&bundleIndex{manifest: manifest, profile: c.profileDesc(), receipts: receipts})
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

// entries assembles layout files with the given index.json and the blobs of order, as the
// store holds them.
func (c *crafted) entries(index []byte, order []store.Digest) []fakeEntry {
	entries := []fakeEntry{c.layout[0], regular(indexName, index), c.layout[2], c.layout[3]}
	for _, d := range order {
		b, ok := c.s.content(d)
		if !ok {
			c.t.Fatalf("crafted archive: %s not in the store", d)
		}
		entries = append(entries, regular(blobName(d), b))
	}
	return entries
}

// withManifest assembles an archive whose run manifest is m (stored first), followed by the base
// order without the base manifest, with each digest in swaps replaced by its value, then extra.
func (c *crafted) withManifest(m *store.RunManifest, swaps map[store.Digest]store.Digest, extra ...store.Digest) []byte {
	desc := c.put(m)
	order := []store.Digest{desc.Digest}
	for _, d := range c.order[1:] {
		if forged, ok := swaps[d]; ok {
			d = forged
		}
		order = append(order, d)
	}
	return zst(c.t, tarOf(c.t, c.entries(c.index(desc), append(order, extra...)), true))
}

// swap says that the base evidence of scenario i is replaced by forged in the archive.
func (c *crafted) swap(i int, forged store.Descriptor) map[store.Digest]store.Digest {
	_, base := c.evidence(i)
	return map[store.Digest]store.Digest{base.Digest: forged.Digest}
}

// baseEntries returns the base archive's entries, to alter.
func (c *crafted) baseEntries() []fakeEntry {
	return c.entries(c.index(store.Descriptor{MediaType: store.MediaTypeRunManifest, Digest: c.base.bundle,
		Size: int64(len(c.s.bytesOf(c.base.bundle)))}), c.order)
}

// find returns the position of the entry named name.
func find(t testing.TB, entries []fakeEntry, name string) int {
	t.Helper()
	for i, e := range entries {
		if e.hdr.Name == name {
			return i
		}
	}
	t.Fatalf("no entry %s", name)
	return -1
}
