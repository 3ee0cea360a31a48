package remote

import (
	"cmp"
	"context"
	"errors"
	"sync"
)

// workers is how many requests a push or pull keeps in flight: a remote is latency bound,
// and the order of completion never reaches what is written (each item's result has its place).
const workers = 8

// forEach runs fn(i) for i in [0, n) on up to workers goroutines and returns the error of the
// lowest i that failed, so that the error reported does not depend on timing. After a failure
// no new item starts.
func forEach(parent context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = fn(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The first failure cancels the others, which then fail with the cancellation: report the
	// lowest i that failed for its own reason.
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) && parent.Err() == nil:
			canceled = cmp.Or(canceled, err)
		default:
			return err
		}
	}
	return cmp.Or(canceled, parent.Err())
}
