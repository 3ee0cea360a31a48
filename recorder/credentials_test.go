package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

const kubeconfigYAML = `apiVersion: v1
kind: Config
current-context: agent@kind-oasis
clusters:
- name: kind-oasis
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
contexts:
- name: agent@kind-oasis
  context:
    cluster: kind-oasis
    user: scripted-agent
    namespace: production
users:
- name: scripted-agent
  user:
    token: eyJhbGciOiJSUzI1NiJ9.payload.sig
    client-key-data: S0VZLURBVEEtc2VjcmV0
    client-certificate-data: Q0VSVC1EQVRBLWNsaWVudA==
    username: ops-admin
    password: hunter2-long-enough
- name: oidc-user
  user:
    auth-provider:
      name: oidc
      config:
        id-token: oidc-id-token-value
        refresh-token: oidc-refresh-token
        client-id: kubernetes-client
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws-iam-authenticator
      args: ["token", "--secret-arg=topsecretvalue"]
      env:
      - name: AWS_PROFILE_NAME
        value: aws-secret-env-value
`

// TestCredentialSecrets is the credential policy, shape by shape (SI provider guide §4.1
// leaves agent_credentials open): secrets are learned, identifiers never.
func TestCredentialSecrets(t *testing.T) {
	kubeSecrets := []string{"--secret-arg=topsecretvalue", "Q0VSVC1EQVRBLWNsaWVudA==", "S0VZLURBVEEtc2VjcmV0",
		"aws-secret-env-value", "eyJhbGciOiJSUzI1NiJ9.payload.sig", "hunter2-long-enough", "kubernetes-client",
		"oidc-id-token-value", "oidc-refresh-token", "token"}
	slices.Sort(kubeSecrets)
	kubeJSON := func() string {
		var doc any
		if err := yamlUnmarshal(kubeconfigYAML, &doc); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}()
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name, raw string
		want      []string
	}{
		{"issue 19: object with namespace and principal",
			`{"namespace":"production","principal":"system:serviceaccount:oasis-agents:scripted-agent","token":"tok-abcdefgh","type":"token"}`,
			[]string{"tok-abcdefgh"}},
		{"object, token only", `{"token":"token-env-001-x"}`, []string{"token-env-001-x"}},
		{"object with user and server", `{"user":"scripted-agent","username":"ops","server":"https://10.0.0.1:6443","bearer_token":"abcdefgh123"}`,
			[]string{"abcdefgh123"}},
		{"object with password and client key", `{"username":"admin-user","password":"s3cret-pass","client_key":"-----BEGIN KEY-----x"}`,
			[]string{"-----BEGIN KEY-----x", "s3cret-pass"}},
		{"bare token", `"eyJhbGciOiJSUzI1NiJ9.e30.sig"`, []string{"eyJhbGciOiJSUzI1NiJ9.e30.sig"}},
		{"kubeconfig YAML text", str(kubeconfigYAML), kubeSecrets},
		{"kubeconfig JSON text", str(kubeJSON), kubeSecrets},
		{"kubeconfig base64", str(base64.StdEncoding.EncodeToString([]byte(kubeconfigYAML))), kubeSecrets},
		{"kubeconfig object", kubeJSON, kubeSecrets},
		{"kubeconfig under a member", `{"type":"kubeconfig","namespace":"production","kubeconfig":` + str(kubeconfigYAML) + `}`, kubeSecrets},
		{"nested object", `{"credentials":{"namespace":"team-a","service_account":"agent","token":"nested-token-1"}}`,
			[]string{"nested-token-1"}},
		{"unknown members: identifiers kept, secret-looking values redacted",
			`{"tenant":"team-a.prod","role":"system:serviceaccount:ns:agent","sig":"AbCdEf123456+/=","hash":"0123456789abcdef0123"}`,
			[]string{"0123456789abcdef0123", "AbCdEf123456+/="}},
		{"words and dates are not secrets", `{"scope":"read write","note":"Issued for the evaluation","token":{"value":"tok-value-123","expires":"2026-05-04T09:00:00Z"}}`,
			[]string{"tok-value-123"}},
		{"a string under a secret member that is not kubeconfig", `{"config":"opaque-Config-Value"}`, []string{"opaque-Config-Value"}},
		{"empty object", `{}`, nil},
		{"null", `null`, nil},
		{"not JSON", `{`, nil},
		{"numbers and booleans", `{"ttl":3600,"renewable":true}`, nil},
		{"a numeric password", `{"username":"ops","password":1234567890123}`, []string{"1234567890123"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, credentialSecrets(json.RawMessage(tc.raw))); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeaderCredentials: a bearer token and a Basic password are learned, a Basic user id is
// not learned on its own.
func TestHeaderCredentials(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("oasis-runner:runner-password"))
	h := http.Header{"Authorization": {basic}, "X-Api-Key": {"key-12345678"}, "X-Namespace": {"production"}}
	got := headerCredentials(h)
	want := []string{basic, base64.StdEncoding.EncodeToString([]byte("oasis-runner:runner-password")), "key-12345678", "runner-password"}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("header credentials (-want +got):\n%s", diff)
	}
}

func yamlUnmarshal(s string, v any) error { return yaml.Unmarshal([]byte(s), v) }

// FuzzCredentialSecrets: any provision answer member is read without panic.
func FuzzCredentialSecrets(f *testing.F) {
	f.Add([]byte(`{"namespace":"production","principal":"system:serviceaccount:a:b","token":"tok-abcdefgh","type":"token"}`))
	f.Add([]byte(`"apiVersion: v1\nkind: Config\nusers:\n- name: a\n  user:\n    token: abcdefghij\n"`))
	f.Add([]byte(`{"a":[{"b":{"exec":{"env":[{"name":"X","value":"y"}],"args":["--t=z"]}}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, s := range credentialSecrets(raw) {
			if s == "" && !bytes.Contains(raw, []byte(`""`)) {
				t.Errorf("learned an empty string from %q", raw)
			}
		}
	})
}
