// Package attest signs and verifies receipts: the statement "this bundle, evaluated against
// this definition by this evaluator, gives this verdict", as a DSSE envelope around an in-toto
// Statement, signed with an Ed25519 key. Anyone holding the public key can check, offline,
// that the holder of the private key vouched for a verdict, and that nothing of it changed.
//
// # Envelope
//
// A signed receipt file is one DSSE v1.0 envelope, canonical JSON (RFC 8785) followed by a
// newline:
//
//	{"payload":"<base64>","payloadType":"application/vnd.in-toto+json",
//	 "signatures":[{"keyid":"<64 hex>","sig":"<base64>"}]}
//
// payload is the statement's bytes in standard base64 (padded); sig is the Ed25519 signature,
// in standard base64, of PAE(payloadType, payload) (DSSE v1.0, "Protocol"):
// "DSSEv1" SP LEN(payloadType) SP payloadType SP LEN(payload) SP payload, lengths in ASCII
// decimal. keyid is the lowercase hex SHA-256 of the signer's public key in PKIX DER form (the
// bytes inside its PEM file). Ed25519 is deterministic: the same statement and key always
// give the same file.
//
// Verification accepts what DSSE allows other producers to write: payload and sig in
// standard or URL-safe base64, padded or not; unknown envelope fields; several signatures, of
// which signatures naming another keyid are skipped and one without a keyid is tried. The
// envelope is valid for a key when its payloadType is application/vnd.in-toto+json and at
// least one signature verifies under that key.
//
// # Statement
//
// The payload is an in-toto Statement v1 in canonical JSON, with exactly these fields:
//
//	{"_type":"https://in-toto.io/Statement/v1",
//	 "subject":[{"name":"sha256:<bundle hex>","digest":{"sha256":"<bundle hex>"}}],
//	 "predicateType":"https://github.com/oasis-replay/oasis-replay/attestation/receipt/v1",
//	 "predicate":{…}}
//
// One subject: the bundle, named by its digest, digest.sha256 its 64 lowercase hex (the bundle
// id without "sha256:").
//
// # Predicate
//
// The predicate, version 1 (PredicateType), is the same for every kind of bundle:
//
//	"predicate": {
//	  "bundle":     {"kind": "run-manifest", "digest": "sha256:…"},
//	  "definition": {"kind": "profile-tree", "id": "…", "version": "…", "digest": "sha256:…"},
//	  "evaluator":  {"name": "…", "version": "…", "rules_digest": "sha256:…"},
//	  "verdict":    "sha256:…",
//	  "receipt":    "sha256:…"
//	}
//
// bundle is the subject again, with the kind of its manifest (store.Kind). definition is what
// the evidence was evaluated against: for an OASIS run the pinned profile tree (kind
// "profile-tree", the profile's id and version, the tree object's digest). evaluator is the
// evaluator's name, version and the digest of its rule tables. verdict is the digest of the
// canonical verdict; receipt the digest of the canonical receipt object (store.Receipt) the
// evaluation stores, which binds the same digests. Every digest is required.
//
// Another kind of bundle (a Kensa run, an Eval Library run) gets receipts by filling a
// Predicate with its manifest kind, its own definition (kind, id, version, digest of the
// scenario set it is evaluated against), its evaluator and its verdict and receipt digests —
// replay.Receipt.Predicate does so from a store.Receipt whose BundleKind names the kind;
// signing, verification and the commands are unchanged.
//
// # Keys
//
// GenerateKey writes the private key as PKCS#8 PEM ("PRIVATE KEY") with mode 0600, and the
// public key beside it (".pub") as PKIX PEM ("PUBLIC KEY"), refusing to replace existing
// files unless told to. LoadSigner refuses a private key file that group or others can access
// (mode & 077 ≠ 0), saying how to fix it: a key others could read vouches for nothing. Errors
// name key files, never their content.
//
// # Errors
//
// Envelope and statement are read with the project's document model (internal/doc): strict
// JSON, positions in errors, at most 1 MiB and 16 levels of nesting, and no member given twice.
//
// ErrKey (a key that cannot be used) and ErrEnvelope (a file that cannot be read, is not JSON,
// is not a JSON object, or is larger or deeper than an envelope) are errors of input.
// ErrInvalid (wrong payload type, bad base64, no signature that verifies under the key, a
// member of the wrong type, a member given twice in the envelope or the statement, a payload
// that is not a receipt statement) and ErrMismatch (a valid statement that names another
// bundle, definition, verdict or receipt than expected, see Statement.Check) are findings about
// the receipt. A member given twice is a finding, not an error of input: the file reads, but
// it says two things (two payloads, of which one verifier would check the first and another the
// last), which is what tampering looks like.
package attest
