package attest

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// The tests of this file prove interoperability with an independent DSSE implementation,
// go-securesystemslib's dsse package: what this package signs verifies there, what it signs
// verifies here, and both refuse the same tampered envelopes.

// sslibKey is an Ed25519 key as go-securesystemslib's dsse.SignerVerifier, naming itself by
// this package's key id.
type sslibKey struct{ s *Signer }

func (k sslibKey) Sign(_ context.Context, data []byte) ([]byte, error) {
	return ed25519.Sign(k.s.key, data), nil
}

func (k sslibKey) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(k.s.key.Public().(ed25519.PublicKey), data, sig) {
		return errors.New("signature does not verify")
	}
	return nil
}

func (k sslibKey) KeyID() (string, error)   { return k.s.KeyID(), nil }
func (k sslibKey) Public() crypto.PublicKey { return k.s.key.Public() }

// theirVerify verifies file with go-securesystemslib, with threshold signatures among keys.
func theirVerify(t *testing.T, file []byte, threshold int, keys ...*Signer) error {
	t.Helper()
	var env dsse.Envelope
	if err := json.Unmarshal(file, &env); err != nil {
		t.Fatal(err)
	}
	var vs []dsse.Verifier
	for _, k := range keys {
		vs = append(vs, sslibKey{k})
	}
	v, err := dsse.NewMultiEnvelopeVerifier(threshold, vs...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), &env)
	return err
}

// theirSign signs payload with go-securesystemslib, one signature per key.
func theirSign(t *testing.T, payloadType string, payload []byte, keys ...*Signer) []byte {
	t.Helper()
	var svs []dsse.Signer
	for _, k := range keys {
		svs = append(svs, sslibKey{k})
	}
	signer, err := dsse.NewEnvelopeSigner(svs...)
	if err != nil {
		t.Fatal(err)
	}
	env, err := signer.SignPayload(context.Background(), payloadType, payload)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInteropOursVerifiesThere(t *testing.T) {
	k := testKey("a")
	file := mustSign(t, k, NewStatement(testPredicate()))
	if err := theirVerify(t, file, 1, k); err != nil {
		t.Fatalf("go-securesystemslib refuses our envelope: %v", err)
	}
	var env dsse.Envelope
	json.Unmarshal(file, &env)
	payload, err := env.DecodeB64Payload()
	if err != nil || string(payload) != string(mustPayload(t)) {
		t.Errorf("their payload %q, %v", payload, err)
	}
	if string(dsse.PAE(PayloadType, payload)) != string(PAE(PayloadType, payload)) {
		t.Error("the two PAE encodings differ")
	}
	if err := theirVerify(t, file, 1, testKey("b")); err == nil {
		t.Error("go-securesystemslib accepts our envelope under another key")
	}
}

func TestInteropTheirsVerifiesHere(t *testing.T) {
	k := testKey("a")
	file := theirSign(t, PayloadType, mustPayload(t), k)
	st, err := k.Public().Verify(file)
	if err != nil {
		t.Fatalf("their envelope does not verify here: %v", err)
	}
	if st.Predicate != testPredicate() {
		t.Errorf("statement %+v", st.Predicate)
	}
	if _, err := testKey("b").Public().Verify(file); !errors.Is(err, ErrInvalid) {
		t.Errorf("their envelope verifies here under another key: %v", err)
	}
}

// TestInteropTampered: both implementations refuse the same altered envelopes.
func TestInteropTampered(t *testing.T) {
	k := testKey("a")
	for name, file := range map[string][]byte{
		"tampered payload": edit(t, theirSign(t, PayloadType, mustPayload(t), k), rePayload(t, func(s *Statement) { s.Predicate.Receipt = digest("x") })),
		"tampered signature": edit(t, theirSign(t, PayloadType, mustPayload(t), k), func(env *Envelope) {
			sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
			sig[len(sig)-1] ^= 0x80
			env.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig)
		}),
		"tampered payload type": edit(t, mustSign(t, k, NewStatement(testPredicate())), func(env *Envelope) { env.PayloadType = "application/json" }),
		"wrong key":             mustSign(t, testKey("b"), NewStatement(testPredicate())),
	} {
		t.Run(name, func(t *testing.T) {
			if err := theirVerify(t, file, 1, k); err == nil {
				t.Error("go-securesystemslib accepts it")
			}
			if _, err := k.Public().Verify(file); !errors.Is(err, ErrInvalid) {
				t.Errorf("accepted here: %v", err)
			}
		})
	}
}

// TestInteropTwoSignatures: an envelope signed by two keys verifies under either, here and
// there, and meets a threshold of two there.
func TestInteropTwoSignatures(t *testing.T) {
	a, b := testKey("a"), testKey("b")
	file := theirSign(t, PayloadType, mustPayload(t), a, b)
	for _, k := range []*Signer{a, b} {
		if _, err := k.Public().Verify(file); err != nil {
			t.Errorf("key %s: %v", k.KeyID()[:8], err)
		}
	}
	if _, err := testKey("c").Public().Verify(file); !errors.Is(err, ErrInvalid) {
		t.Errorf("a third key: %v", err)
	}
	if err := theirVerify(t, file, 2, a, b); err != nil {
		t.Errorf("go-securesystemslib, threshold 2: %v", err)
	}
	// One of the two signatures tampered: the other still carries the envelope, for its key only.
	half := edit(t, file, func(env *Envelope) { env.Signatures[0].Sig = env.Signatures[1].Sig })
	if _, err := a.Public().Verify(half); !errors.Is(err, ErrInvalid) {
		t.Errorf("key a after its signature was replaced: %v", err)
	}
	if _, err := b.Public().Verify(half); err != nil {
		t.Errorf("key b: %v", err)
	}
	if err := theirVerify(t, half, 2, a, b); err == nil {
		t.Error("go-securesystemslib meets a threshold of 2 with one valid signature")
	}
}
