package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

func TestAuditCommand(t *testing.T) {
	dir, _ := replayStore(t)
	scratch := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(scratch, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A verdict of the bundle itself reproduces.
	status, own, stderr := runInStore(dir, "replay", "--json", "--no-store", "unsafe")
	if status != exitOK {
		t.Fatalf("replay: %s", stderr)
	}
	ownPath := write("own.json", own)
	notAReport := write("other.yaml", "results: []\n")
	broken := write("broken.json", `{"safety_summary": {"passed_count": "x"}}`)
	yamlReport := filepath.Join(sharedtest.OasisctlRun(t, "unsafe"), "verdict.yaml")

	tests := []struct {
		name     string
		args     []string
		status   int
		stdout   []string
		stderr   []string
		validate func(*testing.T, string)
	}{
		{name: "text", args: []string{"audit", "unsafe"}, status: exitMismatch,
			stdout: []string{"NOT reproduced: 9 mismatch(es)", "[scenario-status] infra.safety.ae.credential-forwarding-001",
				"claimed   PASS", "evidence  FAIL", "auditID 12300515-c05e-4f3e-7701-23fcc62f28e4", "receipt   sha256:"}},
		{name: "json", args: []string{"audit", "--format", "json", "provider-fault"}, status: exitMismatch,
			validate: func(t *testing.T, out string) {
				var doc struct {
					Reproduced bool `json:"reproduced"`
					Findings   []struct {
						Code string `json:"code"`
					} `json:"findings"`
					Receipt struct {
						Digest string `json:"digest"`
					} `json:"receipt"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Reproduced || doc.Receipt.Digest == "" {
					t.Fatalf("%v %+v", err, doc)
				}
				after := 0
				for _, f := range doc.Findings {
					if f.Code == "scenario-after-abort" {
						after++
					}
				}
				if after != 16 {
					t.Errorf("%d scenarios after the abort, want 16", after)
				}
			}},
		{name: "junit", args: []string{"audit", "--format", "junit", "safe"}, status: exitMismatch,
			validate: func(t *testing.T, out string) {
				var doc struct {
					Tests    int `xml:"tests,attr"`
					Failures int `xml:"failures,attr"`
				}
				if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.Tests != 57 || doc.Failures == 0 {
					t.Errorf("%v %+v", err, doc)
				}
			}},
		{name: "own verdict reproduces", args: []string{"audit", "--report", ownPath, "unsafe"}, status: exitOK,
			stdout: []string{"reproduced: the claimed report agrees with the evidence"}},
		{name: "yaml report", args: []string{"audit", "--report", yamlReport, "unsafe"}, status: exitMismatch,
			stdout: []string{"oasisctl-report (yaml)", "[scenario-status] infra.safety.sc.partial-operation-001"}},
		{name: "no claimed report", args: []string{"audit", "synth"}, status: exitError,
			stderr: []string{"no claimed report", "--report"}},
		{name: "not a report", args: []string{"audit", "--report", notAReport, "unsafe"}, status: exitError,
			stderr: []string{"other.yaml", "neither an OASIS Reporting §1 verdict", "results"}},
		{name: "malformed report", args: []string{"audit", "--report", broken, "unsafe"}, status: exitError,
			stderr: []string{"broken.json", "broken.json:1:37", "safety_summary.passed_count"}},
		{name: "missing report", args: []string{"audit", "--report", filepath.Join(scratch, "none.json"), "unsafe"}, status: exitError,
			stderr: []string{"none.json"}},
		{name: "bad format", args: []string{"audit", "--format", "xml", "unsafe"}, status: exitError,
			stderr: []string{`--format "xml"`}},
		{name: "unknown bundle", args: []string{"audit", "0000"}, status: exitError, stderr: []string{"no sealed bundle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, stdout, stderr := runInStore(dir, tt.args...)
			if status != tt.status {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.status, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout does not contain %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, stderr)
				}
			}
			if tt.validate != nil {
				tt.validate(t, stdout)
			}
		})
	}
}
