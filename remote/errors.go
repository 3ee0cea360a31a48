package remote

import "github.com/oasis-replay/oasis-replay/internal/errclass"

var (
	// ErrURL: a remote URL that is not oci://HOST[:PORT]/REPOSITORY or s3://BUCKET[/PREFIX].
	ErrURL = errclass.New(errclass.Input, "remote: bad URL")
	// ErrName: a remote name that is not a short identifier, or one given twice.
	ErrName = errclass.New(errclass.Input, "remote: bad name")
	// ErrUnknown: no remote of that name.
	ErrUnknown = errclass.New(errclass.NotFound, "remote: unknown remote")
	// ErrNotFound: the remote holds no object, manifest or name of that kind.
	ErrNotFound = errclass.New(errclass.NotFound, "remote: not found")
	// ErrAmbiguous: a digest prefix names more than one bundle on the remote.
	ErrAmbiguous = errclass.New(errclass.Input, "remote: ambiguous reference")
	// ErrIntegrity: what the remote returned does not match its digest or size, or is not a
	// well-formed wrapper or referrer: a tampered or damaged remote.
	ErrIntegrity = errclass.New(errclass.Integrity, "remote: integrity")
	// ErrConfig: the remotes file cannot be read or written as it is.
	ErrConfig = errclass.New(errclass.Environment, "remote: remotes file")
	// ErrConflict: a mutable name on the remote changed while it was being written.
	ErrConflict = errclass.New(errclass.InUse, "remote: concurrent update")
)
