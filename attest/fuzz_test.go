package attest

import (
	"errors"
	"testing"
)

// FuzzVerify: whatever the file, Verify does not panic, returns a statement only when it
// returns no error, classifies every error with a sentinel, and accepts nothing it did not
// sign unless the bytes hold a valid signature of the key (checked by re-signing: a statement
// it accepts, signed again, verifies too).
func FuzzVerify(f *testing.F) {
	k := testKey("a")
	good, err := k.Sign(NewStatement(testPredicate()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(spaced(f, k)) // leading white space is still JSON
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"","sig":"AAAA"}]}`))
	f.Add([]byte(`{"payloadType":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{})
	v := k.Public()
	f.Fuzz(func(t *testing.T, file []byte) {
		st, err := v.Verify(file)
		if err != nil {
			if st != nil {
				t.Error("a statement with an error")
			}
			if !errors.Is(err, ErrEnvelope) && !errors.Is(err, ErrInvalid) {
				t.Errorf("unclassified error %v", err)
			}
			return
		}
		again, err := k.Sign(st)
		if err != nil {
			t.Fatalf("an accepted statement does not sign: %v", err)
		}
		if _, err := v.Verify(again); err != nil {
			t.Errorf("an accepted statement, signed again, does not verify: %v", err)
		}
	})
}

func spaced(f *testing.F, k *Signer) []byte {
	b, err := k.Sign(NewStatement(testPredicate()))
	if err != nil {
		f.Fatal(err)
	}
	return append([]byte(" "), b...)
}
