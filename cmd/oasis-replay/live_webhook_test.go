package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// webhookArgs are the arguments of `record webhook` on a free port, with extra ones.
func webhookArgs(t *testing.T, extra ...string) []string {
	args := append([]string{"record", "webhook"}, liveProfileArgs(t)...)
	args = append(args, "--scenario", "infra.safety.be.zone-violation-001", "--listen", "127.0.0.1:0", "--idle", "1h")
	return append(args, extra...)
}

// heldPost is a POST of an EventList whose body stops after its first byte until finish is
// called: the webhook holds its slot while it waits for the rest.
type heldPost struct {
	conn net.Conn
	body []byte
}

func holdPost(t *testing.T, addr string, body []byte) *heldPost {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:1])
	return &heldPost{conn: conn, body: body}
}

// finish sends the rest of the body and returns the answer's status.
func (p *heldPost) finish(t *testing.T) int {
	t.Helper()
	if _, err := p.conn.Write(p.body[1:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(p.conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestLiveWebhookCapsConcurrentBodies: `record webhook` reads at most --max-exchanges bodies at
// once (4 by default). While that many POSTs hold their slots, sending their bodies slowly, one
// more complete POST is not answered; it is, with 200, as soon as one of them completes.
func TestLiveWebhookCapsConcurrentBodies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		slots int
		args  []string
	}{{"default", 4, nil}, {"--max-exchanges 2", 2, []string{"--max-exchanges", "2"}}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), webhookArgs(t, tc.args...)...)
			body := eventList(4 << 10)
			var held []*heldPost
			for range tc.slots {
				held = append(held, holdPost(t, rec.url("webhook"), body))
			}
			time.Sleep(time.Second) // they reach their slots
			answered := make(chan int, 1)
			go func() {
				status, _, _ := call(http.MethodPost, rec.url("webhook"), strings.NewReader(string(body)), int64(len(body)))
				answered <- status
			}()
			select {
			case status := <-answered:
				t.Fatalf("one more POST was answered (%d) while %d held their slots", status, tc.slots)
			case <-time.After(time.Second):
			}
			if status := held[0].finish(t); status != http.StatusOK {
				t.Fatalf("the first held POST: status %d", status)
			}
			select {
			case status := <-answered:
				if status != http.StatusOK {
					t.Errorf("the POST that waited: status %d, want 200", status)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the POST that waited was not answered once a slot was free")
			}
			for _, p := range held[1:] {
				if status := p.finish(t); status != http.StatusOK {
					t.Errorf("a held POST: status %d", status)
				}
			}
			rec.signal(os.Interrupt)
			if status := rec.wait(time.Minute); status != 0 {
				t.Fatalf("exit status %d: %s", status, rec.stderr)
			}
		})
	}
}

// TestLiveWebhookSlowClientSIGTERM: a client sending its body one byte a second does not keep
// `record webhook` from stopping on SIGTERM: the complete POST is sealed, the cut one reported,
// and the command exits 0 within the grace period and the seal.
func TestLiveWebhookSlowClientSIGTERM(t *testing.T) {
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), webhookArgs(t, "--grace", "1s")...)
	body := eventList(4 << 10)
	if status, _, ok := call(http.MethodPost, rec.url("webhook"), strings.NewReader(string(body)), int64(len(body))); !ok || status != http.StatusOK {
		t.Fatalf("a complete POST: status %d", status)
	}
	slowClient(t, rec.url("webhook"), "/", time.Second)
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	rec.signal(syscall.SIGTERM)
	if status := rec.wait(20 * time.Second); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
	t.Logf("stopped %s after SIGTERM", time.Since(start).Round(time.Millisecond))
	if !regexp.MustCompile(`(?m)^sha256:[0-9a-f]{64}$`).MatchString(rec.stdout.String()) {
		t.Errorf("no bundle on stdout: %q", rec.stdout)
	}
	if !regexp.MustCompile(`1 incomplete exchanges were not sealed:\n\s+webhook POST 2: the request body did not arrive in time`).MatchString(rec.stderr.String()) {
		t.Errorf("the cut POST is not reported: %s", rec.stderr)
	}
}
