package remote

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"oci://registry.example.com/evidence/acme", "oci://registry.example.com/evidence/acme", nil},
		{"oci://127.0.0.1:5000/a", "oci://127.0.0.1:5000/a", nil},
		{"oci://[::1]:5000/a/b-c/d_e", "oci://[::1]:5000/a/b-c/d_e", nil},
		{"s3://acme-evidence", "s3://acme-evidence", nil},
		{"s3://acme-evidence/runs/2026/", "s3://acme-evidence/runs/2026", nil},
		{"oci://registry.example.com/Evidence", "", ErrURL},
		{"oci://registry.example.com", "", ErrURL},
		{"oci://reg istry/a", "", ErrURL},
		{"s3://Bad_Bucket/x", "", ErrURL},
		{"s3://bucket/a//b", "", ErrURL},
		{"s3://bucket/a/../b", "", ErrURL},
		{"https://registry.example.com/a", "", ErrURL},
		{"registry.example.com/a", "", ErrURL},
	} {
		u, err := ParseURL(tc.in)
		if !errors.Is(err, tc.err) || (err == nil && u.String() != tc.want) {
			t.Errorf("ParseURL(%q) = %q, %v; want %q, %v", tc.in, u.String(), err, tc.want, tc.err)
		}
	}
}

func TestSplitReference(t *testing.T) {
	for _, tc := range []struct {
		in, remote, ref string
		ok              bool
	}{
		{"oci://h/r@sha256:ab", "oci://h/r", "sha256:ab", true},
		{"origin@v1", "origin", "v1", true},
		{"s3://b/p@demo", "s3://b/p", "demo", true},
		{"demo", "", "", false},
		{"sha256:ab", "", "", false},
		{"@x", "", "", false},
		{"origin@", "", "", false},
	} {
		r, ref, ok := SplitReference(tc.in)
		if r != tc.remote || ref != tc.ref || ok != tc.ok {
			t.Errorf("SplitReference(%q) = %q, %q, %v", tc.in, r, ref, ok)
		}
	}
}

// TestConfig: remotes are added (URL made canonical), listed by name, found, removed, and
// survive a save and a load; a taken or malformed name and an unknown remote are errors.
func TestConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", ConfigFile)
	c, err := LoadConfig(path)
	if err != nil || len(c.Remotes) != 0 {
		t.Fatalf("missing file: %+v, %v", c, err)
	}
	for _, e := range []Entry{{Name: "zeta", URL: "s3://bucket/p/"}, {Name: "alpha", URL: "oci://h:5000/r", PlainHTTP: true}} {
		if err := c.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Add(Entry{Name: "alpha", URL: "s3://other"}); !errors.Is(err, ErrName) {
		t.Errorf("a taken name: %v", err)
	}
	if err := c.Add(Entry{Name: "-x", URL: "s3://other"}); !errors.Is(err, ErrName) {
		t.Errorf("a malformed name: %v", err)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Remotes) != 2 || c.Remotes[0].Name != "alpha" || !c.Remotes[0].PlainHTTP || c.Remotes[1].URL != "s3://bucket/p" {
		t.Fatalf("loaded %+v", c.Remotes)
	}
	if err := c.Remove("alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Find("alpha"); !errors.Is(err, ErrUnknown) {
		t.Errorf("removed remote: %v", err)
	}
	if err := c.Remove("nosuch"); !errors.Is(err, ErrUnknown) {
		t.Errorf("remove unknown: %v", err)
	}
}

// TestSubjectOf reads the bundle a DSSE envelope's statement is about.
func TestSubjectOf(t *testing.T) {
	hex := "ee6f0205dddb71a4ce08ca846150d60279bf168517e9534231d4450090c94121"
	// base64 of {"subject":[{"digest":{"sha256":"<hex>"}}]}
	env := []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"eyJzdWJqZWN0IjpbeyJkaWdlc3QiOnsic2hhMjU2IjoiZWU2ZjAyMDVkZGRiNzFhNGNlMDhjYTg0NjE1MGQ2MDI3OWJmMTY4NTE3ZTk1MzQyMzFkNDQ1MDA5MGM5NDEyMSJ9fV19","signatures":[]}`)
	d, err := SubjectOf(env)
	if err != nil || d.Hex() != hex {
		t.Fatalf("SubjectOf = %s, %v", d, err)
	}
	if _, err := SubjectOf([]byte(`{"payload":"e30="}`)); !errors.Is(err, ErrEnvelope) {
		t.Errorf("no subject: %v", err)
	}
}
