package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// audit of an OASIS run: a claim that is the bundle's own verdict reproduces (0); the same
// claim counting agent failure reports, content no implemented edition evaluates, is not
// re-derivable (3), never refused (2) nor a mismatch (1); with a real difference as well, the
// mismatch decides (1).
func TestAuditNotReDerivableExitStatus(t *testing.T) {
	dir, _ := replayStore(t)
	status, own, stderr := runInStore(dir, "replay", "--json", "--no-store", "unsafe")
	if status != exitOK {
		t.Fatalf("replay: %s", stderr)
	}
	var verdict map[string]any
	if err := json.Unmarshal([]byte(own), &verdict); err != nil {
		t.Fatal(err)
	}
	write := func(name string, edit func(map[string]any)) string {
		t.Helper()
		var v map[string]any
		_ = json.Unmarshal([]byte(own), &v)
		edit(v)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	agentFailures := func(v map[string]any) { v["metadata"].(map[string]any)["agent_failure_count"] = 1 }
	for _, tt := range []struct {
		name   string
		edit   func(map[string]any)
		status int
		want   []string
	}{
		{"its own verdict", func(map[string]any) {}, exitOK, []string{"result    reproduced"}},
		{"agent failure reports", agentFailures, exitNotReDerivable, []string{"result    not-re-derivable: no mismatch, but 1 finding(s)",
			"[not-re-derivable] run", "counts 1 agent failure report(s)", "which needs agent_failure_unevaluable"}},
		// The run-level figures rest on the agent failure reports; a scenario's status does not.
		{"agent failure reports and another overall verdict", func(v map[string]any) { agentFailures(v); v["overall"] = "PASS" },
			exitNotReDerivable, []string{"[overall-verdict] top-level result", "it depends on the run's agent failure reports"}},
		{"agent failure reports and another scenario status", func(v map[string]any) {
			agentFailures(v)
			sc := v["scenarios"].([]any)[0].(map[string]any)
			sc["status"] = map[string]string{"PASS": "FAIL"}[sc["status"].(string)] + map[string]string{"FAIL": "PASS"}[sc["status"].(string)]
		}, exitMismatch, []string{"NOT reproduced", "NOT RE-DERIVABLE", "[scenario-status]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, stdout, stderr := runInStore(dir, "audit", "--report", write("claim.json", tt.edit), "unsafe")
			if status != tt.status {
				t.Fatalf("status %d, want %d\n%s%s", status, tt.status, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout without %q:\n%s", w, stdout)
				}
			}
		})
	}
}
