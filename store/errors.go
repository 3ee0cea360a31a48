package store

import "github.com/oasis-replay/oasis-replay/internal/errclass"

// Sentinel errors of the store. Callers test them with errors.Is; messages wrap them with the
// digest, kind or field concerned.
var (
	// ErrInvalidDigest: a string is not "sha256:<64 lowercase hex>".
	ErrInvalidDigest = errclass.New(errclass.Input, "store: invalid digest")
	// ErrNotCanonical: a value cannot be written as canonical JSON (float, invalid UTF-8, …).
	ErrNotCanonical = errclass.New(errclass.Input, "store: not canonical JSON")
	// ErrNotFound: no blob, object or ref by that name.
	ErrNotFound = errclass.New(errclass.NotFound, "store: not found")
	// ErrAmbiguous: a digest prefix matches more than one bundle.
	ErrAmbiguous = errclass.New(errclass.Input, "store: ambiguous digest prefix")
	// ErrCorrupt: stored bytes do not hash to their digest, or a record cannot be decoded.
	ErrCorrupt = errclass.New(errclass.Integrity, "store: corrupt")
	// ErrUnknownKind: a structured object names a kind this build does not know.
	ErrUnknownKind = errclass.New(errclass.Input, "store: unknown object kind")
	// ErrUnsupportedVersion: a structured object has a schema version this build cannot read.
	ErrUnsupportedVersion = errclass.New(errclass.Input, "store: unsupported schema version")
	// ErrInvalidObject: a structured object is well-formed JSON but breaks a rule of its schema.
	ErrInvalidObject = errclass.New(errclass.Input, "store: invalid object")
	// ErrMissingReference: an object refers to a blob or object that is not in the store.
	ErrMissingReference = errclass.New(errclass.Integrity, "store: missing reference")
	// ErrTooLarge: input exceeds a configured size limit.
	ErrTooLarge = errclass.New(errclass.Input, "store: too large")
	// ErrInvalidRef: a ref or tag name breaks the naming rules.
	ErrInvalidRef = errclass.New(errclass.Input, "store: invalid ref name")
	// ErrWrongEvaluation: a bundle holds another kind of evaluation than the caller reads
	// (a Kensa run given where an OASIS run is expected).
	ErrWrongEvaluation = errclass.New(errclass.Input, "store: bundle of another kind of evaluation")
)
