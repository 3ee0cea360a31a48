package auditlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// DetectFormat tells the two forms of a Kubernetes audit log apart from their first
// bytes: audit.k8s.io Event objects one per line, as the apiserver's log backend writes them
// (store.MediaTypeK8sAuditEvents), or one EventList document, as its webhook backend posts
// them (store.MediaTypeK8sAuditEventList). The top-level "kind" of the first document decides;
// a first document that spans several lines can only be an EventList; without a decision the
// log is read as lines, whose reader rejects an EventList line by name. Anything that does not
// begin with a JSON object is an error.
func DetectFormat(head []byte) (string, error) {
	head = bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", errors.New("empty audit log")
	}
	if trimmed[0] != '{' {
		return "", fmt.Errorf("not an audit log: it begins with %q, not a JSON object", firstRune(trimmed))
	}
	first, _, complete := bytes.Cut(trimmed, []byte("\n"))
	if kind, ok := topLevelKind(trimmed); ok {
		if kind == "EventList" {
			return store.MediaTypeK8sAuditEventList, nil
		}
		return store.MediaTypeK8sAuditEvents, nil
	}
	if complete && !json.Valid(bytes.TrimSpace(first)) {
		return store.MediaTypeK8sAuditEventList, nil // a document spread over lines
	}
	return store.MediaTypeK8sAuditEvents, nil
}

func firstRune(b []byte) string {
	r := []rune(string(b[:min(len(b), 4)]))
	if len(r) == 0 {
		return ""
	}
	return string(r[0])
}

// topLevelKind reads the "kind" member of the first JSON object in b, if it comes before the
// end of b.
func topLevelKind(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if key == "kind" {
			var kind string
			if json.Unmarshal(v, &kind) != nil {
				return "", false
			}
			return kind, true
		}
	}
	return "", false
}
