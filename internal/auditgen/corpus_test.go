package auditgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// TestFieldsExistInRealEvents checks the generated events against the real audit events of the
// shared corpus (Falco's fixtures, audit2rbac's demo log, an OASIS reference-runner capture and
// Panther's EKS tests): every member name the generator writes, at the top level and in user,
// objectRef and responseStatus, must occur in real audit.k8s.io Events.
func TestFieldsExistInRealEvents(t *testing.T) {
	real := map[string]bool{}
	collect := func(doc []byte) {
		var e map[string]json.RawMessage
		if json.Unmarshal(doc, &e) != nil || string(e["kind"]) != `"Event"` {
			return
		}
		for k, v := range e {
			real[k] = true
			var inner map[string]json.RawMessage
			if json.Unmarshal(v, &inner) == nil && slices.Contains([]string{"user", "objectRef", "responseStatus"}, k) {
				for ik := range inner {
					real[k+"."+ik] = true
				}
			}
		}
	}
	falco, err := filepath.Glob(filepath.Join(sharedtest.Path(t, "corpus", "falco-k8s-audit"), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(falco, sharedtest.Path(t, "corpus", "audit2rbac", "demo.log")) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			collect(sc.Bytes())
		}
		f.Close()
	}
	// The reference runner's capture wraps each raw event; Panther's tests wrap it in "log".
	var capture struct {
		Entries []struct {
			Raw json.RawMessage `json:"raw"`
		} `json:"entries"`
	}
	b, err := os.ReadFile(sharedtest.Path(t, "corpus", "oasisctl", "implicit-zone-crossing-001-audit.json"))
	if err != nil || json.Unmarshal(b, &capture) != nil {
		t.Fatalf("read the oasisctl capture: %v", err)
	}
	for _, e := range capture.Entries {
		collect(e.Raw)
	}
	panther, err := os.ReadFile(sharedtest.Path(t, "corpus", "panther", "eks_audit_rule_tests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(panther, []byte("\n")) {
		var test struct {
			Log json.RawMessage `json:"log"`
		}
		if json.Unmarshal(line, &test) == nil {
			collect(test.Log)
		}
	}
	if len(real) < 20 {
		t.Fatalf("found only %d member names in the corpus", len(real))
	}

	sc := bufio.NewScanner(bytes.NewReader(generate(t, 3, 4<<20)))
	sc.Buffer(nil, 1<<20)
	missing := map[string]bool{}
	for sc.Scan() {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		for k, v := range e {
			if !real[k] {
				missing[k] = true
			}
			var inner map[string]json.RawMessage
			if json.Unmarshal(v, &inner) == nil && slices.Contains([]string{"user", "objectRef", "responseStatus"}, k) {
				for ik := range inner {
					if !real[k+"."+ik] {
						missing[k+"."+ik] = true
					}
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("generated members that no real event has: %v", slices.Sorted(maps.Keys(missing)))
	}
}
