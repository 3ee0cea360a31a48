package attest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// testKey derives a fixed key from a label, so that test envelopes are the same on every run.
func testKey(label string) *Signer {
	seed := sha256.Sum256([]byte("attest test key " + label))
	return NewSigner(ed25519.NewKeyFromSeed(seed[:]))
}

func digest(label string) store.Digest { return store.Sum([]byte(label)) }

func testPredicate() Predicate {
	return Predicate{
		Bundle:     Artifact{Kind: string(store.KindRunManifest), Digest: digest("bundle")},
		Definition: Definition{Kind: string(store.KindProfileTree), ID: "oasis-profile-example", Version: "1.0.0", Digest: digest("profile")},
		Evaluator:  store.EvaluatorInfo{Name: "oasis-replay", Version: "0.1.0", RulesDigest: digest("rules")},
		Verdict:    digest("verdict"),
		Receipt:    digest("receipt"),
	}
}

func mustSign(t testing.TB, k *Signer, s *Statement) []byte {
	t.Helper()
	b, err := k.Sign(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignVerify(t *testing.T) {
	k := testKey("a")
	st := NewStatement(testPredicate())
	file := mustSign(t, k, st)
	if again := mustSign(t, k, NewStatement(testPredicate())); !bytes.Equal(file, again) {
		t.Error("signing the same statement twice gives two files")
	}
	got, err := k.Public().Verify(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.Predicate != st.Predicate || got.Subject[0].Digest["sha256"] != digest("bundle").Hex() {
		t.Errorf("statement %+v", got)
	}
	var env Envelope
	if err := json.Unmarshal(file, &env); err != nil {
		t.Fatal(err)
	}
	if env.PayloadType != PayloadType || len(env.Signatures) != 1 || env.Signatures[0].KeyID != k.KeyID() {
		t.Errorf("envelope %+v", env)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	for _, want := range []string{`"_type":"https://in-toto.io/Statement/v1"`, `"predicateType":"` + PredicateType + `"`,
		`"subject":[{"digest":{"sha256":"` + digest("bundle").Hex() + `"},"name":"` + digest("bundle").String() + `"}]`,
		`"evaluator":{"name":"oasis-replay","rules_digest":"` + digest("rules").String() + `","version":"0.1.0"}`} {
		if !strings.Contains(string(payload), want) {
			t.Errorf("payload %s lacks %s", payload, want)
		}
	}
}

// TestPAE checks the encoding against the example of the DSSE specification (v1.0, "Protocol"
// test vector: payload type "http://example.com/HelloWorld", payload "hello world").
func TestPAE(t *testing.T) {
	want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"
	if got := string(PAE("http://example.com/HelloWorld", []byte("hello world"))); got != want {
		t.Errorf("PAE %q, want %q", got, want)
	}
}

func TestKeyID(t *testing.T) {
	k := testKey("a")
	der, err := x509.MarshalPKIXPublicKey(k.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	if k.KeyID() != hex.EncodeToString(sum[:]) || k.Public().KeyID() != k.KeyID() {
		t.Errorf("key id %s", k.KeyID())
	}
}

// edit decodes an envelope, lets f change it and encodes it again.
func edit(t *testing.T, file []byte, f func(*Envelope)) []byte {
	t.Helper()
	var env Envelope
	if err := json.Unmarshal(file, &env); err != nil {
		t.Fatal(err)
	}
	f(&env)
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rePayload replaces the statement of an envelope, keeping its signature.
func rePayload(t *testing.T, change func(*Statement)) func(*Envelope) {
	return func(env *Envelope) {
		st := NewStatement(testPredicate())
		change(st)
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		env.Payload = base64.StdEncoding.EncodeToString(b)
	}
}

func TestVerifyRejects(t *testing.T) {
	k, other := testKey("a"), testKey("b")
	file := mustSign(t, k, NewStatement(testPredicate()))
	signWith := func(s *Signer, payloadType string, payload []byte) func(*Envelope) {
		return func(env *Envelope) {
			env.PayloadType, env.Payload = payloadType, base64.StdEncoding.EncodeToString(payload)
			env.Signatures = []Signature{{KeyID: s.KeyID(), Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, PAE(payloadType, payload)))}}
		}
	}
	for _, tc := range []struct {
		name string
		file []byte
		err  error
	}{
		{"not JSON", []byte("hello"), ErrEnvelope},
		{"a JSON array", []byte("[]"), ErrEnvelope},
		{"empty", nil, ErrEnvelope},
		{"fields of the wrong type", []byte(`{"payloadType":1,"payload":"","signatures":[]}`), ErrInvalid},
		{"larger than an envelope", []byte(`{"x":"` + strings.Repeat("a", 1<<20) + `"}`), ErrEnvelope},
		{"deeper than an envelope", []byte(`{"x":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`), ErrEnvelope},
		{"two payloads, the signed one last", duplicate(t, file, "payload", `"e30="`), ErrInvalid},
		{"two payloads, the signed one first", duplicateAfter(t, file, "payload", `"e30="`), ErrInvalid},
		{"two payload types", duplicate(t, file, "payloadType", `"application/json"`), ErrInvalid},
		{"a signature with two keyids", []byte(strings.Replace(string(file), `{"keyid"`, `{"keyid":"x","keyid"`, 1)), ErrInvalid},
		{"statement with a member twice", edit(t, file, signWith(k, PayloadType, []byte(strings.Replace(string(mustPayload(t)), `{"_type"`, `{"_type":"x","_type"`, 1)))), ErrInvalid},
		{"statement followed by data", edit(t, file, signWith(k, PayloadType, append(mustPayload(t), " {}"...))), ErrInvalid},
		{"tampered payload", edit(t, file, rePayload(t, func(s *Statement) { s.Predicate.Verdict = digest("other verdict") })), ErrInvalid},
		{"tampered signature", edit(t, file, func(env *Envelope) {
			sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
			sig[0] ^= 1
			env.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig)
		}), ErrInvalid},
		{"signature not base64", edit(t, file, func(env *Envelope) { env.Signatures[0].Sig = "!!" }), ErrInvalid},
		{"payload not base64", edit(t, file, func(env *Envelope) { env.Payload = "!!" }), ErrInvalid},
		{"no signature", edit(t, file, func(env *Envelope) { env.Signatures = nil }), ErrInvalid},
		{"signed by another key", mustSign(t, other, NewStatement(testPredicate())), ErrInvalid},
		{"another key's id on our signature", edit(t, file, func(env *Envelope) { env.Signatures[0].KeyID = other.KeyID() }), ErrInvalid},
		{"wrong payload type", edit(t, file, func(env *Envelope) { env.PayloadType = "application/json" }), ErrInvalid},
		{"wrong payload type, signed so", edit(t, file, signWith(k, "application/json", mustPayload(t))), ErrInvalid},
		{"payload not JSON, signed", edit(t, file, signWith(k, PayloadType, []byte("not json"))), ErrInvalid},
		{"statement of another type", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) { s.Type = "https://in-toto.io/Statement/v0.1" }))), ErrInvalid},
		{"another predicate type", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) { s.PredicateType = "https://slsa.dev/provenance/v1" }))), ErrInvalid},
		{"subject not the bundle", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) { s.Subject[0].Digest["sha256"] = digest("x").Hex() }))), ErrInvalid},
		{"two subjects", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) { s.Subject = append(s.Subject, s.Subject[0]) }))), ErrInvalid},
		{"upper-case subject hex", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) {
			s.Subject[0].Digest["sha256"] = strings.ToUpper(s.Subject[0].Digest["sha256"])
		}))), ErrInvalid},
		{"no verdict", edit(t, file, signWith(k, PayloadType, mustStatementJSON(t, func(s *Statement) { s.Predicate.Verdict = store.Digest{} }))), ErrInvalid},
		{"unknown field", edit(t, file, signWith(k, PayloadType, []byte(strings.Replace(string(mustPayload(t)), `{"_type"`, `{"extra":1,"_type"`, 1)))), ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := k.Public().Verify(tc.file); !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
		})
	}
}

// duplicate gives the envelope file a first member named name, with the JSON value value,
// before the one it has.
func duplicate(t *testing.T, file []byte, name, value string) []byte {
	t.Helper()
	if !bytes.HasPrefix(file, []byte("{")) {
		t.Fatalf("not an object: %s", file)
	}
	return append([]byte(`{"`+name+`":`+value+`,`), file[1:]...)
}

// duplicateAfter gives the envelope file a last member named name, with the JSON value value,
// after the one it has.
func duplicateAfter(t *testing.T, file []byte, name, value string) []byte {
	t.Helper()
	end := bytes.LastIndexByte(file, '}')
	return append(append(bytes.Clone(file[:end]), `,"`+name+`":`+value+`}`...), file[end+1:]...)
}

func mustPayload(t *testing.T) []byte {
	t.Helper()
	b, err := NewStatement(testPredicate()).Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustStatementJSON is a statement changed by change, encoded without validation.
func mustStatementJSON(t *testing.T, change func(*Statement)) []byte {
	t.Helper()
	st := NewStatement(testPredicate())
	change(st)
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyAccepts: what DSSE lets other producers write still verifies.
func TestVerifyAccepts(t *testing.T) {
	k, other := testKey("a"), testKey("b")
	file := mustSign(t, k, NewStatement(testPredicate()))
	otherSig := edit(t, mustSign(t, other, NewStatement(testPredicate())), func(*Envelope) {})
	var o Envelope
	json.Unmarshal(otherSig, &o)
	for name, f := range map[string]func(*Envelope){
		"URL-safe unpadded base64": func(env *Envelope) {
			p, _ := base64.StdEncoding.DecodeString(env.Payload)
			s, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
			env.Payload, env.Signatures[0].Sig = base64.RawURLEncoding.EncodeToString(p), base64.RawURLEncoding.EncodeToString(s)
		},
		"no key id":                   func(env *Envelope) { env.Signatures[0].KeyID = "" },
		"another key's signature too": func(env *Envelope) { env.Signatures = append(o.Signatures, env.Signatures...) },
		"a bad signature first":       func(env *Envelope) { env.Signatures = append([]Signature{{Sig: "AAAA"}}, env.Signatures...) },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := k.Public().Verify(edit(t, file, f)); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("members DSSE does not define", func(t *testing.T) {
		extra := strings.Replace(string(duplicate(t, file, "comment", `{"by":["us"]}`)), `{"keyid"`, `{"extension":{"x":1},"keyid"`, 1)
		if _, err := k.Public().Verify([]byte(extra)); err != nil {
			t.Error(err)
		}
	})
}

func TestCheck(t *testing.T) {
	st := NewStatement(testPredicate())
	if err := st.Check(Expect{Bundle: digest("bundle"), Verdict: digest("verdict")}); err != nil {
		t.Error(err)
	}
	for _, e := range []Expect{{Bundle: digest("x")}, {Definition: digest("x")}, {Verdict: digest("x")}, {Receipt: digest("x")}} {
		if err := st.Check(e); !errors.Is(err, ErrMismatch) {
			t.Errorf("Check(%+v) = %v", e, err)
		}
	}
}

func TestKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "receipt.key")
	k, err := GenerateKey(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, path + PublicKeySuffix: 0o644} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: %v, %v; want mode %o", p, info.Mode(), err, mode)
		}
	}
	pem, _ := os.ReadFile(path)
	if !bytes.HasPrefix(pem, []byte("-----BEGIN PRIVATE KEY-----\n")) {
		t.Errorf("private key file %.30q", pem)
	}
	signer, err := LoadSigner(path)
	if err != nil || signer.KeyID() != k.KeyID() {
		t.Fatalf("LoadSigner: %v", err)
	}
	verifier, err := LoadVerifier(path + PublicKeySuffix)
	if err != nil || verifier.KeyID() != k.KeyID() {
		t.Fatalf("LoadVerifier: %v", err)
	}
	if _, err := verifier.Verify(mustSign(t, signer, NewStatement(testPredicate()))); err != nil {
		t.Error(err)
	}
	if _, err := GenerateKey(path, false, nil); !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("overwrite without force: %v", err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, pem) {
		t.Error("a refused keygen changed the key")
	}
	if k2, err := GenerateKey(path, true, nil); err != nil || k2.KeyID() == k.KeyID() {
		t.Errorf("overwrite with force: %v", err)
	}
}

func TestKeyFilesRejected(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	if _, err := GenerateKey(path, false, nil); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	priv, _ := os.ReadFile(path)
	pub, _ := os.ReadFile(path + PublicKeySuffix)
	loose := write("loose", string(priv), 0o644)
	if _, err := LoadSigner(loose); !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable private key: %v", err)
	}
	for name, load := range map[string]func() error{
		"public key as private": func() error { _, err := LoadSigner(write("pubpriv", string(pub), 0o600)); return err },
		"private key as public": func() error { _, err := LoadVerifier(path); return err },
		"not PEM":               func() error { _, err := LoadVerifier(write("text", "hello", 0o644)); return err },
		"missing":               func() error { _, err := LoadVerifier(filepath.Join(dir, "none")); return err },
		"directory":             func() error { _, err := LoadSigner(dir); return err },
		"PEM of garbage": func() error {
			_, err := LoadVerifier(write("g", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", 0o644))
			return err
		},
		"private key of garbage": func() error {
			_, err := LoadSigner(write("gp", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", 0o600))
			return err
		},
	} {
		err := load()
		if !errors.Is(err, ErrKey) {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "MC4CAQAwBQYDK2Vw") { // the PKCS#8 Ed25519 prefix in base64
			t.Errorf("%s: the error quotes the key: %v", name, err)
		}
	}
}
