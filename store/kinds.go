package store

import (
	"fmt"
	"maps"
	"slices"
)

// kindInfo is what the store knows about one kind of structured object.
type kindInfo struct {
	// mediaType is the kind's media type, also its OCI descriptor media type in archives.
	mediaType string
	// decode returns a new, empty object of the kind for Decode and ReferencesOf; nil for leaf
	// kinds whose Go type lives above the store (a verdict): they are stored and walked
	// without being decoded here, and refer to nothing.
	decode func() Object
	// manifest marks the root object of a bundle: its digest is the bundle id.
	manifest bool
	// holdsBundles marks a manifest kind whose bundle is made of other bundles (an Eval Library
	// matrix holds its runs): its closure may contain manifests of other bundles.
	holdsBundles bool
	// code is the kind's number in stores that keep kinds as a byte (badgerstore records).
	// It is part of their on-disk format: never renumber a kind, never reuse a number.
	code byte
}

// kinds is the registry of structured object kinds. Each kind is registered once, next to its
// type, by registerKind; nothing else switches over kinds, so a new kind of evidence is one
// registration and one type.
var kinds = map[Kind]kindInfo{}

// registerKind adds a kind to the registry. It is called from package-level variable
// initialisers, so the registry is complete before any function of the package runs.
func registerKind(k Kind, info kindInfo) bool {
	if _, dup := kinds[k]; dup || k == "" || info.mediaType == "" || info.code == 0 {
		panic("store: kind registered twice, or without a media type or code: " + string(k))
	}
	if other, taken := KindOfCode(info.code); taken {
		panic(fmt.Sprintf("store: kinds %s and %s share code %d", other, k, info.code))
	}
	kinds[k] = info
	return true
}

// The kinds of OASIS runs and the kinds every evaluation shares. Codes 1–15 are theirs; Kensa
// kinds take 16–31 and Eval Library kinds 32–47.
var (
	_ = registerKind(KindScenarioEvidence, kindInfo{code: 1, mediaType: MediaTypeScenarioEvidence, decode: func() Object { return new(ScenarioEvidence) }})
	_ = registerKind(KindRunManifest, kindInfo{code: 2, mediaType: MediaTypeRunManifest, decode: func() Object { return new(RunManifest) }, manifest: true})
	_ = registerKind(KindProfileTree, kindInfo{code: 3, mediaType: MediaTypeProfileTree, decode: func() Object { return new(ProfileTree) }})
	_ = registerKind(KindVerdict, kindInfo{code: 4, mediaType: MediaTypeVerdict})
	_ = registerKind(KindReceipt, kindInfo{code: 5, mediaType: MediaTypeReceipt, decode: func() Object { return new(Receipt) }})
	_ = registerKind(KindWireLog, kindInfo{code: 6, mediaType: MediaTypeWireLog, decode: func() Object { return new(WireLog) }})
)

// KindCode returns the code of kind k (see kindInfo.code).
func KindCode(k Kind) (byte, bool) {
	info, ok := kinds[k]
	return info.code, ok
}

// KindOfCode is the inverse of KindCode.
func KindOfCode(code byte) (Kind, bool) {
	for k, info := range kinds {
		if info.code == code {
			return k, true
		}
	}
	return "", false
}

// Kinds lists every registered kind, sorted.
func Kinds() []Kind { return slices.Sorted(maps.Keys(kinds)) }

// IsManifestKind reports whether objects of kind k are bundle roots (manifests).
func IsManifestKind(k Kind) bool { return kinds[k].manifest }

// HoldsBundles reports whether bundles of manifest kind k are made of other bundles, whose
// manifests are then part of their closure (an archive of such a bundle carries them along).
func HoldsBundles(k Kind) bool { return kinds[k].holdsBundles }
