package bucket

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/remote/remotetest"
	"github.com/oasis-replay/oasis-replay/store"
)

// racer runs race before forwarding the first PUT of a tags/ key: another writer moving the
// tag between this writer's read and its write.
type racer struct {
	race func()
	done atomic.Bool
}

func (r *racer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/tags/") && r.done.CompareAndSwap(false, true) {
		r.race()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestTagsAreConditional: on a real S3 gateway, a tag written or moved while another writer
// moved it is remote.ErrConflict, not a lost update; without a race it is written.
func TestTagsAreConditional(t *testing.T) {
	s := remotetest.StartS3(t, "evidence")
	s.Env(t)
	u, _ := remote.ParseURL("s3://evidence/p")
	ctx := context.Background()
	other, err := Open(u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	desc := func(s string) store.Descriptor {
		return store.Descriptor{MediaType: remote.MediaTypeManifest, Digest: store.Sum([]byte(s)), Size: int64(len(s))}
	}
	for _, tc := range []struct {
		name     string
		existing bool
	}{{"new tag", false}, {"moved tag", true}} {
		t.Run(tc.name, func(t *testing.T) {
			tag := strings.ReplaceAll(tc.name, " ", "-")
			if tc.existing {
				if err := other.SetName(ctx, tag, desc("first"), nil); err != nil {
					t.Fatal(err)
				}
			}
			rc := &racer{race: func() {
				if err := other.SetName(ctx, tag, desc("theirs"), nil); err != nil {
					t.Errorf("the other writer: %v", err)
				}
			}}
			b, err := Open(u, Options{Transport: rc})
			if err != nil {
				t.Fatal(err)
			}
			err = b.SetName(ctx, tag, desc("ours"), nil)
			if !errors.Is(err, remote.ErrConflict) {
				t.Fatalf("SetName racing another writer: %v; want ErrConflict", err)
			}
			got, err := b.ResolveName(ctx, tag)
			if err != nil || got.Digest != desc("theirs").Digest {
				t.Fatalf("tag after the race: %s, %v; want the other writer's", got.Digest, err)
			}
			if err := b.SetName(ctx, tag, desc("ours"), nil); err != nil {
				t.Fatalf("SetName again: %v", err)
			}
			if got, _ := b.ResolveName(ctx, tag); got.Digest != desc("ours").Digest {
				t.Fatalf("tag %s, want ours", got.Digest)
			}
		})
	}
}
