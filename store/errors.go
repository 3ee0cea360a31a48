package store

import "errors"

// Sentinel errors of the store. Callers test them with errors.Is; messages wrap them with the
// digest, kind or field concerned.
var (
	// ErrInvalidDigest: a string is not "sha256:<64 lowercase hex>".
	ErrInvalidDigest = errors.New("store: invalid digest")
	// ErrNotCanonical: a value cannot be written as canonical JSON (float, invalid UTF-8, …).
	ErrNotCanonical = errors.New("store: not canonical JSON")
	// ErrNotFound: no blob, object or ref by that name.
	ErrNotFound = errors.New("store: not found")
	// ErrAmbiguous: a digest prefix matches more than one bundle.
	ErrAmbiguous = errors.New("store: ambiguous digest prefix")
	// ErrCorrupt: stored bytes do not hash to their digest, or a record cannot be decoded.
	ErrCorrupt = errors.New("store: corrupt")
	// ErrUnknownKind: a structured object names a kind this build does not know.
	ErrUnknownKind = errors.New("store: unknown object kind")
	// ErrUnsupportedVersion: a structured object has a schema version this build cannot read.
	ErrUnsupportedVersion = errors.New("store: unsupported schema version")
	// ErrInvalidObject: a structured object is well-formed JSON but breaks a rule of its schema.
	ErrInvalidObject = errors.New("store: invalid object")
	// ErrMissingReference: an object refers to a blob or object that is not in the store.
	ErrMissingReference = errors.New("store: missing reference")
	// ErrTooLarge: input exceeds a configured size limit.
	ErrTooLarge = errors.New("store: too large")
	// ErrInvalidRef: a ref or tag name breaks the naming rules.
	ErrInvalidRef = errors.New("store: invalid ref name")
	// ErrWrongEvaluation: a bundle holds another kind of evaluation than the caller reads
	// (a Kensa run given where an OASIS run is expected).
	ErrWrongEvaluation = errors.New("store: bundle of another kind of evaluation")
)
