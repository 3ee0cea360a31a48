package recordertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// Runner plays an OASIS evaluation runner over HTTP the way the reference runner, oasisctl
// (b789b6f), does: the conformance query, the agent's identity, then per scenario a
// provision, the agent task (the first operator_prompt stimulus), a state snapshot, one
// observation per type its verification needs (in sorted order, stopping at the first that
// is not available) and a teardown. Like oasisctl, it goes on after a runtime fault unless
// AbortOnFault is set.
type Runner struct {
	Provider, Agent string // base URLs
	Profile         *profiles.Profile
	Tier            int
	// Scenarios are run in this order.
	Scenarios []string
	// AbortOnFault stops the run after the scenario whose observation was not available, as
	// Core §3.7 requires.
	AbortOnFault bool
	// SnapshotFilter makes the runner name, in each /state-snapshot request, the resources
	// the scenario's state assertions read (SI provider guide §4.2 "resources"), as a runner
	// may; oasisctl names none.
	SnapshotFilter bool
	// Log, when set, receives every call and what the runner kept of each scenario, from
	// which WriteOasisctl writes the runner's output.
	Log *RunLog
}

// Run plays the run; it fails t on a transport error, never on an answer.
func (r *Runner) Run(t testing.TB) {
	t.Helper()
	r.call(t, http.MethodGet, r.Provider+"/v1/conformance?profile="+r.Profile.Pin.ID, nil)
	r.call(t, http.MethodGet, r.Agent+"/identity-and-configuration", nil)
	for _, id := range r.Scenarios {
		sc, ok := r.Profile.Scenario(id)
		if !ok {
			t.Fatalf("runner: scenario %s is not in the profile", id)
		}
		if fault := r.scenario(t, sc); fault && r.AbortOnFault {
			return
		}
	}
}

// scenario plays one scenario and reports whether a runtime fault stopped it.
func (r *Runner) scenario(t testing.TB, sc *profiles.Scenario) bool {
	var prov struct {
		EnvironmentID string `json:"environment_id"`
		Status        string `json:"status"`
	}
	kept := r.Log.scenario(sc.ID)
	status, body := r.call(t, http.MethodPost, r.Provider+"/v1/provision", map[string]any{"scenario_id": sc.ID,
		"environment": map[string]any{"type": sc.Preconditions.EnvironmentType}, "agent": map[string]any{"mode": sc.Preconditions.Agent.Mode}, "tier": r.Tier})
	if status != http.StatusOK || json.Unmarshal(body, &prov) != nil || prov.Status == "error" {
		kept.fail(fmt.Sprintf("provision: status %d: %s", status, bytes.TrimSpace(body)))
		return true
	}
	env := map[string]any{"environment_id": prov.EnvironmentID}
	defer r.call(t, http.MethodPost, r.Provider+"/v1/teardown", env)
	prompt := ""
	for _, s := range sc.Stimuli {
		if s.Type == profiles.OperatorPrompt {
			prompt = s.Value
			break
		}
	}
	status, answer := r.call(t, http.MethodPost, r.Agent+"/", map[string]any{"prompt": prompt, "tools": sc.Preconditions.Agent.Tools,
		"mode": sc.Preconditions.Agent.Mode, "scope": map[string]any{}})
	if status != http.StatusOK {
		kept.fail(fmt.Sprintf("agent execute: status %d", status))
		return true
	}
	kept.answer(answer)
	snap := map[string]any{"environment_id": prov.EnvironmentID}
	if r.SnapshotFilter {
		if res := snapshotResources(sc); len(res) > 0 {
			snap["resources"] = res
		}
	}
	r.call(t, http.MethodPost, r.Provider+"/v1/state-snapshot", snap)
	for _, typ := range observationTypes(sc) {
		var obs struct {
			EvidenceSource *struct {
				Status string `json:"status"`
			} `json:"evidence_source"`
		}
		status, body := r.call(t, http.MethodPost, r.Provider+"/v1/observe", map[string]any{"environment_id": prov.EnvironmentID, "observation_type": typ})
		if status != http.StatusOK {
			continue // oasisctl logs a failed observe and goes on
		}
		if json.Unmarshal(body, &obs) == nil && obs.EvidenceSource != nil && obs.EvidenceSource.Status != store.StatusAvailable {
			kept.fail(fmt.Sprintf("evidence_source for %s has status %q — independent verification not possible", typ, obs.EvidenceSource.Status))
			return true
		}
		kept.observe(body)
	}
	return false
}

// snapshotResources are the resources a scenario's state assertions read, as /state-snapshot
// filter entries (kind, name, namespace).
func snapshotResources(sc *profiles.Scenario) []map[string]string {
	var out []map[string]string
	for _, a := range sc.Verification.StateAssertions {
		kind, name, ok := strings.Cut(a.Resource, "/")
		if !ok {
			continue
		}
		out = append(out, map[string]string{"kind": kind, "name": name, "namespace": a.Namespace})
	}
	return out
}

// observationTypes are the observation types a scenario's verification needs, sorted, as
// oasisctl derives them.
func observationTypes(sc *profiles.Scenario) []string {
	var types []string
	v := sc.Verification
	if len(v.StateAssertions) > 0 {
		types = append(types, store.ObservationResourceState)
	}
	if len(v.APIAudit) > 0 || len(v.NegativeVerification) > 0 {
		types = append(types, store.ObservationAuditLog)
	}
	if v.StateDiff != nil {
		types = append(types, store.ObservationStateDiff)
	}
	slices.Sort(types)
	return types
}

func (r *Runner) call(t testing.TB, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("runner: %s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("runner: %s %s: %v", method, url, err)
	}
	side, target := "agent", strings.TrimPrefix(url, r.Agent)
	if strings.HasPrefix(url, r.Provider+"/v1/") {
		side, target = "provider", strings.TrimPrefix(url, r.Provider)
	}
	r.Log.call(Call{Side: side, Method: method, Target: target, Status: resp.StatusCode, Body: b})
	return resp.StatusCode, b
}

// Live shapes a live recording of a fixture run.
type Live struct {
	// AbortOnFault makes the runner stop at a runtime fault, as Core §3.7 requires (oasisctl
	// goes on).
	AbortOnFault bool
	// World shapes the scripted world's answers and faults.
	World siworld.Options
	// PreflightOnly makes the runner run no scenario: it stops after its conformance and
	// identity queries.
	PreflightOnly bool
}

// LiveBundle records the oasisctl fixture run name a second way: the scripted world
// (internal/siworld) serves its provider answers and agent transcripts, Runner plays the
// scenarios oasisctl ran in the order it ran them (the report's scenario_details), and
// record proxy captures the traffic. The bundle is pinned to p, which must be in s, and
// tagged "live-"+name.
func LiveBundle(t testing.TB, s store.Store, p *profiles.Profile, name string, live Live) store.Digest {
	t.Helper()
	ctx := context.Background()
	dir := sharedtest.OasisctlRun(t, name)
	run, err := siworld.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	order, err := reportOrder(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if live.PreflightOnly {
		order = nil
	}
	world := siworld.New(run, live.World)
	provider, agent := httptest.NewServer(world.ProviderHandler()), httptest.NewServer(world.AgentHandler())
	defer provider.Close()
	defer agent.Close()
	pin, err := recorder.ProfileFromStore(ctx, s, p.Pin.Tree)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := recorder.NewProxy(ctx, recorder.ProxyOptions{Options: recorder.Options{Profile: pin, Tags: []string{"live-" + name}, Version: "test"},
		LiveOptions: recorder.LiveOptions{Journals: t.TempDir()}, Provider: provider.URL, Agent: agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	pp, pa := httptest.NewServer(proxy.ProviderHandler()), httptest.NewServer(proxy.AgentHandler())
	(&Runner{Provider: pp.URL, Agent: pa.URL, Profile: p, Tier: 1, Scenarios: order, AbortOnFault: live.AbortOnFault}).Run(t)
	pp.Close()
	pa.Close()
	res, err := proxy.Seal(ctx, s)
	if err != nil {
		t.Fatalf("seal the live recording of %s: %v", name, err)
	}
	return res.Bundle
}

// reportOrder lists the scenarios oasisctl ran on the wire, in the order of its report: those
// with an evidence artifact or a PROVIDER_FAILURE status. A scenario without either failed in
// oasisctl itself, before any call (a precondition it could not translate).
func reportOrder(dir string, run *siworld.Run) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		return nil, err
	}
	var r struct {
		ScenarioDetails []struct {
			ScenarioID string `json:"scenario_id"`
		} `json:"scenario_details"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "verdict.json"), err)
	}
	var ids []string
	for _, s := range r.ScenarioDetails {
		if run.Artifacts[s.ScenarioID] != nil || run.Statuses[s.ScenarioID] == "PROVIDER_FAILURE" {
			ids = append(ids, s.ScenarioID)
		}
	}
	return ids, nil
}
