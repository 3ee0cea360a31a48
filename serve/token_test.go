package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const secretFile = "0123456789abcdef0123456789abcdef\n" // as echo writes it: a final newline

// TestSignedTokensVerify: a token from TokenSigner passes Auth with the same secret file's
// content (trailing newline and all) or the matching Ed25519 key, and carries its subject.
func TestSignedTokensVerify(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER})
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})

	hsSigner, err := NewHS256Signer([]byte(secretFile))
	if err != nil {
		t.Fatal(err)
	}
	hsAuth, err := NewHS256Auth([]byte(secretFile))
	if err != nil {
		t.Fatal(err)
	}
	edSigner, err := NewEd25519Signer(privPEM)
	if err != nil {
		t.Fatal(err)
	}
	edAuth, err := NewEd25519Auth(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		signer *TokenSigner
		auth   *Auth
	}{{"HS256", hsSigner, hsAuth}, {"EdDSA", edSigner, edAuth}} {
		t.Run(tt.name, func(t *testing.T) {
			token, err := tt.signer.Sign("ana", time.Now(), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			claims, err := tt.auth.Verify(token)
			if err != nil || claims.Subject != "ana" {
				t.Fatalf("Verify: %+v, %v; want subject ana", claims, err)
			}
		})
	}
	if _, err := hsSigner.Sign("ana", time.Now(), 0); err == nil {
		t.Error("Sign with a zero lifetime: no error")
	}
	if _, err := NewEd25519Signer(pubPEM); err == nil {
		t.Error("NewEd25519Signer of a public key: no error")
	}
}

// TestRefusedSaysWhy: every refused request is reported with its reason, never its token,
// while the client still gets a bare 401.
func TestRefusedSaysWhy(t *testing.T) {
	auth, err := NewHS256Auth([]byte(secretFile))
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := NewHS256Signer([]byte(secretFile))
	untrimmed := &TokenSigner{key: []byte(secretFile), method: signer.method} // signed with the file's bytes as they are
	other, _ := NewHS256Signer([]byte("another secret of at least 32 bytes"))
	now := time.Now()
	token := func(s *TokenSigner, at time.Time, ttl time.Duration) string {
		tok, err := s.Sign("ana", at, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	var reasons []string
	auth.Refused = func(r *http.Request, reason string) { reasons = append(reasons, r.Method+" "+r.URL.Path+": "+reason) }
	h := auth.Require(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	tests := []struct{ header, want string }{
		{"", "no Authorization header"},
		{"Basic YW5hOnB3", "not Bearer TOKEN"},
		{"Bearer ", "an empty bearer token"},
		{"Bearer not-a-jwt", "a malformed token"},
		{"Bearer " + token(other, now, time.Hour), "a bad signature"},
		{"Bearer " + token(untrimmed, now, time.Hour), "surrounding whitespace is not part of the key"},
		{"Bearer " + token(signer, now.Add(-2*time.Hour), time.Hour), "an expired token"},
		{"Bearer " + token(signer, now.Add(time.Hour), time.Hour), "not valid yet"},
		{"Bearer " + token(signer, now, time.Hour), ""},
	}
	for _, tt := range tests {
		reasons = nil
		req := httptest.NewRequest(http.MethodGet, "/eval/report", nil)
		if tt.header != "" {
			req.Header.Set("Authorization", tt.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if tt.want == "" {
			if rec.Code != http.StatusOK || len(reasons) != 0 {
				t.Errorf("%q: %d, refused %q; want it let through", tt.header, rec.Code, reasons)
			}
			continue
		}
		if rec.Code != http.StatusUnauthorized || rec.Body.Len() != 0 {
			t.Errorf("%q: %d %q; want a bare 401", tt.header, rec.Code, rec.Body.String())
		}
		if len(reasons) != 1 || !strings.Contains(reasons[0], tt.want) || !strings.HasPrefix(reasons[0], "GET /eval/report: ") {
			t.Errorf("%q: refused %q; want one reason with %q", tt.header, reasons, tt.want)
		}
		if _, tok, _ := strings.Cut(tt.header, " "); len(reasons) == 1 && len(tok) > 8 && strings.Contains(reasons[0], tok) {
			t.Errorf("%q: the reason quotes the token: %q", tt.header, reasons[0])
		}
	}
}
