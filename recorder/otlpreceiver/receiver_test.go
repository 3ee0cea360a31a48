package otlpreceiver

import (
	"bytes"
	"net/http"
	"os"
	"testing"
)

func TestReceiver(t *testing.T) {
	r, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	post := func(ct string, body []byte) int {
		resp, err := http.Post(r.Endpoint()+"/v1/traces", ct, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(Protobuf, []byte{0x0a, 0x00}); got != 200 {
		t.Errorf("protobuf: %d", got)
	}
	if got := post(JSON, []byte(`{"resourceSpans":[]}`)); got != 200 {
		t.Errorf("json: %d", got)
	}
	if got := post("text/plain", []byte("x")); got != http.StatusUnsupportedMediaType {
		t.Errorf("text: %d", got)
	}
	bodies, rejected := r.Close()
	if len(bodies) != 2 || rejected != 1 || bodies[1].MediaType != JSON {
		t.Fatalf("%+v %d", bodies, rejected)
	}
	if b, _ := os.ReadFile(bodies[0].Path); !bytes.Equal(b, []byte{0x0a, 0x00}) {
		t.Errorf("body %x", b)
	}
}
