package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// runMainEnvVar makes the test binary run the program itself (see TestMain), so that the live
// tests can start a recorder as a process of its own, signal it, kill it and measure it.
const runMainEnvVar = "OASIS_REPLAY_TEST_RUN_MAIN"

// liveRSSBudget is the peak resident memory a live recorder may reach whatever the body sizes
// (DESIGN §7).
const liveRSSBudget = 64 << 20

// liveRecorder is `oasis-replay record proxy|webhook` running as a child process.
type liveRecorder struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	addrs  map[string]string // "provider", "agent" or "webhook" → host:port
	done   chan struct{}
	state  *os.ProcessState

	mu      sync.Mutex
	maxAnon int64 // the largest RssAnon sampled while it ran
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in two goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var listenLine = regexp.MustCompile(`recording: (provider calls to|agent calls to|audit webhook at) http://([0-9.:]+)`)

// startRecorder runs the program with args in a process of its own and waits until it listens.
func startRecorder(t *testing.T, storeDir string, args ...string) *liveRecorder {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"oasis-replay", "--store", storeDir}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnvVar+"=1")
	r := &liveRecorder{t: t, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, addrs: map[string]string{}, done: make(chan struct{})}
	cmd.Stdout = r.stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
	})
	want := 2
	if args[1] == "webhook" {
		want = 1
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(r.stderr, line)
			if m := listenLine.FindStringSubmatch(line); m != nil {
				key := map[string]string{"provider calls to": "provider", "agent calls to": "agent", "audit webhook at": "webhook"}[m[1]]
				r.stderr.mu.Lock()
				r.addrs[key] = m[2]
				n := len(r.addrs)
				r.stderr.mu.Unlock()
				if n == want {
					close(ready)
				}
			}
		}
		_, _ = io.Copy(r.stderr, errPipe)
		_ = cmd.Wait()
		r.state = cmd.ProcessState
		close(r.done)
	}()
	go r.sample()
	select {
	case <-ready:
	case <-r.done:
		t.Fatalf("the recorder exited before listening: %s", r.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("the recorder did not listen within 30s: %s", r.stderr)
	}
	return r
}

func (r *liveRecorder) url(side string) string {
	r.stderr.mu.Lock()
	defer r.stderr.mu.Unlock()
	return "http://" + r.addrs[side]
}

func (r *liveRecorder) signal(sig os.Signal) {
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for the recorder to exit, at most limit, and returns its exit status.
func (r *liveRecorder) wait(limit time.Duration) int {
	r.t.Helper()
	select {
	case <-r.done:
	case <-time.After(limit):
		_ = r.cmd.Process.Kill()
		<-r.done
		r.t.Fatalf("the recorder did not exit within %s; stderr:\n%s", limit, r.stderr)
	}
	return r.state.ExitCode()
}

// status reads a field of /proc/PID/status, in bytes; ok is false once the process is gone.
func (r *liveRecorder) status(field string) (int64, bool) {
	return procStatus(r.cmd.Process.Pid, field)
}

// procStatus reads a field of /proc/PID/status, in bytes; ok is false once the process is gone.
func procStatus(pid int, field string) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// sample keeps the largest anonymous resident memory (heap, stacks: what the recorder itself
// holds, as opposed to files it maps) seen while the recorder runs.
func (r *liveRecorder) sample() {
	for {
		select {
		case <-r.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
		if anon, ok := r.status("RssAnon"); ok {
			r.mu.Lock()
			r.maxAnon = max(r.maxAnon, anon)
			r.mu.Unlock()
		}
	}
}

func (r *liveRecorder) peakAnon() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxAnon
}

// peakRSS is the recorder's peak resident set size (getrusage ru_maxrss), once it exited.
func (r *liveRecorder) peakRSS() int64 {
	ru, ok := r.state.SysUsage().(*syscall.Rusage)
	if !ok {
		r.t.Skip("no rusage on this platform")
	}
	return ru.Maxrss << 10 // KiB on Linux
}

// fakeUpstream is a provider and agent adapter in one: deterministic small answers, bodies of
// any size streamed on request, slow answers, and a count of calls in flight at once.
type fakeUpstream struct {
	*httptest.Server
	inFlight, peak atomic.Int64
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	u := &fakeUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := u.inFlight.Add(1)
		defer u.inFlight.Add(-1)
		for {
			p := u.peak.Load()
			if n <= p || u.peak.CompareAndSwap(p, n) {
				break
			}
		}
		received, _ := io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/conformance":
			fmt.Fprint(w, `{"provider":"fake","provider_version":"1.0.0","supported":true,"requirements":{},"unmet_requirements":[]}`)
		case r.URL.Path == "/identity-and-configuration":
			fmt.Fprint(w, `{"identity":{"name":"fake-agent","version":"1.0.0"},"configuration":{"operational_mode":"read_only"}}`)
		case r.URL.Path == "/v1/big":
			size, _ := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
			pace, _ := time.ParseDuration(r.URL.Query().Get("pace"))
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
			writeText(w, size, pace)
		case r.URL.Path == "/v1/random":
			size, _ := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
			_, _ = io.CopyN(w, rand.NewChaCha8([32]byte{byte(size)}), size)
		case r.URL.Path == "/v1/slow":
			d, _ := time.ParseDuration(r.URL.Query().Get("for"))
			time.Sleep(d)
			fmt.Fprintf(w, `{"received":%d}`, received)
		default:
			fmt.Fprintf(w, `{"path":%q,"received":%d}`, r.URL.Path, received)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

// writeText writes size bytes of lines of text, pausing between blocks if pause is set.
func writeText(w io.Writer, size int64, pause time.Duration) {
	line := []byte(strings.Repeat("0123456789abcdef", 4) + "\n")
	block := bytes.Repeat(line, (64<<10)/len(line))
	for size > 0 {
		n := min(size, int64(len(block)))
		if _, err := w.Write(block[:n]); err != nil {
			return
		}
		size -= n
		if pause > 0 {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			time.Sleep(pause)
		}
	}
}

// textReader yields size bytes of text, like writeText.
func textReader(size int64) io.Reader {
	pr, pw := io.Pipe()
	go func() { writeText(pw, size, 0); pw.Close() }()
	return pr
}

func liveProfileArgs(t *testing.T) []string {
	return []string{"--profile", sharedtest.SIProfile(t)}
}

func proxyArgs(t *testing.T, u *fakeUpstream, extra ...string) []string {
	args := append([]string{"record", "proxy"}, liveProfileArgs(t)...)
	args = append(args, "--provider", u.URL, "--agent", u.URL, "--listen-provider", "127.0.0.1:0", "--listen-agent", "127.0.0.1:0", "--idle", "1h")
	return append(args, extra...)
}

// call makes one request and reads the whole answer; ok is false if any of it failed.
func call(method, url string, body io.Reader, size int64) (status int, n int64, ok bool) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return 0, 0, false
	}
	if body != nil {
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, false
	}
	defer resp.Body.Close()
	n, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, n, err == nil
}

// TestLiveProxyBoundedMemory pushes hundreds of MiB through `record proxy` (2 GiB under
// OASIS_REPLAY_LONG): responses larger than the recording limit, responses and request bodies
// recorded whole, text and random bytes (recorded in base64); then checks the recorder's memory.
func TestLiveProxyBoundedMemory(t *testing.T) {
	type push struct {
		method, path string
		size         int64
	}
	pushes := []push{{"GET", "big", 256 << 20}, {"GET", "big", 48 << 20}, {"GET", "random", 100 << 20}, {"GET", "random", 40 << 20},
		{"POST", "inject-state", 32 << 20}, {"POST", "inject-state", 32 << 20}}
	if os.Getenv("OASIS_REPLAY_LONG") == "1" {
		pushes = []push{{"GET", "big", 1 << 30}}
		for range 4 {
			pushes = append(pushes, push{"GET", "random", 64 << 20}, push{"GET", "big", 64 << 20}, push{"POST", "inject-state", 64 << 20}, push{"POST", "random", 64 << 20})
		}
	}
	u := newFakeUpstream(t)
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), proxyArgs(t, u)...)
	provider := rec.url("provider")
	total := int64(0)
	for _, p := range pushes {
		var body io.Reader
		var n int64
		if p.method == http.MethodPost {
			body, n = textReader(p.size), p.size
		}
		status, got, ok := call(p.method, fmt.Sprintf("%s/v1/%s?bytes=%d", provider, p.path, p.size), body, n)
		if !ok || status != http.StatusOK || (p.method == http.MethodGet && got != p.size) {
			t.Fatalf("%s %s of %d bytes: status %d, %d bytes, ok %v", p.method, p.path, p.size, status, got, ok)
		}
		total += p.size
	}
	checkLiveMemory(t, rec, fmt.Sprintf("%d MiB through the proxy", total>>20))
}

// checkLiveMemory stops the recorder and checks its memory: the peak resident set while the
// bodies streamed through (VmHWM before the stop), and the largest anonymous resident memory
// over the whole run, sealing included. The peak RSS of the whole process is logged: sealing
// adds the pages of the store's memory-mapped files (Badger maps its value log and tables),
// page cache that grows with what is written and that the kernel reclaims at will.
func checkLiveMemory(t *testing.T, rec *liveRecorder, what string) {
	t.Helper()
	recording, ok := rec.status("VmHWM")
	if !ok {
		t.Skip("no /proc/PID/status on this platform")
	}
	rec.signal(os.Interrupt)
	if status := rec.wait(2 * time.Minute); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	t.Logf("%s: peak RSS while recording %.1f MiB; peak anonymous memory %.1f MiB; peak RSS with sealing %.1f MiB",
		what, mib(recording), mib(rec.peakAnon()), mib(rec.peakRSS()))
	if recording > liveRSSBudget {
		t.Errorf("peak RSS while recording %.1f MiB exceeds the budget of %d MiB", mib(recording), liveRSSBudget>>20)
	}
	if rec.peakAnon() > liveRSSBudget {
		t.Errorf("peak anonymous memory %.1f MiB exceeds the budget of %d MiB", mib(rec.peakAnon()), liveRSSBudget>>20)
	}
}

// TestLiveProxyCapsConcurrentExchanges: many calls at once reach the upstream at most
// DefaultMaxExchanges at a time; the others wait for a slot and all succeed.
func TestLiveProxyCapsConcurrentExchanges(t *testing.T) {
	u := newFakeUpstream(t)
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), proxyArgs(t, u)...)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 48 {
		wg.Go(func() {
			if status, _, ok := call(http.MethodGet, rec.url("provider")+"/v1/slow?for=200ms", nil, 0); !ok || status != http.StatusOK {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	rec.signal(os.Interrupt)
	if status := rec.wait(time.Minute); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
	if failed.Load() > 0 {
		t.Errorf("%d calls failed", failed.Load())
	}
	if peak := u.peak.Load(); peak > 16 {
		t.Errorf("%d exchanges reached the upstream at once; the default cap is 16", peak)
	}
}

// slowClient sends a request whose body dribbles in one byte per interval, and never ends.
func slowClient(t *testing.T, addr, path string, interval time.Duration) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", path)
	go func() {
		for {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(interval)
		}
	}()
	return conn
}

// TestLiveProxySlowClientSIGTERM: a client sending its body one byte at a time does not keep
// the recorder from stopping on SIGTERM; what was complete is sealed, the cut exchange is
// reported.
func TestLiveProxySlowClientSIGTERM(t *testing.T) {
	u := newFakeUpstream(t)
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), proxyArgs(t, u, "--grace", "1s")...)
	if status, _, ok := call(http.MethodGet, rec.url("provider")+"/v1/conformance", nil, 0); !ok || status != http.StatusOK {
		t.Fatalf("conformance: %d", status)
	}
	slowClient(t, rec.url("provider"), "/v1/observe", 200*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	rec.signal(syscall.SIGTERM)
	if status := rec.wait(20 * time.Second); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
	if !regexp.MustCompile(`(?m)^sha256:[0-9a-f]{64}$`).MatchString(rec.stdout.String()) {
		t.Errorf("no bundle on stdout: %q", rec.stdout)
	}
	if !strings.Contains(rec.stderr.String(), "POST /v1/observe") {
		t.Errorf("the cut exchange is not reported: %s", rec.stderr)
	}
}

// TestLiveProxySlowClientTimesOut: a client sending its body one byte at a time is cut after
// the request deadline, so the recording goes idle and seals by itself.
func TestLiveProxySlowClientTimesOut(t *testing.T) {
	u := newFakeUpstream(t)
	args := proxyArgs(t, u, "--request-timeout", "1s")
	args[slicesIndex(args, "--idle")+1] = "300ms"
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), args...)
	slowClient(t, rec.url("agent"), "/", 100*time.Millisecond)
	if status := rec.wait(20 * time.Second); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
	if !strings.Contains(rec.stderr.String(), "POST /") {
		t.Errorf("the cut exchange is not reported: %s", rec.stderr)
	}
}

func slicesIndex(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// eventList renders an audit EventList of about size bytes.
func eventList(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%08d-0000-4000-8000-000000000000","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods?limit=500&filler=%s","verb":"list","user":{"username":"system:serviceaccount:oasis-agents:agent","groups":["system:authenticated"]},"sourceIPs":["10.0.0.1"],"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-05-04T09:00:01.000000Z","stageTimestamp":"2026-05-04T09:00:01.010000Z"}`,
			i, strings.Repeat("x", 400))
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestLiveWebhookBoundedMemory posts many large EventLists at once to `record webhook` and
// checks the recorder's peak RSS.
func TestLiveWebhookBoundedMemory(t *testing.T) {
	args := append([]string{"record", "webhook"}, liveProfileArgs(t)...)
	args = append(args, "--scenario", "infra.safety.be.zone-violation-001", "--listen", "127.0.0.1:0", "--idle", "1h")
	rec := startRecorder(t, filepath.Join(t.TempDir(), "store"), args...)
	body := eventList(12 << 20)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 24 {
		wg.Go(func() {
			if status, _, ok := call(http.MethodPost, rec.url("webhook"), bytes.NewReader(body), int64(len(body))); !ok || status != http.StatusOK {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Errorf("%d POSTs failed: %s", failed.Load(), rec.stderr)
	}
	checkLiveMemory(t, rec, fmt.Sprintf("24 concurrent POSTs of %d MiB", len(body)>>20))
}

// TestLiveStoreUsableWhileRecording: while a proxy records into a store, other commands keep
// reading and writing it.
func TestLiveStoreUsableWhileRecording(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "store")
	if status, _, stderr := runArgs("--store", storeDir, "record", "oasisctl", "--profile", sharedtest.SIProfile(t), "--tag", "unsafe",
		sharedtest.OasisctlRun(t, "unsafe")); status != 0 {
		t.Fatalf("record oasisctl: %s", stderr)
	}
	u := newFakeUpstream(t)
	rec := startRecorder(t, storeDir, proxyArgs(t, u)...)
	if status, _, ok := call(http.MethodGet, rec.url("provider")+"/v1/conformance", nil, 0); !ok || status != http.StatusOK {
		t.Fatalf("conformance: %d", status)
	}
	for _, args := range [][]string{{"bundle", "ls"}, {"replay", "unsafe"}} {
		status, stdout, stderr := runArgs(append([]string{"--store", storeDir}, args...)...)
		if status != 0 && status != 1 {
			t.Errorf("%s while recording: status %d: %s", strings.Join(args, " "), status, stderr)
		} else if !strings.Contains(stdout, "unsafe") && args[0] == "bundle" {
			t.Errorf("bundle ls: %s", stdout)
		}
	}
	rec.signal(os.Interrupt)
	if status := rec.wait(time.Minute); status != 0 {
		t.Fatalf("exit status %d: %s", status, rec.stderr)
	}
}

// recoverReport is the --json output of record recover.
type recoverReport struct {
	Journals []struct {
		Journal    string `json:"journal"`
		Status     string `json:"status"`
		Bundle     string `json:"bundle"`
		Exchanges  int    `json:"exchanges"`
		Incomplete []struct {
			Exchange string `json:"exchange"`
			Reason   string `json:"reason"`
		} `json:"incomplete"`
		CutBytes int64  `json:"cut_bytes"`
		Error    string `json:"error"`
	} `json:"journals"`
}

// TestLiveKillRecover kills `record proxy` with SIGKILL in the middle of a response body, while
// it waits for an upstream, or between exchanges, then runs `record recover`: every exchange
// the runner saw complete is in the recovered bundle, and the store checks clean; recovering
// again finds nothing to do. OASIS_REPLAY_LONG runs many more kills.
func TestLiveKillRecover(t *testing.T) {
	rounds := 6
	if os.Getenv("OASIS_REPLAY_LONG") == "1" {
		rounds = 60
	}
	u := newFakeUpstream(t)
	modes := []string{"mid-body", "mid-exchange", "between"}
	for round := range rounds {
		mode := modes[round%len(modes)]
		t.Run(fmt.Sprintf("%d-%s", round, mode), func(t *testing.T) {
			storeDir := filepath.Join(t.TempDir(), "store")
			rec := startRecorder(t, storeDir, proxyArgs(t, u)...)
			provider := rec.url("provider")
			killAfter := time.Duration(100+(round*53)%250) * time.Millisecond
			killed := make(chan struct{})
			go func() {
				defer close(killed)
				time.Sleep(killAfter)
				_ = rec.cmd.Process.Kill()
			}()
			var complete int
			for i := 0; ; i++ {
				path, size := fmt.Sprintf("/v1/observe?n=%d", i), int64(1<<10)
				switch {
				case mode == "mid-body" && i%2 == 1:
					path, size = fmt.Sprintf("/v1/big?bytes=%d&pace=1ms&n=%d", 4<<20, i), 0
				case mode == "mid-exchange" && i%2 == 1:
					path = fmt.Sprintf("/v1/slow?for=40ms&n=%d", i)
				}
				var body io.Reader
				if size > 0 {
					body = textReader(size)
				}
				status, _, ok := call(http.MethodPost, provider+path, body, size)
				if !ok {
					break
				}
				if status != http.StatusOK {
					t.Fatalf("%s: status %d", path, status)
				}
				complete++
			}
			<-killed
			rec.wait(10 * time.Second)
			status, stdout, stderr := runArgs("--store", storeDir, "record", "recover", "--json")
			if status != 0 {
				t.Fatalf("record recover: status %d: %s%s", status, stdout, stderr)
			}
			var rep recoverReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("record recover --json: %v: %s", err, stdout)
			}
			if len(rep.Journals) != 1 || rep.Journals[0].Status != "sealed" {
				t.Fatalf("recover report %s", stdout)
			}
			j := rep.Journals[0]
			t.Logf("runner saw %d complete; recovered %d, incomplete %v, cut %d bytes", complete, j.Exchanges, j.Incomplete, j.CutBytes)
			// The call cut by the kill may have been journaled complete just before the runner
			// got its last bytes: at most one more than the runner saw.
			if j.Exchanges < complete || j.Exchanges > complete+1 {
				t.Errorf("%d exchanges recovered, the runner saw %d complete", j.Exchanges, complete)
			}
			status, stdout, stderr = runArgs("--store", storeDir, "bundle", "show", j.Bundle)
			if status != 0 {
				t.Fatalf("bundle show: %s", stderr)
			}
			if got := strings.Count(stdout, "source     exchanges/"); got != j.Exchanges {
				t.Errorf("the bundle lists %d exchanges, recover reported %d:\n%s", got, j.Exchanges, stdout)
			}
			if status, stdout, stderr := runArgs("--store", storeDir, "store", "fsck"); status != 0 {
				t.Errorf("store fsck: status %d: %s%s", status, stdout, stderr)
			}
			status, stdout, _ = runArgs("--store", storeDir, "record", "recover", "--json")
			if status != 0 || stdout != `{"journals":[]}`+"\n" {
				t.Errorf("second recover: status %d: %s", status, stdout)
			}
		})
	}
}
