package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// The credential policy: what the recorder learns as a secret from the agent_credentials a
// provider returns from provision. The SI provider guide §4.1 leaves the member's shape open
// ("kubeconfig content, bearer token, etc."), so every shape is read the same way: the parts
// that carry a secret are redacted from the whole recording, the identifiers never are. An
// identifier redacted everywhere (a namespace, the agent's principal) would hide from the
// evaluator the very resources and audit entries a verdict is about. docs/decisions.md
// ("Which credential fields are secrets") gives each field and the reasons.

// secretKeys name members whose string values (and every string beneath them) are secrets,
// by normalised name (lower case, without '-' and '_'): tokens, passwords, client keys and
// certificates (kubeconfig users[].user: token, password, client-key-data,
// client-certificate-data), and the configuration of credential plugins (auth-provider,
// exec), whose strings are tokens, client secrets and arguments carrying them.
var secretKeys = map[string]bool{
	"token": true, "bearertoken": true, "accesstoken": true, "idtoken": true, "refreshtoken": true, "sessiontoken": true,
	"password": true, "passwd": true, "secret": true, "clientsecret": true, "secretaccesskey": true, "apikey": true,
	"key": true, "privatekey": true, "clientkey": true, "clientkeydata": true, "clientcertificate": true,
	"clientcertificatedata": true, "authorization": true, "authprovider": true, "exec": true,
}

// identifierKeys name members whose string values are identifiers, never redacted: what names
// the agent's scope (namespace, principal, user, service account), where it connects (server,
// URL, endpoint, the cluster's certificate authority, which is public), how kubeconfig
// entries refer to each other (name, cluster, context, current-context), and what kind of
// credential it is (type, kind, apiVersion).
var identifierKeys = map[string]bool{
	"namespace": true, "principal": true, "user": true, "username": true, "serviceaccount": true, "subject": true,
	"name": true, "server": true, "url": true, "endpoint": true, "cluster": true, "context": true, "currentcontext": true,
	"type": true, "kind": true, "apiversion": true, "certificateauthority": true, "certificateauthoritydata": true,
	"tlsservername": true, "proxyurl": true, "as": true, "asgroups": true, "asuid": true, "command": true,
	"installhint": true, "expiry": true, "expiresat": true, "expirationtimestamp": true, "tokenfile": true,
	"expires": true, "expiration": true, "issuedat": true, "notbefore": true, "notafter": true, "ttl": true,
	"email": true, "group": true, "groups": true, "role": true, "roles": true, "scope": true, "scopes": true,
	"tenant": true, "project": true, "region": true,
}

// kubeconfigKeys name members whose string value is kubeconfig content (YAML or JSON text,
// or its base64): it is read as a kubeconfig, and is a secret as a whole only when it is not
// one.
var kubeconfigKeys = map[string]bool{"kubeconfig": true, "config": true, "kubeconfigcontent": true, "kubeconfigdata": true}

func normKey(k string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(k))
}

// credentialSecrets lists the secrets of a provision answer's agent_credentials, sorted: a
// bare string is kubeconfig text (YAML or JSON, or its base64), whose credential parts are
// secrets, or else a token, a secret as a whole; an object is read member by member
// (credentialWalk). A number under a secret member (a numeric PIN or password) is a secret as
// written; other numbers, booleans and null carry nothing.
func credentialSecrets(raw json.RawMessage) []string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(bytes.TrimSpace(raw)) == 0 || dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case string:
		out = textSecrets(v)
	default:
		out = credentialWalk(v, false)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// textSecrets reads a string that is either kubeconfig content or a token.
func textSecrets(s string) []string {
	if doc, ok := kubeconfigText(s); ok {
		return credentialWalk(doc, false)
	}
	return []string{s}
}

// kubeconfigText parses s as a kubeconfig: YAML (JSON is YAML) or the base64 of either, whose
// top level is a mapping with clusters, users, contexts or kind Config.
func kubeconfigText(s string) (any, bool) {
	if doc, ok := kubeconfigDoc(s); ok {
		return doc, true
	}
	t := strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(t); err == nil {
			return kubeconfigDoc(string(b))
		}
	}
	return nil, false
}

func kubeconfigDoc(s string) (any, bool) {
	if !strings.ContainsAny(s, ":\n{") {
		return nil, false
	}
	var doc map[string]any
	if yaml.Unmarshal([]byte(s), &doc) != nil || doc == nil {
		return nil, false
	}
	for k, v := range doc {
		switch normKey(k) {
		case "clusters", "users", "contexts", "currentcontext":
			return doc, true
		case "kind":
			if v == "Config" {
				return doc, true
			}
		}
	}
	return nil, false
}

// credentialWalk lists the secrets in v. Under a secret member (secret true) every string is a
// secret, except those of identifier members (an auth-provider's name, an exec plugin's
// command, an env entry's name). Elsewhere a member is a secret by its name (secretKeys), an
// identifier by its name (identifierKeys), kubeconfig content by its name (kubeconfigKeys);
// a string member of any other name is a secret unless its value looks like an identifier
// (looksLikeIdentifier), and objects and arrays are read the same way within.
func credentialWalk(v any, secret bool) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if secret || !looksLikeIdentifier(v) {
			out = append(out, v)
		}
	case json.Number, int, int64, uint64, float64:
		if secret {
			out = append(out, fmt.Sprint(v))
		}
	case []any:
		for _, e := range v {
			out = append(out, credentialWalk(e, secret)...)
		}
	case map[string]any:
		for k, e := range v {
			out = append(out, memberSecrets(k, e, secret)...)
		}
	}
	return out
}

// memberSecrets lists the secrets of member k (value e) of an object; secret says whether the
// object is itself beneath a secret member.
func memberSecrets(k string, e any, secret bool) []string {
	n := normKey(k)
	s, isString := e.(string)
	switch {
	case identifierKeys[n]:
		if isString {
			return nil
		}
		return credentialWalk(e, secret) // users[].user, contexts[].context: objects within
	case n == "env":
		return envSecrets(e)
	case secretKeys[n] || secret:
		return credentialWalk(e, true)
	case kubeconfigKeys[n] && isString:
		return textSecrets(s)
	}
	return credentialWalk(e, false)
}

// envSecrets reads an exec plugin's env list ([{name, value}]): the values are secrets, the
// names are not.
func envSecrets(e any) []string {
	var out []string
	list, _ := e.([]any)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			if s, ok := m["value"].(string); ok {
				out = append(out, s)
			}
			continue
		}
		out = append(out, credentialWalk(item, true)...)
	}
	return out
}

// looksLikeIdentifier tells a string of a member the policy does not name that is an
// identifier (kept) from one that may be a secret (redacted): words (a space: tokens have
// none; a password with spaces is under a secret name), a URL, or a lower-case name of
// letters, digits and the separators '-', '.', ':', '@', '/', '_' (Kubernetes names,
// "system:serviceaccount:<namespace>:<name>", e-mail-like user names, paths) without a run of
// 16 or more letters and digits (a random token of lower-case letters and digits is
// such a run). Anything else — mixed case, '+', '=', long unbroken runs — is taken for a
// secret: redacting it is the safe error, and the seal's verdict check reports it when it
// changes a verdict.
func looksLikeIdentifier(s string) bool {
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") || strings.Contains(strings.TrimSpace(s), " ") {
		return true
	}
	run := 0
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			run++
			if run >= 16 {
				return false
			}
		case strings.ContainsRune("-.:@/_", c):
			run = 0
		default:
			return false
		}
	}
	return s != ""
}

// basicPassword is the password of an HTTP Basic Authorization value (RFC 7617): the user id
// before the colon is an identifier, the password after it a secret.
func basicPassword(v string) (string, bool) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "", false
	}
	_, pass, ok := strings.Cut(string(b), ":")
	return pass, ok && pass != ""
}
