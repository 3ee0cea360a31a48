package profiles

import "testing"

func TestDecodeBase64Text(t *testing.T) {
	for in, want := range map[string]string{
		"c3VwZXItc2VjcmV0LXBhc3N3b3Jk": "super-secret-password",
		"YWRtaW4=":                     "admin",
		"8080":                         "", // decodes to non-printable bytes
		"info":                         "",
		"not base64!":                  "",
		"":                             "",
	} {
		got, ok := decodeBase64Text(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q → %q %v, want %q", in, got, ok, want)
		}
	}
}
