package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestEveryClassHasAStatus: a class added to errclass without an exit status fails here rather
// than falling through to a default.
func TestEveryClassHasAStatus(t *testing.T) {
	for _, c := range errclass.Classes() {
		if _, ok := classStatus[c]; !ok {
			t.Errorf("class %v has no exit status in classStatus", c)
		}
	}
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"reported", fmt.Errorf("audit: %w", reported{status: exitMismatch}), exitMismatch},
		{"reported beats the class", errors.Join(reported{status: exitError}, store.ErrCorrupt), exitError},
		{"bad usage", fmt.Errorf("%w: replay: want 1 argument", errBadUsage), exitError},
		{"standard library", fs.ErrPermission, exitError},
		{"cancelled", context.Canceled, exitError},
		{"not found", fmt.Errorf("%w: bundle x: %w", replay.ErrBundle, store.ErrNotFound), exitError},
		{"in use", fmt.Errorf("open: %w", badgerstore.ErrLocked), exitError},
		{"bad report", fmt.Errorf("%w: line 3", oasisctl.ErrMalformed), exitError},
		{"corrupt store under a wrapper", fmt.Errorf("%w: %w", replay.ErrBundle, store.ErrCorrupt), exitMismatch},
		{"profile tree does not rebuild", fmt.Errorf("%w: %w", replay.ErrProfile, profiles.ErrTreeMismatch), exitMismatch},
		{"archive tag conflict is not about the bytes", archive.ErrTagConflict, exitError},
	}
	// Every error an archive's bytes can cause, and the store's own integrity failures, are
	// findings about the data: status 1, wrapped or not.
	for _, err := range []error{store.ErrCorrupt, store.ErrMissingReference,
		archive.ErrCompression, archive.ErrMalformed, archive.ErrTruncated, archive.ErrTrailingData,
		archive.ErrLimit, archive.ErrUnsafePath, archive.ErrBadName, archive.ErrEntryType,
		archive.ErrUnsupportedDigest, archive.ErrDuplicate, archive.ErrMissingEntry, archive.ErrLayout,
		archive.ErrIndex, archive.ErrUnreferenced, archive.ErrMissingBlob, archive.ErrDigestMismatch,
		archive.ErrSizeMismatch, archive.ErrConflict, archive.ErrInvalidObject} {
		tests = append(tests, struct {
			name string
			err  error
			want int
		}{err.Error(), fmt.Errorf("x.tar.zst: %w: entry y", err), exitMismatch})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitStatus(tt.err); got != tt.want {
				t.Errorf("exitStatus(%v) = %d, want %d (class %v)", tt.err, got, tt.want, errclass.Of(tt.err))
			}
		})
	}
}
