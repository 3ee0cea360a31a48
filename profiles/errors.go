package profiles

import "github.com/oasis-replay/oasis-replay/internal/errclass"

// Sentinel errors of the package. Messages wrap them with the file, field, scenario or digest
// concerned; callers test them with errors.Is.
var (
	// ErrInvalidProfile: the profile breaks a rule of the OASIS spec or of its own documents.
	// The error is a *ValidationError listing every diagnostic.
	ErrInvalidProfile = errclass.New(errclass.Input, "profiles: invalid profile")
	// ErrUnsupportedFile: the profile directory holds a symlink, device, socket or other
	// non-regular file, or a path the profile tree cannot represent.
	ErrUnsupportedFile = errclass.New(errclass.Input, "profiles: unsupported file")
	// ErrTooLarge: a file, or the whole directory, exceeds a size or count limit.
	ErrTooLarge = errclass.New(errclass.Input, "profiles: too large")
	// ErrTreeMismatch: profile content read back from a store does not rebuild the tree digest
	// that was asked for, or the store returned other bytes than the tree names.
	ErrTreeMismatch = errclass.New(errclass.Integrity, "profiles: tree mismatch")
	// ErrAmbiguousConditional: more than one conditional assertion block of a scenario matches
	// an agent configuration (Scenarios §1.10).
	ErrAmbiguousConditional = errclass.New(errclass.Input, "profiles: more than one conditional matches")
	// ErrInvalidOption: an option passed to Load or Import is malformed.
	ErrInvalidOption = errclass.New(errclass.Input, "profiles: invalid option")
)
