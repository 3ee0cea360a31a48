package attest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Sentinel errors of the package. ErrKey and ErrEnvelope are errors of input (a key or a file
// that cannot be used); ErrInvalid and ErrMismatch are findings about a receipt that could be
// read: it is not validly signed by the key, or it does not say what was expected.
var (
	// ErrKey: a key file cannot be read, is not a PEM Ed25519 key of the right kind, or (a
	// private key) can be read by others than its owner.
	ErrKey = errclass.New(errclass.Input, "attest: bad key")
	// ErrEnvelope: the receipt file cannot be read or is not a JSON object (malformed JSON,
	// larger or deeper than an envelope can be).
	ErrEnvelope = errclass.New(errclass.Input, "attest: not a DSSE envelope")
	// ErrInvalid: the envelope is not validly signed by the key (wrong payload type, bad
	// base64, no signature that verifies, a member given twice, a member of the wrong type) or
	// its payload is not a receipt statement.
	ErrInvalid = errclass.New(errclass.Integrity, "attest: invalid signed receipt")
	// ErrMismatch: the statement is validly signed but names another bundle, definition,
	// verdict or receipt than expected.
	ErrMismatch = errclass.New(errclass.Integrity, "attest: signed receipt does not match")
)

// envelopeLimits bound a receipt file, read with the document model: a statement of a few
// digests is under 2 KiB, and neither the envelope nor the statement nests more than 4 deep.
var envelopeLimits = doc.Limits{MaxBytes: 1 << 20, MaxDepth: 16}

// Envelope is a DSSE envelope (DSSE v1.0, "Envelope"): the payload in standard base64 and its
// signatures.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one signature of an envelope: the signing key's id and the base64 signature.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// PAE is DSSE's pre-authentication encoding (DSSE v1.0, "Protocol"): what is signed is
// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal, so that the
// payload type is signed with the payload and no two (type, body) pairs encode alike.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// Sign returns the envelope of s signed with the signer's key, as the bytes of a receipt
// file: canonical JSON and a newline. Ed25519 signatures are deterministic, so the same
// statement and key always give the same file.
func (k *Signer) Sign(s *Statement) ([]byte, error) {
	payload, err := s.Encode()
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(k.key, PAE(PayloadType, payload))
	env := Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []Signature{{KeyID: k.keyID, Sig: base64.StdEncoding.EncodeToString(sig)}}}
	b, err := store.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("attest: encode the envelope: %w", err)
	}
	return append(b, '\n'), nil
}

// Verify checks a receipt file: a DSSE envelope whose payload type is PayloadType, with at
// least one signature that verifies under the key (signatures naming another key id are
// skipped; one without a key id is tried), over a payload that is a receipt statement. It
// returns the statement.
func (v *Verifier) Verify(file []byte) (*Statement, error) {
	env, err := decodeEnvelope(file)
	if err != nil {
		return nil, err
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("%w: payloadType %q, want %q", ErrInvalid, env.PayloadType, PayloadType)
	}
	payload, err := decodeBase64(env.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrInvalid, err)
	}
	if !v.signed(env.Signatures, PAE(env.PayloadType, payload)) {
		return nil, fmt.Errorf("%w: none of its %d signature(s) verifies with key %s", ErrInvalid, len(env.Signatures), v.keyID)
	}
	return decodeStatement(payload)
}

// signed reports whether one of sigs is the key's signature of msg.
func (v *Verifier) signed(sigs []Signature, msg []byte) bool {
	for _, s := range sigs {
		if s.KeyID != "" && s.KeyID != v.keyID {
			continue
		}
		if sig, err := decodeBase64(s.Sig); err == nil && ed25519.Verify(v.key, msg, sig) {
			return true
		}
	}
	return false
}

// envelopeFile is an envelope as a file holds it: DSSE lets producers add members to the
// envelope and to its signatures, which are ignored.
type envelopeFile struct {
	PayloadType string          `json:"payloadType"`
	Payload     string          `json:"payload"`
	Signatures  []signatureFile `json:"signatures"`
	Others      doc.Extra
}

type signatureFile struct {
	Signature
	Others doc.Extra
}

// decodeEnvelope reads an envelope with the document model (internal/doc). A file that is not
// one JSON object within envelopeLimits is ErrEnvelope: it cannot be read as an envelope. A
// member given twice is ErrInvalid: the file reads, but which payload or signature it means is
// ambiguous, as a tampered file would be (encoding/json would take the last one, another
// verifier the first). So are members of the wrong type.
func decodeEnvelope(file []byte) (*Envelope, error) {
	n, err := doc.ParseJSON("envelope", file, envelopeLimits)
	switch {
	case errors.Is(err, doc.ErrDuplicateKey):
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	case errors.Is(err, doc.ErrLimit):
		return nil, fmt.Errorf("%w: %w", ErrEnvelope, err)
	case err != nil:
		return nil, fmt.Errorf("%w: not a JSON object: %w", ErrEnvelope, err)
	case n.Kind() != doc.Object:
		return nil, fmt.Errorf("%w: the file holds %s, not a JSON object", ErrEnvelope, n.Kind().Article())
	}
	var f envelopeFile
	if err := doc.Decode(n, &f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	env := &Envelope{PayloadType: f.PayloadType, Payload: f.Payload}
	for _, s := range f.Signatures {
		env.Signatures = append(env.Signatures, s.Signature)
	}
	return env, nil
}

// decodeBase64 reads standard or URL-safe base64, padded or not: DSSE lets producers use
// either.
func decodeBase64(s string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		var b []byte
		if b, err = enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, err
}
