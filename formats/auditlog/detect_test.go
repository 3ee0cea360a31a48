package auditlog

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		head, want string
		fails      bool
	}{
		{head: `{"kind":"Event","verb":"get"}` + "\n" + `{"kind":"Event"}`, want: store.MediaTypeK8sAuditEvents},
		{head: `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[]}`, want: store.MediaTypeK8sAuditEventList},
		{head: "\ufeff{\n  \"items\": [],\n  \"kind\": \"EventList\"\n}", want: store.MediaTypeK8sAuditEventList},
		{head: "{\n  \"items\": [\n", want: store.MediaTypeK8sAuditEventList}, // spread over lines, cut by the window
		{head: `{"verb":"get"}`, want: store.MediaTypeK8sAuditEvents},
		{head: "", fails: true},
		{head: "[1,2]", fails: true},
		{head: "kind: Event", fails: true},
	}
	for _, tt := range tests {
		got, err := DetectFormat([]byte(tt.head))
		if (err != nil) != tt.fails || got != tt.want {
			t.Errorf("DetectFormat(%q) = %q, %v; want %q (fails %v)", tt.head, got, err, tt.want, tt.fails)
		}
	}
}

// FuzzDetectFormat: detection never panics and only ever names one of the two audit-log media
// types. The committed seeds are in testdata/fuzz/FuzzDetectFormat.
func FuzzDetectFormat(f *testing.F) {
	f.Fuzz(func(t *testing.T, head []byte) {
		mediaType, err := DetectFormat(head)
		if err == nil && mediaType != store.MediaTypeK8sAuditEvents && mediaType != store.MediaTypeK8sAuditEventList {
			t.Fatalf("detected %q", mediaType)
		}
	})
}
