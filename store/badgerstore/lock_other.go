//go:build !unix

package badgerstore

import (
	"context"
	"time"
)

// On systems without flock(2), Badger locks the directory itself: a second opener fails at
// once, without waiting.
const ownLock = false

type dirLock struct{}

func lockDir(context.Context, string, bool, time.Duration, func(string)) (*dirLock, error) {
	return &dirLock{}, nil
}

func (*dirLock) release() error { return nil }
