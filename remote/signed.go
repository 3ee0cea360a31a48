package remote

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrEnvelope: a signed receipt to attach is not a DSSE envelope around an in-toto statement
// with one bundle as its subject.
var ErrEnvelope = errclass.New(errclass.Input, "remote: not a signed receipt")

// SubjectOf returns the bundle a signed receipt (a DSSE envelope around an in-toto statement,
// as replay --sign writes it; see package attest) is about: its one subject's sha256 digest.
// It does not verify the signature: that is for whoever holds the key (receipt verify); a push
// only needs to know which wrapper to attach the envelope to.
func SubjectOf(envelope []byte) (store.Digest, error) {
	var env struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
	}
	if err := json.Unmarshal(envelope, &env); err != nil {
		return store.Digest{}, fmt.Errorf("%w: %w", ErrEnvelope, err)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		if payload, err = base64.URLEncoding.DecodeString(env.Payload); err != nil {
			return store.Digest{}, fmt.Errorf("%w: payload: %w", ErrEnvelope, err)
		}
	}
	var st struct {
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return store.Digest{}, fmt.Errorf("%w: statement: %w", ErrEnvelope, err)
	}
	if len(st.Subject) != 1 {
		return store.Digest{}, fmt.Errorf("%w: the statement has %d subjects, not 1", ErrEnvelope, len(st.Subject))
	}
	d, err := store.ParseDigest(store.DigestPrefix + st.Subject[0].Digest["sha256"])
	if err != nil {
		return store.Digest{}, fmt.Errorf("%w: subject: %w", ErrEnvelope, err)
	}
	return d, nil
}
