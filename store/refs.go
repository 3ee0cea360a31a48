package store

import (
	"fmt"
	"strings"
)

// MaxRefNameLength bounds a ref name, in bytes.
const MaxRefNameLength = 255

// MaxTagLength bounds a tag, as the OCI distribution spec bounds image tags.
const MaxTagLength = 128

// digestNamespaces are the ref prefixes whose names end in the 64 hex of the digest they
// point at.
var digestNamespaces = []string{RefBundlePrefix, RefProfilePrefix, RefReceiptPrefix}

// BundleRefName is the ref that marks d as a sealed bundle.
func BundleRefName(d Digest) string { return RefBundlePrefix + d.Hex() }

// ProfileRefName is the ref that keeps the profile tree d alive.
func ProfileRefName(d Digest) string { return RefProfilePrefix + d.Hex() }

// ReceiptRefName is the ref that keeps the receipt d alive.
func ReceiptRefName(d Digest) string { return RefReceiptPrefix + d.Hex() }

// TagRefName is the ref of a tag, after checking the tag.
func TagRefName(tag string) (string, error) {
	if err := ValidateTag(tag); err != nil {
		return "", err
	}
	return RefTagPrefix + tag, nil
}

// ValidateRefName checks a ref name: 1 to MaxRefNameLength bytes of printable ASCII without
// spaces or backslashes, slash-separated non-empty elements, no "..". Names in the bundles/,
// profiles/ and receipts/ namespaces must end in 64 lowercase hex, and tags/ names must be
// valid tags.
func ValidateRefName(name string) error {
	if name == "" || len(name) > MaxRefNameLength {
		return fmt.Errorf("%w: %q: length %d is not within 1..%d", ErrInvalidRef, name, len(name), MaxRefNameLength)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' || c == '\\' {
			return fmt.Errorf("%w: %q: byte %#x at %d is not printable ASCII", ErrInvalidRef, name, c, i)
		}
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("%w: %q contains \"..\"", ErrInvalidRef, name)
	}
	if name[0] == '/' || name[len(name)-1] == '/' || strings.Contains(name, "//") {
		return fmt.Errorf("%w: %q has an empty path element", ErrInvalidRef, name)
	}
	for _, ns := range digestNamespaces {
		if rest, ok := strings.CutPrefix(name, ns); ok {
			if _, err := ParseDigest(DigestPrefix + rest); err != nil {
				return fmt.Errorf("%w: %q: a %s ref must end in 64 lowercase hex", ErrInvalidRef, name, ns)
			}
		}
	}
	if tag, ok := strings.CutPrefix(name, RefTagPrefix); ok {
		return ValidateTag(tag)
	}
	return nil
}

// ValidateTag checks a tag with the grammar of OCI image tags (OCI distribution spec,
// "Pulling manifests": [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}), so a tag survives export as an
// org.opencontainers.image.ref.name annotation, and without "..". A tag may look like hex;
// Resolve then reports an ambiguity if it also matches a digest prefix.
func ValidateTag(tag string) error {
	if tag == "" || len(tag) > MaxTagLength {
		return fmt.Errorf("%w: tag %q: length %d is not within 1..%d", ErrInvalidRef, tag, len(tag), MaxTagLength)
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '.' || c == '-')
		if !ok {
			return fmt.Errorf("%w: tag %q: character %q at %d is not allowed (letters, digits, '_', and '.' or '-' after the first)", ErrInvalidRef, tag, c, i)
		}
	}
	if strings.Contains(tag, "..") {
		return fmt.Errorf("%w: tag %q contains \"..\"", ErrInvalidRef, tag)
	}
	return nil
}

// DigestOfRef returns the digest a ref name in one of the digest namespaces (bundles/,
// profiles/, receipts/) carries in its name. ok is false for other names.
func DigestOfRef(name string) (d Digest, ok bool) {
	for _, ns := range digestNamespaces {
		if rest, found := strings.CutPrefix(name, ns); found {
			parsed, err := ParseDigest(DigestPrefix + rest)
			return parsed, err == nil
		}
	}
	return Digest{}, false
}

// refNamespace returns the namespace of a ref name: everything up to and including the first
// slash, or the whole name.
func refNamespace(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i+1]
	}
	return name
}
