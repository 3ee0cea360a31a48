package store

// RegisterManifestKindForTest registers a bundle manifest kind for the tests of this package,
// as a kind of evaluation added later would register its own.
func RegisterManifestKindForTest(k Kind, mediaType string, code byte, decode func() Object) {
	registerKind(k, kindInfo{code: code, mediaType: mediaType, decode: decode, manifest: true})
}
