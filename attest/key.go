package attest

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// PublicKeySuffix is appended to a private key's file name to name its public key file.
const PublicKeySuffix = ".pub"

// maxKeyFileSize bounds a key file: a PEM Ed25519 key is about 120 bytes.
const maxKeyFileSize = 64 << 10

// Signer signs receipts with an Ed25519 private key.
type Signer struct {
	key   ed25519.PrivateKey
	keyID string
}

// Verifier verifies receipts against an Ed25519 public key.
type Verifier struct {
	key   ed25519.PublicKey
	keyID string
}

// NewSigner returns a signer for key.
func NewSigner(key ed25519.PrivateKey) *Signer {
	return &Signer{key: key, keyID: KeyID(key.Public().(ed25519.PublicKey))}
}

// NewVerifier returns a verifier for key.
func NewVerifier(key ed25519.PublicKey) *Verifier { return &Verifier{key: key, keyID: KeyID(key)} }

// KeyID is the signing key's id: the key id of its public key.
func (k *Signer) KeyID() string { return k.keyID }

// KeyID is the key's id, as signatures name it.
func (v *Verifier) KeyID() string { return v.keyID }

// Public returns the verifier of the signer's key.
func (k *Signer) Public() *Verifier { return NewVerifier(k.key.Public().(ed25519.PublicKey)) }

// KeyID names a public key: the lowercase hex SHA-256 of its PKIX (SubjectPublicKeyInfo) DER
// encoding, the bytes of its PEM file, so that `openssl pkey -pubin -in KEY.pub -outform DER |
// sha256sum` prints it.
func KeyID(pub ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil { // an ed25519.PublicKey of the right size always encodes
		return ""
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// GenerateKey writes a new Ed25519 key pair: path holds the private key (PKCS#8 PEM, mode
// 0600) and path+PublicKeySuffix the public key (PKIX PEM, mode 0644). Unless force, an
// existing file at either path is an error and nothing is written. random is the entropy
// source (crypto/rand.Reader).
func GenerateKey(path string, force bool, random io.Reader) (*Signer, error) {
	pub, priv, err := ed25519.GenerateKey(random)
	if err != nil {
		return nil, fmt.Errorf("%w: generate: %v", ErrKey, err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("%w: encode: %v", ErrKey, err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: encode: %v", ErrKey, err)
	}
	pubPath := path + PublicKeySuffix
	if !force {
		for _, p := range []string{path, pubPath} {
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%w: %s exists (give --force to replace it)", ErrKey, p)
			}
		}
	}
	if err := writeFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	if err := writeFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	return NewSigner(priv), nil
}

// WriteReceipt writes a signed receipt file (mode 0644) as keys are written: atomically.
func WriteReceipt(path string, data []byte) error {
	if err := writeFile(path, data, 0o644); err != nil {
		return fmt.Errorf("attest: write the signed receipt: %w", err)
	}
	return nil
}

// writeFile replaces path with data: a temporary file in the same directory, created with
// mode, synced and renamed, so that a private key is never readable by others, even for a
// moment, and an interrupted write leaves the old file or the new one.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	werr := tmp.Chmod(mode)
	if werr == nil {
		_, werr = tmp.Write(data)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("%s: %w", path, werr)
	}
	return nil
}

// LoadSigner reads a private key file written by GenerateKey (a PKCS#8 PEM Ed25519 key). A
// file that group or others may read is refused: the key is a secret, and a key others could
// read can no longer vouch for anything. Errors name the file, never its content.
func LoadSigner(path string) (*Signer, error) {
	if err := checkPrivate(path); err != nil {
		return nil, err
	}
	der, err := readPEM(path, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: not a PKCS#8 private key", ErrKey, path)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s: a %T, want an Ed25519 key", ErrKey, path, key)
	}
	return NewSigner(priv), nil
}

// LoadVerifier reads a public key file (a PKIX PEM Ed25519 key).
func LoadVerifier(path string) (*Verifier, error) {
	der, err := readPEM(path, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: not a PKIX public key", ErrKey, path)
	}
	pub, ok := key.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s: a %T, want an Ed25519 key", ErrKey, path, key)
	}
	return NewVerifier(pub), nil
}

// checkPrivate refuses a private key file that is not a regular file or that group or others
// may access (on systems with Unix permissions).
func checkPrivate(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrKey, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrKey, path)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s is accessible by others (mode %04o): a private key must be readable by its owner only (chmod 600 %s)",
			ErrKey, path, info.Mode().Perm(), path)
	}
	return nil
}

// readPEM reads the one PEM block of type typ in a key file.
func readPEM(path, typ string) ([]byte, error) {
	// A regular file only, opened without blocking: a named pipe would wait for a writer.
	f, err := inputfile.Open(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKey, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrKey, path, err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes, not a key", ErrKey, path, maxKeyFileSize)
	}
	block, _ := pem.Decode(data)
	switch {
	case block == nil:
		return nil, fmt.Errorf("%w: %s: no PEM block", ErrKey, path)
	case block.Type != typ:
		return nil, fmt.Errorf("%w: %s: a PEM %q block, want %q", ErrKey, path, block.Type, typ)
	}
	return block.Bytes, nil
}
