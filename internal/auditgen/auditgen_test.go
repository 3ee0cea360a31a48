package auditgen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"regexp"
	"testing"
	"testing/iotest"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func generate(t testing.TB, seed, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, seed, size); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	a, b := generate(t, 42, 2<<20), generate(t, 42, 2<<20)
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Fatal("the same seed gave different logs")
	}
	if c := generate(t, 43, 2<<20); bytes.Equal(a[:4096], c[:4096]) {
		t.Fatal("different seeds gave the same log")
	}
	// Reading a byte at a time gives the same bytes as Write.
	slow, err := io.ReadAll(iotest.OneByteReader(NewReader(42, 64<<10)))
	if err != nil || !bytes.Equal(slow, generate(t, 42, 64<<10)) {
		t.Fatalf("NewReader read byte by byte differs from Write: %v", err)
	}
}

func TestSize(t *testing.T) {
	for _, size := range []int64{0, 10, 5000, 1 << 20} {
		out := generate(t, 1, size)
		if int64(len(out)) > size {
			t.Errorf("size %d: wrote %d bytes", size, len(out))
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			t.Errorf("size %d: the last line is cut", size)
		}
		if size >= 1<<20 && int64(len(out)) < size-32<<10 {
			t.Errorf("size %d: wrote only %d bytes", size, len(out))
		}
	}
	if err := Write(io.Discard, 1, -1); !errors.Is(err, ErrNegativeSize) {
		t.Errorf("Write with a negative size = %v", err)
	}
}

// auditEvent is the part of audit.k8s.io/v1 Event the checks read.
type auditEvent struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Level      string `json:"level"`
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"user"`
	SourceIPs []string `json:"sourceIPs"`
	UserAgent string   `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestObject  json.RawMessage   `json:"requestObject"`
	ResponseObject json.RawMessage   `json:"responseObject"`
	Received       string            `json:"requestReceivedTimestamp"`
	StageTime      string            `json:"stageTimestamp"`
	Annotations    map[string]string `json:"annotations"`
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestEventsAreRealistic parses every line of a generated log and checks the audit.k8s.io/v1
// shape and the mix of verbs, users, subresources and bodies the templates promise.
func TestEventsAreRealistic(t *testing.T) {
	sc := bufio.NewScanner(bytes.NewReader(generate(t, 7, 8<<20)))
	sc.Buffer(nil, 1<<20)
	verbs, users, subresources, levels := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	var lines, writesWithBody, forbidden int
	var last time.Time
	for sc.Scan() {
		lines++
		var e auditEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		if e.Kind != "Event" || e.APIVersion != "audit.k8s.io/v1" || !uuidPattern.MatchString(e.AuditID) ||
			e.RequestURI == "" || e.User.Username == "" || len(e.SourceIPs) != 1 || e.UserAgent == "" ||
			e.ObjectRef == nil || e.ObjectRef.Resource == "" || e.ObjectRef.APIVersion == "" || e.ResponseStatus.Code == 0 ||
			e.Annotations["authorization.k8s.io/decision"] == "" {
			t.Fatalf("line %d lacks a required field: %s", lines, sc.Bytes())
		}
		received, err := time.Parse(time.RFC3339Nano, e.Received)
		if err != nil || received.Before(last) {
			t.Fatalf("line %d: requestReceivedTimestamp %q is not a non-decreasing RFC 3339 time", lines, e.Received)
		}
		if stage, err := time.Parse(time.RFC3339Nano, e.StageTime); err != nil || stage.Before(received) {
			t.Fatalf("line %d: stageTimestamp %q is before the request was received", lines, e.StageTime)
		}
		last = received
		verbs[e.Verb]++
		users[e.User.Username]++
		subresources[e.ObjectRef.Subresource]++
		levels[e.Level]++
		switch e.Verb {
		case "create", "update", "patch", "delete":
			if len(e.RequestObject) > 0 {
				writesWithBody++
			}
		}
		if e.ResponseStatus.Code == 403 {
			forbidden++
		}
		if len(e.ResponseObject) > 0 && e.Level != "RequestResponse" {
			t.Fatalf("line %d: a responseObject at level %s", lines, e.Level)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"get", "list", "watch", "create", "update", "patch", "delete"} {
		if verbs[v] == 0 {
			t.Errorf("no %s events in %d lines", v, lines)
		}
	}
	for _, u := range []string{"system:serviceaccount:oasis-eval:oasis-agent", "system:kube-controller-manager",
		"system:kube-scheduler", "system:serviceaccount:kube-system:ebs-csi-controller-sa", "kubernetes-admin"} {
		if users[u] == 0 {
			t.Errorf("no events from %s", u)
		}
	}
	for _, s := range []string{"status", "scale", "log", "exec", "binding", "token"} {
		if subresources[s] == 0 {
			t.Errorf("no events on subresource %s", s)
		}
	}
	for _, l := range []string{"Metadata", "Request", "RequestResponse"} {
		if levels[l] == 0 {
			t.Errorf("no events at level %s", l)
		}
	}
	if writesWithBody < lines/10 || forbidden == 0 {
		t.Errorf("%d writes with a request body and %d forbidden requests in %d lines", writesWithBody, forbidden, lines)
	}
	if mean := (8 << 20) / lines; mean < 600 || mean > 3000 {
		t.Errorf("mean event size %d bytes is not realistic", mean)
	}
}

// TestGolden pins the first events of seed 1, so a change to the templates is seen in review
// (run with -update to accept it).
func TestGolden(t *testing.T) {
	g := New(1)
	var out []byte
	for range 12 {
		out = g.AppendEvent(out)
	}
	goldenfile.Check(t, filepath.Join("testdata", "seed1-first-events.golden.jsonl"), out, *update)
}

func BenchmarkWrite(b *testing.B) {
	const size = 64 << 20
	b.SetBytes(size)
	for b.Loop() {
		if err := Write(io.Discard, 1, size); err != nil {
			b.Fatal(err)
		}
	}
}
