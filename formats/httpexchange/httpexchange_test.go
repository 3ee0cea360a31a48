package httpexchange

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

const observeExchange = `{"request":{"body":"{\"environment_id\":\"env-1\",\"observation_type\":\"audit_log\"}","headers":[["Content-Type","application/json"]],"method":"POST","target":"/v1/observe?x=1"},` +
	`"response":{"body":"{\"status\":\"ok\"}\n","headers":[["Content-Length","16"],["Content-Type","application/json"]],"status":200},"side":"provider"}`

func TestRead(t *testing.T) {
	tests := []struct {
		name, data string
		want       string // substring of the error; "" for none
	}{
		{"observe", observeExchange, ""},
		{"binary answer", `{"request":{"headers":[],"method":"GET","target":"/"},"response":{"body_base64":"AP8=","headers":[],"status":200},"side":"agent"}`, ""},
		{"failed call", `{"error":"connection refused","request":{"headers":[],"method":"GET","target":"/v1/conformance"},"side":"provider"}`, ""},
		{"truncated answer", `{"request":{"headers":[],"method":"GET","target":"/"},"response":{"body":"abc","headers":[],"status":200,"truncated":true},"side":"agent"}`, ""},
		{"other side", `{"request":{"headers":[],"method":"GET","target":"/"},"error":"x","side":"runner"}`, `side: want "provider" or "agent", got "runner"`},
		{"no method", `{"request":{"headers":[],"target":"/"},"error":"x","side":"agent"}`, "request.method: missing"},
		{"absolute target", `{"request":{"headers":[],"method":"GET","target":"http://h/"},"error":"x","side":"agent"}`, "request.target: want a path"},
		{"no answer, no error", `{"request":{"headers":[],"method":"GET","target":"/"},"side":"agent"}`, "response: missing, and no error says why"},
		{"status", `{"request":{"headers":[],"method":"GET","target":"/"},"response":{"headers":[],"status":42},"side":"agent"}`, "response.status: want 100–999, got 42"},
		{"both bodies", `{"request":{"body":"a","body_base64":"YQ==","headers":[],"method":"GET","target":"/"},"error":"x","side":"agent"}`, "request: body and body_base64 both given"},
		{"bad base64", `{"request":{"headers":[],"method":"GET","target":"/"},"response":{"body_base64":"!!","headers":[],"status":200},"side":"agent"}`, "response.body_base64: illegal base64"},
		{"header pair", `{"request":{"headers":[["A"]],"method":"GET","target":"/"},"error":"x","side":"agent"}`, "request.headers[0]"},
		{"unknown member", `{"request":{"headers":[],"method":"GET","target":"/"},"error":"x","side":"agent","seq":3}`, "seq"},
		{"not JSON", `{"side":`, "x.json:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := Read("x.json", []byte(tt.data), Limits{})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				again, err := store.Marshal(ex)
				if err != nil || string(again) != tt.data {
					t.Errorf("re-encoded as %s (%v), want the canonical input back", again, err)
				}
				return
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want ErrMalformed saying %q", err, tt.want)
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	_, err := Read("big.json", []byte(observeExchange), Limits{MaxBytes: 100})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), fmt.Sprintf("big.json: %d bytes, more than the limit of 100", len(observeExchange))) {
		t.Errorf("Read = %v", err)
	}
}

func TestBodyBytes(t *testing.T) {
	for _, m := range []Message{{Body: "a\x01"}, {BodyBase64: "YQE="}} {
		if b, err := m.BodyBytes(); err != nil || string(b) != "a\x01" {
			t.Errorf("%+v: BodyBytes = %q, %v", m, b, err)
		}
	}
	if _, err := (&Message{BodyBase64: "%"}).BodyBytes(); !errors.Is(err, ErrMalformed) {
		t.Errorf("BodyBytes of bad base64 = %v", err)
	}
}

func TestHopByHop(t *testing.T) {
	for name, want := range map[string]bool{"connection": true, "TE": true, "Transfer-Encoding": true, "Content-Type": false, "Content-Length": false} {
		if HopByHop(name) != want {
			t.Errorf("HopByHop(%q) = %v", name, !want)
		}
	}
}

// FuzzRead: the reader never panics, fails only with ErrMalformed, and what it accepts
// re-encodes to an exchange it reads back equal. The committed seeds are in
// testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := Read("fuzz.json", data, Limits{MaxBytes: 1 << 20})
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("not a malformed-exchange error: %v", err)
			}
			return
		}
		enc, err := store.Marshal(ex)
		if err != nil {
			t.Fatalf("accepted an exchange the canonical encoder refuses: %v", err)
		}
		again, err := Read("again.json", enc, Limits{})
		if err != nil || !reflect.DeepEqual(again, ex) {
			t.Fatalf("read back %+v (%v), want %+v", again, err, ex)
		}
		for _, m := range []*Message{&ex.Request, ex.Response} {
			if m != nil {
				if _, err := m.BodyBytes(); err != nil {
					t.Fatalf("accepted a body it cannot decode: %v", err)
				}
			}
		}
	})
}
