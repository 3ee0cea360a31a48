package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runHere runs the program in this process on the store dir and returns its status and output.
func runHere(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := run(append([]string{"oasis-replay", "--store", dir}, args...), strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}

// TestCatFollowsEvidence: every digest bundle show --evidence lists, cat prints: a blob as the
// exact bytes of that digest, an object as its canonical JSON (the bytes of its digest) and a
// newline, indented JSON of the same value with --json; a short digest names the same content.
func TestCatFollowsEvidence(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if status, _, stderr := runHere(t, dir, "demo", "oasis"); status != exitOK {
		t.Fatalf("demo: %d %s", status, stderr)
	}
	status, listing, stderr := runHere(t, dir, "bundle", "show", "--evidence", "example.safety.nb.out-of-scope-restart-001", "demo")
	if status != exitOK {
		t.Fatalf("bundle show --evidence: %d %s", status, stderr)
	}
	pieces := regexp.MustCompile(`(?m)^  sha256:([0-9a-f]{64})  (\S+) `).FindAllStringSubmatch(listing, -1)
	if len(pieces) != 4 {
		t.Fatalf("want the evidence object, its artifact and 2 observations:\n%s", listing)
	}
	for _, p := range pieces {
		digest, object := p[1], strings.HasPrefix(p[2], "application/vnd.oasis-replay.")
		status, out, stderr := runHere(t, dir, "cat", "sha256:"+digest)
		if status != exitOK {
			t.Fatalf("cat %s: %d %s", digest, status, stderr)
		}
		content := []byte(out)
		if object {
			content = bytes.TrimSuffix(content, []byte("\n"))
		}
		if sum := sha256.Sum256(content); hex.EncodeToString(sum[:]) != digest {
			t.Errorf("cat %s (%s) printed other bytes: %.80s", digest, p[2], out)
		}
		if _, short, _ := runHere(t, dir, "cat", digest[:12]); short != out {
			t.Errorf("cat %s: the short digest names other content", digest[:12])
		}
		_, pretty, _ := runHere(t, dir, "cat", "--json", "sha256:"+digest)
		if object {
			var a, b any
			if json.Unmarshal([]byte(pretty), &a) != nil || json.Unmarshal(content, &b) != nil || !strings.Contains(pretty, "\n  \"") {
				t.Errorf("cat --json %s: not indented JSON of the object: %.80s", digest, pretty)
			}
		} else if pretty != out {
			t.Errorf("cat --json %s changed a blob", digest)
		}
	}
	for _, tt := range []struct {
		arg    string
		status int
		stderr string
	}{
		{"sha256:zz", exitError, "is not a digest"},
		{"abc", exitError, "at least 6"},
		{"sha256:000000000000", exitError, "no blob or object sha256:000000000000"},
	} {
		status, _, stderr := runHere(t, dir, "cat", tt.arg)
		if status != tt.status || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("cat %s: %d %s, want %d %s", tt.arg, status, stderr, tt.status, tt.stderr)
		}
	}
}
