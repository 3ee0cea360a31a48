package archive

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// Names and values of the OCI image layout (image-spec image-layout.md).
const (
	layoutName = "oci-layout"
	indexName  = "index.json"
	blobsDir   = "blobs/"
	// blobPrefix is the directory of sha256 blobs: "blobs/<alg>/<encoded>" (image-layout.md
	// "Blobs"), and sha256 is the only algorithm of this project's digests.
	blobPrefix = blobsDir + "sha256/"

	// layoutVersion is the only imageLayoutVersion defined by the image spec.
	layoutVersion = "1.0.0"
	// mediaTypeIndex is the media type of index.json (image-spec image-index.md).
	mediaTypeIndex = "application/vnd.oci.image.index.v1+json"

	// annotationRefName is the OCI annotation that names a tag (image-spec annotations.md).
	annotationRefName = "org.opencontainers.image.ref.name"
	// annotationFormatVersion, on index.json, is the version of this archive format.
	annotationFormatVersion = "com.github.oasis-replay.archive.version"
	// formatVersion is the archive format this build writes and reads.
	formatVersion = "1"
)

// Fixed bounds that do not need to be configurable: no valid archive comes near them.
const (
	// maxNameLen bounds an entry name; the longest valid name is a blob path of 77 bytes.
	maxNameLen = 255
	// maxLayoutSize bounds oci-layout, a one-field JSON object.
	maxLayoutSize = 4 << 10
)

// layoutFile is the content of oci-layout.
type layoutFile struct {
	ImageLayoutVersion string `json:"imageLayoutVersion"`
	// Others are the fields the image spec lets a layout add.
	Others doc.Extra
}

// ociDescriptor is an OCI content descriptor (image-spec descriptor.md). Digest stays a string
// here so that a foreign algorithm is reported as such rather than as a malformed digest.
type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ociIndex is an OCI image index (image-spec image-index.md), the content of index.json.
type ociIndex struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []ociDescriptor   `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// bundleIndex is what index.json says about the bundle, once checked.
type bundleIndex struct {
	manifest store.Descriptor
	profile  store.Descriptor
	receipts []store.Descriptor // sorted by digest
	tags     []string           // sorted
}

// roots returns the descriptors index.json lists, in the order the archive holds them.
func (ix *bundleIndex) roots() []store.Descriptor {
	return append([]store.Descriptor{ix.manifest, ix.profile}, ix.receipts...)
}

// encodeIndex writes index.json canonically, so that it is byte-identical for the same bundle:
// the bundle manifest once per tag (once without annotation when there is no tag), then the profile
// tree, then the receipts.
func encodeIndex(ix *bundleIndex) ([]byte, error) {
	idx := ociIndex{
		SchemaVersion: 2,
		MediaType:     mediaTypeIndex,
		Annotations:   map[string]string{annotationFormatVersion: formatVersion},
	}
	if len(ix.tags) == 0 {
		idx.Manifests = append(idx.Manifests, toOCI(ix.manifest, nil))
	}
	for _, tag := range ix.tags {
		idx.Manifests = append(idx.Manifests, toOCI(ix.manifest, map[string]string{annotationRefName: tag}))
	}
	idx.Manifests = append(idx.Manifests, toOCI(ix.profile, nil))
	for _, r := range ix.receipts {
		idx.Manifests = append(idx.Manifests, toOCI(r, nil))
	}
	return store.Marshal(idx)
}

func toOCI(d store.Descriptor, annotations map[string]string) ociDescriptor {
	return ociDescriptor{MediaType: d.MediaType, Digest: d.Digest.String(), Size: d.Size, Annotations: annotations}
}

// parseJSON reads the JSON document name of an archive, of at most maxBytes bytes, with the
// document model: a name given twice in an object is refused (encoding/json would silently keep
// the last one), nesting is bounded by MaxJSONDepth and values by MaxObjectValues, and errors
// give the line and column. A malformed document is an error wrapping class.
func parseJSON(name string, b []byte, maxBytes int64, lim Limits, class error) (*doc.Node, error) {
	n, err := doc.ParseJSON(name, b, doc.Limits{MaxBytes: maxBytes, MaxDepth: lim.MaxJSONDepth, MaxNodes: lim.MaxObjectValues})
	if err != nil {
		return nil, docError(err, class)
	}
	return n, nil
}

// archiveLimits names the limits of this package that set a limit of the document model. (Sizes
// are checked before a document is read, against MaxObjectSize and MaxIndexSize.)
var archiveLimits = map[string]string{"MaxDepth": "MaxJSONDepth", "MaxNodes": "MaxObjectValues"}

// docError classes an error of the document model: a limit exceeded is ErrLimit, naming the
// archive's own limit when it is one; anything else is class.
func docError(err error, class error) error {
	var de *doc.Error
	if !errors.As(err, &de) || de.Limit == "" {
		return fmt.Errorf("%w: %w", class, err)
	}
	if name, ok := archiveLimits[de.Limit]; ok {
		return fmt.Errorf("%w: %w (the archive's %s)", ErrLimit, err, name)
	}
	return fmt.Errorf("%w: %w", ErrLimit, err)
}

// decodeLayout checks oci-layout (image-layout.md "oci-layout file": a JSON object whose
// imageLayoutVersion is "1.0.0"; other fields are allowed).
func decodeLayout(b []byte, lim Limits) error {
	n, err := parseJSON(layoutName, b, maxLayoutSize, lim, ErrLayout)
	if err != nil {
		return err
	}
	var l layoutFile
	if err := doc.Decode(n, &l); err != nil {
		return fmt.Errorf("%w: %w", ErrLayout, err)
	}
	if l.ImageLayoutVersion != layoutVersion {
		return fmt.Errorf("%w: %s: imageLayoutVersion %q, want %q", ErrLayout, layoutName, l.ImageLayoutVersion, layoutVersion)
	}
	return nil
}

// decodeIndex parses and checks index.json. It is strict: the index is written by Export, and
// anything it would not write (unknown fields, duplicate names, foreign media types, more than
// one bundle) is refused rather than guessed at.
func decodeIndex(b []byte, lim Limits) (*bundleIndex, error) {
	n, err := parseJSON(indexName, b, lim.MaxIndexSize, lim, ErrIndex)
	if err != nil {
		return nil, err
	}
	var idx ociIndex
	if err := doc.Decode(n, &idx); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIndex, err)
	}
	if idx.SchemaVersion != 2 {
		return nil, fmt.Errorf("%w: schemaVersion %d, want 2", ErrIndex, idx.SchemaVersion)
	}
	if idx.MediaType != mediaTypeIndex {
		return nil, fmt.Errorf("%w: mediaType %q, want %q", ErrIndex, idx.MediaType, mediaTypeIndex)
	}
	if v := idx.Annotations[annotationFormatVersion]; v != formatVersion {
		return nil, fmt.Errorf("%w: annotation %s is %q, this build reads %q", ErrIndex, annotationFormatVersion, v, formatVersion)
	}
	ix := new(bundleIndex)
	for i, od := range idx.Manifests {
		if err := ix.add(od); err != nil {
			return nil, fmt.Errorf("%w (%s manifests[%d])", err, indexName, i)
		}
	}
	if ix.manifest.Digest.IsZero() {
		return nil, fmt.Errorf("%w: no bundle manifest descriptor (%s, …)", ErrIndex, store.MediaTypeRunManifest)
	}
	if ix.profile.Digest.IsZero() {
		return nil, fmt.Errorf("%w: no %s descriptor", ErrIndex, store.MediaTypeProfileTree)
	}
	slices.SortFunc(ix.receipts, func(a, b store.Descriptor) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	slices.Sort(ix.tags)
	return ix, nil
}

// add records one descriptor of index.json.
func (ix *bundleIndex) add(od ociDescriptor) error {
	d, err := parseOCIDigest(od.Digest)
	if err != nil {
		return err
	}
	if od.Size <= 0 {
		// Structured objects are never empty, and every descriptor here names one.
		return fmt.Errorf("%w: %s: size %d", ErrIndex, od.Digest, od.Size)
	}
	desc := store.Descriptor{MediaType: od.MediaType, Digest: d, Size: od.Size}
	tag, tagged := od.Annotations[annotationRefName]
	for _, k := range slices.Sorted(maps.Keys(od.Annotations)) {
		if k != annotationRefName {
			return fmt.Errorf("%w: %s: unknown annotation %q", ErrIndex, od.Digest, k)
		}
	}
	kind, _ := store.KindOfMediaType(od.MediaType)
	isManifest := store.IsManifestKind(kind)
	if tagged && !isManifest {
		return fmt.Errorf("%w: %s: %s on a %s", ErrIndex, od.Digest, annotationRefName, od.MediaType)
	}
	switch {
	case isManifest:
		if !ix.manifest.Digest.IsZero() && ix.manifest != desc {
			return fmt.Errorf("%w: two bundle manifests, %s and %s: an archive holds one bundle", ErrIndex, ix.manifest.Digest, d)
		}
		ix.manifest = desc
		if tagged {
			if err := validTag(tag); err != nil {
				return err
			}
			if slices.Contains(ix.tags, tag) {
				return fmt.Errorf("%w: tag %q listed twice", ErrIndex, tag)
			}
			ix.tags = append(ix.tags, tag)
		}
	case kind == store.KindProfileTree:
		if !ix.profile.Digest.IsZero() {
			return fmt.Errorf("%w: two profile trees, %s and %s", ErrIndex, ix.profile.Digest, d)
		}
		ix.profile = desc
	case kind == store.KindReceipt:
		for _, r := range ix.receipts {
			if r.Digest == d {
				return fmt.Errorf("%w: receipt %s listed twice", ErrIndex, d)
			}
		}
		ix.receipts = append(ix.receipts, desc)
	default:
		return fmt.Errorf("%w: %s: media type %q is not a bundle manifest, profile tree or receipt", ErrIndex, od.Digest, od.MediaType)
	}
	return nil
}

// parseOCIDigest parses a descriptor digest. The OCI grammar (descriptor.md "Digests") admits
// any registered algorithm; this project names content by sha256 only, so any other algorithm
// is ErrUnsupportedDigest rather than a malformed digest.
func parseOCIDigest(s string) (store.Digest, error) {
	alg, _, ok := strings.Cut(s, ":")
	if ok && alg != "sha256" && validAlgorithm(alg) {
		return store.Digest{}, fmt.Errorf("%w: %q", ErrUnsupportedDigest, s)
	}
	d, err := store.ParseDigest(s)
	if err != nil {
		return store.Digest{}, fmt.Errorf("%w: %w", ErrIndex, err)
	}
	return d, nil
}

// validAlgorithm checks the algorithm grammar of descriptor.md: components of [a-z0-9]+ joined
// by one of "+._-".
func validAlgorithm(alg string) bool {
	if alg == "" {
		return false
	}
	prevSep := true
	for _, c := range alg {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			prevSep = false
		case strings.ContainsRune("+._-", c) && !prevSep:
			prevSep = true
		default:
			return false
		}
	}
	return !prevSep
}

// validTag checks a tag with the store's own grammar (store.ValidateTag: OCI image tags without
// ".."), so that a tag read from an archive can always be applied. (The annotation's own
// grammar, image-spec annotations.md, is wider; a tag outside the narrower one could not be
// stored.)
func validTag(tag string) error {
	if err := store.ValidateTag(tag); err != nil {
		return fmt.Errorf("%w: %v", ErrBadTag, err)
	}
	return nil
}

// entryKind is what a tar entry is, by its name.
type entryKind int

const (
	entryLayout entryKind = iota + 1
	entryIndex
	entryDir
	entryBlob
)

// parseEntryName classifies an entry name. The names an archive may hold form a closed set
// (image-layout.md "Content"): oci-layout, index.json, the directories blobs/ and
// blobs/sha256/, and blobs/sha256/<64 lowercase hex>. Unsafe names are told apart from merely
// unknown ones by checkSafeName, which runs first.
func parseEntryName(name string) (entryKind, store.Digest, error) {
	switch name {
	case layoutName:
		return entryLayout, store.Digest{}, nil
	case indexName:
		return entryIndex, store.Digest{}, nil
	case "blobs", blobsDir, "blobs/sha256", blobPrefix:
		return entryDir, store.Digest{}, nil
	}
	rest, ok := strings.CutPrefix(name, blobsDir)
	if !ok {
		return 0, store.Digest{}, fmt.Errorf("%w: %q is not an entry of a bundle archive", ErrBadName, name)
	}
	isDir := strings.HasSuffix(rest, "/")
	alg, encoded, hasEncoded := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	switch {
	case !hasEncoded && !isDir:
		return 0, store.Digest{}, fmt.Errorf("%w: %q is not an entry of a bundle archive", ErrBadName, name)
	case alg != "sha256" && validAlgorithm(alg):
		return 0, store.Digest{}, fmt.Errorf("%w: %q: only sha256 blobs are allowed", ErrUnsupportedDigest, name)
	case alg != "sha256":
		return 0, store.Digest{}, fmt.Errorf("%w: %q is not an entry of a bundle archive", ErrBadName, name)
	}
	d, err := store.ParseDigest(store.DigestPrefix + encoded)
	if isDir || err != nil {
		return 0, store.Digest{}, fmt.Errorf("%w: blob name %q is not blobs/sha256/ and 64 lowercase hex characters", ErrBadName, name)
	}
	return entryBlob, d, nil
}

// checkSafeName rejects names that would escape or confuse an extraction directory: they are what
// an attacker aims at a naive extractor, so they get their own error whatever else is wrong.
func checkSafeName(name string) error {
	switch {
	case len(name) > maxNameLen:
		return fmt.Errorf("%w: name of %d bytes (at most %d): %.40q…", ErrBadName, len(name), maxNameLen, name)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: name %q is not valid UTF-8", ErrBadName, name)
	case name == "":
		return fmt.Errorf("%w: empty name", ErrBadName)
	case strings.ContainsAny(name, "\\\x00"):
		return fmt.Errorf("%w: %q holds a backslash or NUL", ErrUnsafePath, name)
	case name[0] == '/':
		return fmt.Errorf("%w: %q is absolute", ErrUnsafePath, name)
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == ".." {
			return fmt.Errorf("%w: %q climbs out with \"..\"", ErrUnsafePath, name)
		}
	}
	return nil
}

// blobName is the entry name of a digest.
func blobName(d store.Digest) string { return blobPrefix + d.Hex() }
