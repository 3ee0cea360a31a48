package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReceiptVerifyAmbiguousOrMalformed: `receipt verify` reads the envelope strictly. A valid
// signed receipt given a second payload, before or after the signed one, is invalid (exit
// status 1): one verifier would check the first and another the last. A file that is not an
// envelope at all (not JSON, nested deeper or larger than an envelope) is an error of input
// (exit status 2).
func TestReceiptVerifyAmbiguousOrMalformed(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	key := filepath.Join(dir, "signer.key")
	signed := filepath.Join(dir, "signed.json")
	for _, args := range [][]string{{"demo"}, {"receipt", "keygen", "-o", key}, {"replay", "--sign", key, "--receipt", signed, "demo"}} {
		if status, _, stderr := runArgs(append([]string{"--store", store}, args...)...); status != exitOK {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), status, stderr)
		}
	}
	file, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.TrimSuffix(bytes.TrimSuffix(file, []byte("\n")), []byte("}"))
	for _, tc := range []struct {
		name, content string
		status        int
		want          string
	}{
		{"as signed", string(file), exitOK, ""},
		{"a second payload first", `{"payload":"e30=",` + string(file[1:]), exitMismatch, `duplicate key "payload"`},
		{"a second payload last", string(body) + `,"payload":"e30="}`, exitMismatch, `duplicate key "payload"`},
		{"not JSON", "payload=e30=", exitError, "not a JSON object: envelope:1:1"},
		{"nested too deep", `{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, exitError, "Limits.MaxDepth is 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "receipt.json")
			if err := os.WriteFile(f, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			status, _, stderr := runArgs("--store", store, "receipt", "verify", "--key", key+".pub", f)
			if status != tc.status || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", status, stderr, tc.status, tc.want)
			}
		})
	}
}
