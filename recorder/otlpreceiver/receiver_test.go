package otlpreceiver

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// post sends body to r with the given Content-Type and Content-Encoding and returns the status
// and the answer's text.
func post(t *testing.T, r *Receiver, contentType, encoding string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.Endpoint()+"/v1/traces", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text)
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Bodies are spooled in arrival order as the OTLP message itself: a gzip body decompressed,
// in both encodings. Refused requests are counted and leave no body.
func TestReceiver(t *testing.T) {
	protobuf := []byte{0x0a, 0x00}
	json := []byte(`{"resourceSpans":[]}`)
	tests := []struct {
		name, contentType, encoding string
		body                        []byte
		status                      int
		answer                      string // a substring of the answer
		spooled                     []byte // nil when refused
	}{
		{"protobuf", Protobuf, "", protobuf, 200, "", protobuf},
		{"json", JSON + "; charset=utf-8", "", json, 200, "{}", json},
		{"protobuf gzip", Protobuf, "gzip", gzipped(t, protobuf), 200, "", protobuf},
		{"json gzip", JSON, "GZIP", gzipped(t, json), 200, "{}", json},
		{"identity", JSON, "identity", json, 200, "{}", json},
		{"text", "text/plain", "", []byte("x"), http.StatusUnsupportedMediaType, "want application/x-protobuf or application/json", nil},
		{"deflate", Protobuf, "deflate", protobuf, http.StatusUnsupportedMediaType, `Content-Encoding "deflate" is not supported: send gzip or identity`, nil},
		{"not gzip", Protobuf, "gzip", protobuf, http.StatusBadRequest, "gzip body: ", nil},
		{"gzip cut short", JSON, "gzip", gzipped(t, json)[:20], http.StatusBadRequest, "body: unexpected EOF", nil},
	}
	r, err := Start(t.TempDir(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	refused := 0
	for _, tt := range tests {
		status, answer := post(t, r, tt.contentType, tt.encoding, tt.body)
		if status != tt.status || !strings.Contains(answer, tt.answer) {
			t.Errorf("%s: %d %q, want %d %q", tt.name, status, answer, tt.status, tt.answer)
		}
		if tt.spooled == nil {
			refused++
		} else {
			want = append(want, tt.spooled)
		}
	}
	got := r.Close()
	bodies, rejected := got.Bodies, got.Rejected
	if len(bodies) != len(want) || rejected != refused {
		t.Fatalf("%d bodies, %d refused; want %d, %d", len(bodies), rejected, len(want), refused)
	}
	for i, b := range bodies {
		got, err := os.ReadFile(b.Path)
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Errorf("body %d: %q (%v), want %q", i, got, err, want[i])
		}
	}
}

// A body that decompresses past the run's span bytes (a zip bomb: 64 MiB of zeros are 64 KiB of
// gzip) is refused with 413 naming the limit, and nothing of it stays on disk.
func TestReceiverGzipBomb(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, MaxBody+1)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	status, answer := post(t, r, Protobuf, "gzip", bomb.Bytes())
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(answer, "more than 33554432 span bytes per run (32 MiB, MaxRunBytes)") {
		t.Errorf("%d %q", status, answer)
	}
	got := r.Close()
	bodies, rejected := got.Bodies, got.Rejected
	if len(bodies) != 0 || rejected != 1 {
		t.Errorf("%d bodies, %d refused", len(bodies), rejected)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left on disk: %v", left)
	}
}
