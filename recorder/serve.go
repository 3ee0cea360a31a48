package recorder

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultIdle is how long a live recording waits without any request before it seals.
const DefaultIdle = 30 * time.Second

// shutdownGrace bounds how long a live recording waits for requests in flight when it stops.
const shutdownGrace = 10 * time.Second

// activity tracks requests of a live recording, for the idle timeout. Its clock decides only
// when a recording stops, never what a bundle contains.
type activity struct {
	mu       sync.Mutex
	inFlight int
	last     time.Time
	wg       sync.WaitGroup
}

func newActivity() *activity { return &activity{last: time.Now()} }

// begin marks a request in flight; the returned func marks it done.
func (a *activity) begin() func() {
	a.mu.Lock()
	a.inFlight++
	a.wg.Add(1)
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		a.inFlight--
		a.last = time.Now()
		a.mu.Unlock()
		a.wg.Done()
	}
}

// idleFor is how long no request has been in flight.
func (a *activity) idleFor() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 {
		return 0
	}
	return time.Since(a.last)
}

// wait blocks until no request is in flight.
func (a *activity) wait() { a.wg.Wait() }

// serveUntil serves each handler on its listener until ctx is done (SIGINT, SIGTERM) or no
// request has been in flight for idle, then stops accepting, lets requests in flight finish
// (at most shutdownGrace), and returns. A listener that fails stops everything and is returned.
func serveUntil(ctx context.Context, idle time.Duration, act *activity, servers map[net.Listener]http.Handler) error {
	if idle <= 0 {
		idle = DefaultIdle
	}
	failed := make(chan error, len(servers))
	var running []*http.Server
	for ln, h := range servers {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
		running = append(running, srv)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				failed <- err
			}
		}()
	}
	tick := time.NewTicker(min(max(idle/10, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err = <-failed:
			break loop
		case <-tick.C:
			if act.idleFor() >= idle {
				break loop
			}
		}
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	for _, srv := range running {
		_ = srv.Shutdown(stop) // requests still running after the grace period are cut
	}
	return err
}
