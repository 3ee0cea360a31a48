package archive

import (
	"bytes"
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// object is a structured object of the bundle, decoded as far as the archive needs: its kind,
// its references, and for the two kinds that carry bundle rules, the decoded value.
type object struct {
	kind     store.Kind
	refs     []store.Descriptor
	manifest store.Manifest // set for a bundle manifest, of any kind
	receipt  *store.Receipt // set for a receipt
}

// decodeObject decodes the canonical bytes of a structured object with the store's own decoders,
// so the archive accepts exactly the objects the store accepts.
func decodeObject(b []byte) (*object, error) {
	h, err := store.PeekHeader(b)
	if err != nil {
		return nil, err
	}
	o := &object{kind: h.Kind}
	switch {
	case store.IsManifestKind(h.Kind):
		if o.manifest, err = store.DecodeBundleManifest(b); err != nil {
			return nil, err
		}
		o.refs = o.manifest.References()
	case h.Kind == store.KindReceipt:
		if o.receipt, err = store.DecodeReceipt(b); err != nil {
			return nil, err
		}
		o.refs = o.receipt.References()
	default:
		if _, o.refs, err = store.ReferencesOf(b); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// checkObject validates an object read from an archive: bounded nesting and values, canonical
// form (the store refuses anything else, and canonical form is what makes its digest its
// identity, so no name is given twice), a decodable schema, and the kind its descriptor
// promised.
func checkObject(name string, b []byte, want store.Kind, lim Limits) (*object, error) {
	canonical, err := store.CanonicalizeWithin(name, b, lim.MaxJSONDepth, lim.MaxObjectValues)
	if err != nil {
		return nil, docError(err, ErrInvalidObject)
	}
	if !bytes.Equal(canonical, b) {
		return nil, fmt.Errorf("%w: %s is not in canonical JSON form", ErrInvalidObject, name)
	}
	o, err := decodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidObject, name, err)
	}
	if o.kind != want {
		return nil, fmt.Errorf("%w: %s is a %s object but is referenced as a %s", ErrInvalidObject, name, o.kind, want)
	}
	return o, nil
}

// checkBundle enforces what makes an archive hold one bundle: the only bundle manifest in it is
// the bundle's own, unless the bundle is made of other bundles (store.HoldsBundles: a matrix
// and its runs), and every receipt in it is a receipt for that bundle.
func (o *object) checkBundle(name string, d, bundle store.Digest, holdsBundles bool) error {
	switch {
	case o.manifest != nil && d != bundle && !holdsBundles:
		return fmt.Errorf("%w: %s is a second bundle manifest; the archive's bundle is %s", ErrInvalidObject, name, bundle)
	case o.receipt != nil && o.receipt.Bundle != bundle:
		return fmt.Errorf("%w: %s is a receipt for bundle %s, not for %s", ErrInvalidObject, name, o.receipt.Bundle, bundle)
	}
	return nil
}
