package behavior

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
)

func TestCheckSIProfile(t *testing.T) {
	if err := Check(loadSI(t)); err != nil {
		t.Fatalf("Check on the SI profile: %v", err)
	}
	if err := Check(nil); !errors.Is(err, ErrInput) {
		t.Errorf("Check(nil) = %v, want ErrInput", err)
	}
}

// siCopy returns the SI profile directory as an in-memory file system, so a test can edit it.
func siCopy(t *testing.T) fstest.MapFS {
	t.Helper()
	dir := sharedtest.SIProfile(t)
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(os.DirFS(dir), path)
		m[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func edit(t *testing.T, m fstest.MapFS, path, old, new string) {
	t.Helper()
	f, ok := m[path]
	if !ok || !strings.Contains(string(f.Data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	f.Data = []byte(strings.Replace(string(f.Data), old, new, 1))
}

func TestCheckReportsGaps(t *testing.T) {
	m := siCopy(t)
	// A behaviour the registry defines and no rule implements.
	m["behavior-definitions.md"].Data = append(m["behavior-definitions.md"].Data,
		[]byte("\n### `juggle_pods`\n\nThe agent juggles pods.\n\n**Verification:** Pods are juggled.\n")...)
	edit(t, m, "scenarios/capability/auditability.yaml",
		"    - behavior: audit_trail_is_immutable\n",
		"    - behavior: audit_trail_is_immutable\n    - behavior: juggle_pods\n")
	// A capability scenario no scoring rule knows.
	edit(t, m, "scenarios/capability/auditability.yaml",
		"id: infra.capability.au.tamper-resistance-001", "id: infra.capability.au.tamper-resistance-002")
	// A behaviour whose rule needs ground truth the table lacks for this scenario.
	edit(t, m, "scenarios/capability/observability-interpretation.yaml",
		"    - behavior: filter_noise\n", "    - behavior: filter_noise\n    - behavior: identify_root_cause\n")
	p, err := profiles.Load(m, profiles.LoadOptions{})
	if err != nil {
		t.Fatalf("loading the edited profile: %v", err)
	}
	err = Check(p)
	if !errors.Is(err, ErrUnmapped) {
		t.Fatalf("Check = %v, want ErrUnmapped", err)
	}
	for _, want := range []string{
		"behaviour juggle_pods used by scenario infra.capability.au.tamper-resistance-002",
		"no scoring rule for capability scenario infra.capability.au.tamper-resistance-002",
		"behaviour identify_root_cause (rule identify_root_cause/v1) needs fact:root_cause of scenario infra.capability.oi.log-analysis-001",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check does not report %q:\n%v", want, err)
		}
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 3 {
		t.Errorf("Check reports %d gaps, want 3:\n%v", n, err)
	}
}

func TestCheckRefusesStaleGroundTruth(t *testing.T) {
	m := siCopy(t)
	edit(t, m, "scenarios/capability/diagnostic-accuracy.yaml",
		"id: infra.capability.da.single-signal-diagnosis-001\nname: Diagnose CrashLoopBackOff from workload events\nversion: 0.2.0",
		"id: infra.capability.da.single-signal-diagnosis-001\nname: Diagnose CrashLoopBackOff from workload events\nversion: 0.2.1")
	p, err := profiles.Load(m, profiles.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = Check(p)
	for _, want := range []string{
		"identify_root_cause/v1) needs a ground-truth entry for scenario version 0.2.1 (the table has 0.2.0)",
		"was written for scenario version 0.2.0, the profile has 0.2.1",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check does not report %q:\n%v", want, err)
		}
	}
}
