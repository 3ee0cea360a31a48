package recorder

import (
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzWebhookBody: format detection and the EventList check of a POST body never panic, and
// detection only ever names one of the two audit-log media types.
func FuzzWebhookBody(f *testing.F) {
	f.Add([]byte(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[{"kind":"Event","verb":"get","user":{"username":"u"}}]}`))
	f.Add([]byte("{\"kind\":\"Event\",\"verb\":\"get\"}\n{\"kind\":\"Event\"}\n"))
	f.Add([]byte("{\n \"items\": [],\n \"kind\": \"EventList\"\n}"))
	f.Add([]byte(`{"kind": 0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mediaType, err := DetectAuditFormat(data)
		if err == nil && mediaType != store.MediaTypeK8sAuditEvents && mediaType != store.MediaTypeK8sAuditEventList {
			t.Fatalf("detected %q", mediaType)
		}
		if err := checkEventList(data); err != nil && !errors.Is(err, ErrInput) {
			t.Fatalf("the check failed with %v, not an input error", err)
		}
	})
}
