package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Object is a structured object of the model: it knows its kind and what it refers to.
type Object interface {
	// ObjectKind is the kind written in the object's header.
	ObjectKind() Kind
	// References lists the blobs and objects this object points at, in a stable order.
	References() []Descriptor
}

// MediaTypeOf returns the media type of a structured object kind, or "" for an unknown kind.
func MediaTypeOf(k Kind) string { return kinds[k].mediaType }

// KindOfMediaType is the inverse of MediaTypeOf; ok is false for blob media types.
func KindOfMediaType(mediaType string) (k Kind, ok bool) {
	for k, info := range kinds {
		if info.mediaType == mediaType {
			return k, true
		}
	}
	return "", false
}

// Encode writes obj as canonical JSON, stamping its header, and returns the bytes and their
// descriptor. It validates the object first: the store never holds an object it cannot load.
func Encode(obj Object) ([]byte, Descriptor, error) {
	stampHeader(obj)
	if v, ok := obj.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return nil, Descriptor{}, err
		}
	}
	b, err := Marshal(obj)
	if err != nil {
		return nil, Descriptor{}, fmt.Errorf("encode %s: %w", obj.ObjectKind(), err)
	}
	return b, Descriptor{MediaType: MediaTypeOf(obj.ObjectKind()), Digest: Sum(b), Size: int64(len(b))}, nil
}

func stampHeader(obj Object) {
	if o, ok := obj.(interface{ SetHeader(Header) }); ok {
		o.SetHeader(Header{Kind: obj.ObjectKind(), SchemaVersion: SchemaVersion})
	}
}

// PeekHeader reads the kind and schema version of a structured object, checking both.
func PeekHeader(b []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("%w: not a structured object: %v", ErrCorrupt, err)
	}
	return h, h.check()
}

// check requires a kind this build knows, at the schema version it reads.
func (h Header) check() error {
	if MediaTypeOf(h.Kind) == "" {
		return fmt.Errorf("%w: %q", ErrUnknownKind, h.Kind)
	}
	if h.SchemaVersion != SchemaVersion {
		return fmt.Errorf("%w: %s schema_version %d (this build reads %d)", ErrUnsupportedVersion, h.Kind, h.SchemaVersion, SchemaVersion)
	}
	return nil
}

// header returns the header an object embeds.
func (h *Header) header() Header { return *h }

// Decode loads a structured object of the kind obj expects from b: header checked, unknown
// fields rejected, schema rules validated.
//
// b is parsed once when it decodes: the header is then checked as obj holds it. Only b that
// does not decode (or an obj without a Header) is read again for its header (PeekHeader),
// whose error comes first, as the header is checked before the rest. The objects of Kensa runs
// are read from their canonical form without reflection when they are in it (kensadecode.go).
func Decode(b []byte, obj Object) error {
	var decodeErr error
	if !decodeCanonical(b, obj) {
		decodeErr = decodeStrict(b, obj)
	}
	var h Header
	var err error
	if o, embeds := obj.(interface{ header() Header }); embeds && decodeErr == nil {
		h = o.header()
		err = h.check()
	} else {
		h, err = PeekHeader(b)
	}
	if err != nil {
		return err
	}
	if h.Kind != obj.ObjectKind() {
		return fmt.Errorf("%w: object is a %s, expected a %s", ErrInvalidObject, h.Kind, obj.ObjectKind())
	}
	if decodeErr != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidObject, h.Kind, decodeErr)
	}
	if v, ok := obj.(interface{ validate() error }); ok {
		return v.validate()
	}
	return nil
}

// decodeStrict decodes b, one JSON value with nothing after it but whitespace, into obj,
// refusing unknown fields. obj's header is cleared first, so that what it holds afterwards is
// b's.
func decodeStrict(b []byte, obj Object) error {
	if o, ok := obj.(interface{ SetHeader(Header) }); ok {
		o.SetHeader(Header{})
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return err
	}
	for _, c := range b[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return errors.New("trailing data")
		}
	}
	return nil
}

// DecodeManifest decodes a run manifest.
func DecodeManifest(b []byte) (*RunManifest, error) {
	var m RunManifest
	return &m, Decode(b, &m)
}

// DecodeScenarioEvidence decodes one scenario's evidence.
func DecodeScenarioEvidence(b []byte) (*ScenarioEvidence, error) {
	var e ScenarioEvidence
	return &e, Decode(b, &e)
}

// DecodeProfileTree decodes a profile tree.
func DecodeProfileTree(b []byte) (*ProfileTree, error) {
	var t ProfileTree
	return &t, Decode(b, &t)
}

// DecodeReceipt decodes a receipt.
func DecodeReceipt(b []byte) (*Receipt, error) {
	var r Receipt
	return &r, Decode(b, &r)
}

// ReferencesOf returns the references of any structured object given its bytes, for graph
// walks (fsck, gc, export) that do not care about the concrete type. Verdicts are leaves.
func ReferencesOf(b []byte) (Kind, []Descriptor, error) {
	h, err := PeekHeader(b)
	if err != nil {
		return "", nil, err
	}
	info := kinds[h.Kind]
	if info.decode == nil {
		return h.Kind, nil, nil // a leaf kind decoded above the store
	}
	obj := info.decode()
	if err := Decode(b, obj); err != nil {
		return h.Kind, nil, err
	}
	return h.Kind, obj.References(), nil
}

// ObjectKind implements Object.
func (*ScenarioEvidence) ObjectKind() Kind { return KindScenarioEvidence }

// ObjectKind implements Object.
func (*RunManifest) ObjectKind() Kind { return KindRunManifest }

// ObjectKind implements Object.
func (*ProfileTree) ObjectKind() Kind { return KindProfileTree }

// ObjectKind implements Object.
func (*Receipt) ObjectKind() Kind { return KindReceipt }

// ObjectKind implements Object.
func (*WireLog) ObjectKind() Kind { return KindWireLog }

// References implements Object: the exchanges, in call order.
func (w *WireLog) References() []Descriptor {
	refs := make([]Descriptor, 0, len(w.Calls))
	for _, c := range w.Calls {
		refs = append(refs, c.Exchange)
	}
	return refs
}

func (w *WireLog) validate() error {
	for i, c := range w.Calls {
		field := fmt.Sprintf("wire-log: calls[%d]", i)
		if c.Seq != i+1 {
			return fmt.Errorf("%w: %s: seq %d, expected %d (calls are in arrival order)", ErrInvalidObject, field, c.Seq, i+1)
		}
		if c.Start <= 0 || c.End <= c.Start {
			return fmt.Errorf("%w: %s: start %d, end %d: a call ends after it starts", ErrInvalidObject, field, c.Start, c.End)
		}
		if c.Side != SideProvider && c.Side != SideAgent {
			return fmt.Errorf("%w: %s: side %q", ErrInvalidObject, field, c.Side)
		}
		if err := c.Exchange.validate(field + ".exchange"); err != nil {
			return err
		}
	}
	return nil
}

// DecodeWireLog decodes a wire log.
func DecodeWireLog(b []byte) (*WireLog, error) {
	var w WireLog
	return &w, Decode(b, &w)
}

// LoadWireLog reads the wire log a run manifest records: nil, and no error, for a run that
// was not recorded on the wire.
func LoadWireLog(ctx context.Context, s ObjectGetter, m *RunManifest) (*WireLog, error) {
	if m.WireLog == nil {
		return nil, nil
	}
	b, err := s.GetObject(ctx, m.WireLog.Digest)
	if err == nil {
		var w *WireLog
		if w, err = DecodeWireLog(b); err == nil {
			return w, nil
		}
	}
	return nil, fmt.Errorf("wire log %s: %w", m.WireLog.Digest, err)
}

// References implements Object: the observation payloads, in observation order, then the
// source artifact.
func (e *ScenarioEvidence) References() []Descriptor {
	refs := make([]Descriptor, 0, len(e.Observations)+1)
	for _, o := range e.Observations {
		refs = append(refs, o.Data)
	}
	if e.Artifact != nil {
		refs = append(refs, *e.Artifact)
	}
	return refs
}

// References implements Object: the profile tree, the conformance answer, every scenario's
// evidence, the claimed report, the sources, then the wire log.
func (m *RunManifest) References() []Descriptor {
	var refs []Descriptor
	refs = append(refs, Descriptor{MediaType: MediaTypeProfileTree, Digest: m.Profile.Tree})
	if m.Conformance != nil {
		refs = append(refs, *m.Conformance)
	}
	for _, s := range m.Scenarios {
		if s.Evidence != nil {
			refs = append(refs, *s.Evidence)
		}
	}
	if m.Claimed != nil {
		refs = append(refs, *m.Claimed)
	}
	for _, src := range m.Sources {
		refs = append(refs, src.Blob)
	}
	if m.WireLog != nil {
		refs = append(refs, *m.WireLog)
	}
	return refs
}

// References implements Object: every file, in path order.
func (t *ProfileTree) References() []Descriptor {
	refs := make([]Descriptor, 0, len(t.Entries))
	for _, e := range t.Entries {
		refs = append(refs, e.Blob)
	}
	return refs
}

// References implements Object: the bundle manifest, the profile tree and the verdict.
func (r *Receipt) References() []Descriptor {
	return []Descriptor{
		{MediaType: MediaTypeOf(r.BundleManifestKind()), Digest: r.Bundle},
		{MediaType: MediaTypeProfileTree, Digest: r.Profile},
		{MediaType: MediaTypeVerdict, Digest: r.Verdict},
	}
}

func (d Descriptor) validate(field string) error {
	if d.Digest.IsZero() {
		return fmt.Errorf("%w: %s: missing digest", ErrInvalidObject, field)
	}
	if d.Size < 0 {
		return fmt.Errorf("%w: %s: negative size %d", ErrInvalidObject, field, d.Size)
	}
	if d.MediaType == "" {
		return fmt.Errorf("%w: %s: missing media_type", ErrInvalidObject, field)
	}
	return nil
}

func (e *ScenarioEvidence) validate() error {
	if e.ScenarioID == "" {
		return fmt.Errorf("%w: scenario-evidence: missing scenario_id", ErrInvalidObject)
	}
	for i, o := range e.Observations {
		field := fmt.Sprintf("scenario-evidence %s: observations[%d]", e.ScenarioID, i)
		if o.Type == "" {
			return fmt.Errorf("%w: %s: missing observation_type", ErrInvalidObject, field)
		}
		if err := o.Data.validate(field + ".data"); err != nil {
			return err
		}
	}
	if e.Artifact != nil {
		return e.Artifact.validate(fmt.Sprintf("scenario-evidence %s: artifact", e.ScenarioID))
	}
	return nil
}

func (m *RunManifest) validate() error {
	if m.Profile.Tree.IsZero() {
		return fmt.Errorf("%w: run-manifest: missing profile.tree", ErrInvalidObject)
	}
	seen := make(map[string]bool, len(m.Scenarios))
	for i, s := range m.Scenarios {
		if s.ScenarioID == "" {
			return fmt.Errorf("%w: run-manifest: scenarios[%d]: missing scenario_id", ErrInvalidObject, i)
		}
		if seen[s.ScenarioID] {
			return fmt.Errorf("%w: run-manifest: scenarios[%d]: duplicate scenario_id %q", ErrInvalidObject, i, s.ScenarioID)
		}
		seen[s.ScenarioID] = true
		if s.Evidence != nil {
			if err := s.Evidence.validate(fmt.Sprintf("run-manifest: scenarios[%d].evidence", i)); err != nil {
				return err
			}
		}
	}
	if m.Conformance != nil {
		if err := m.Conformance.validate("run-manifest: conformance"); err != nil {
			return err
		}
	}
	if m.Claimed != nil {
		if err := m.Claimed.validate("run-manifest: claimed"); err != nil {
			return err
		}
	}
	if m.Redaction != nil {
		if err := m.Redaction.validate(); err != nil {
			return err
		}
	}
	if m.WireLog != nil {
		if err := m.WireLog.validate("run-manifest: wire_log"); err != nil {
			return err
		}
	}
	for i, src := range m.Sources {
		if err := src.Blob.validate(fmt.Sprintf("run-manifest: sources[%d] (%s)", i, src.Path)); err != nil {
			return err
		}
	}
	return nil
}

func (t *ProfileTree) validate() error {
	if t.ProfileID == "" || t.Version == "" {
		return fmt.Errorf("%w: profile-tree: missing profile_id or version", ErrInvalidObject)
	}
	if !slices.IsSortedFunc(t.Entries, func(a, b TreeEntry) int { return strings.Compare(a.Path, b.Path) }) {
		return fmt.Errorf("%w: profile-tree %s: entries not sorted by path", ErrInvalidObject, t.ProfileID)
	}
	for i, e := range t.Entries {
		if i > 0 && t.Entries[i-1].Path == e.Path {
			return fmt.Errorf("%w: profile-tree %s: duplicate path %q", ErrInvalidObject, t.ProfileID, e.Path)
		}
		if err := validTreePath(e.Path); err != nil {
			return fmt.Errorf("%w: profile-tree %s: %v", ErrInvalidObject, t.ProfileID, err)
		}
		if err := e.Blob.validate("profile-tree: " + e.Path); err != nil {
			return err
		}
	}
	return nil
}

func (r *Receipt) validate() error {
	if r.Bundle.IsZero() || r.Profile.IsZero() || r.Verdict.IsZero() {
		return fmt.Errorf("%w: receipt: bundle, profile and verdict digests are all required", ErrInvalidObject)
	}
	if r.BundleKind == KindRunManifest || (r.BundleKind != "" && !IsManifestKind(r.BundleKind)) {
		return fmt.Errorf("%w: receipt: bundle_kind %q: want empty for an OASIS run, else a bundle manifest kind", ErrInvalidObject, r.BundleKind)
	}
	return nil
}

// validTreePath accepts clean, relative, slash-separated paths without "." or ".." elements.
func validTreePath(p string) error {
	if p == "" || p[0] == '/' || p[len(p)-1] == '/' {
		return fmt.Errorf("bad path %q", p)
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			elem := p[start:i]
			if elem == "" || elem == "." || elem == ".." {
				return fmt.Errorf("bad path %q", p)
			}
			start = i + 1
		} else if p[i] == '\\' || p[i] == 0 {
			return fmt.Errorf("bad path %q", p)
		}
	}
	return nil
}
