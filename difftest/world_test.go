package difftest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/internal/siworldgen"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/replay/outcome"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/serve/provider"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/memstore"
)

var (
	worldsFlag = flag.Int("worlds", 200, "seeded worlds to run (DIFFTEST_WORLDS overrides)")
	firstFlag  = flag.Uint64("first-seed", 1, "the first seed; worlds run seeds first-seed, first-seed+1, …")
)

// basePrincipal is the agent principal of the oasisctl fixture runs.
const basePrincipal = "system:serviceaccount:oasis-agents:scripted-agent"

// worldCount is the number of worlds to run: DIFFTEST_WORLDS, else -worlds.
func worldCount(t *testing.T) int {
	if v := os.Getenv("DIFFTEST_WORLDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("DIFFTEST_WORLDS=%q is not a count", v)
		}
		return n
	}
	return *worldsFlag
}

// regressions are the seeds of testdata/regressions.txt: worlds that once failed.
func regressions(t *testing.T) []uint64 {
	f, err := os.Open(filepath.Join("testdata", "regressions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seeds []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		n, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			t.Fatalf("testdata/regressions.txt: %q is not a seed", line)
		}
		seeds = append(seeds, n)
	}
	return seeds
}

// TestWorlds runs the regression seeds and worldCount seeded worlds, each through the three
// checks of the package doc, and prints the figures: worlds run, shapes covered, failures.
// Worlds run in parallel (as many as -parallel allows, each with a store of its own); each is
// a pure function of its seed, so the order they run in changes nothing.
func TestWorlds(t *testing.T) {
	base := loadBase(t)
	seeds := regressions(t)
	for i := range worldCount(t) {
		seeds = append(seeds, *firstFlag+uint64(i))
	}
	pool := make(chan *stores, runtime.GOMAXPROCS(0))
	for range cap(pool) {
		pool <- &stores{}
	}
	var mu sync.Mutex
	covered := map[string]int{}
	var failed []uint64
	run := 0
	t.Cleanup(func() { report(run, covered, failed) })
	for _, seed := range seeds {
		w := siworldgen.Generate(seed, base)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			st := <-pool
			defer func() { pool <- st }()
			checkWorld(t, st, w)
			mu.Lock()
			defer mu.Unlock()
			run++
			for _, s := range w.Shapes() {
				covered[s]++
			}
			if t.Failed() {
				failed = append(failed, seed)
			}
		})
	}
}

// report prints the figures of TestWorlds.
func report(run int, covered map[string]int, failed []uint64) {
	shapes := make([]string, 0, len(covered))
	for s, n := range covered {
		shapes = append(shapes, fmt.Sprintf("%s %d", s, n))
	}
	slices.Sort(shapes)
	slices.Sort(failed)
	fmt.Printf("difftest: shapes covered (worlds using each):\n  %s\n", strings.Join(shapes, "\n  "))
	fmt.Printf("difftest: %d worlds run, %d shapes covered, failures: %d\n", run, len(covered), len(failed))
	for _, seed := range failed {
		fmt.Printf("difftest: failing seed %d (go test ./difftest -run 'TestWorlds/seed=%d$' -v)\n", seed, seed)
	}
}

func loadBase(t *testing.T) *siworldgen.Base {
	t.Helper()
	safe, err := siworld.LoadRun(sharedtest.OasisctlRun(t, "safe"))
	if err != nil {
		t.Fatal(err)
	}
	unsafe, err := siworld.LoadRun(sharedtest.OasisctlRun(t, "unsafe"))
	if err != nil {
		t.Fatal(err)
	}
	return &siworldgen.Base{Safe: safe, Unsafe: unsafe, Principal: basePrincipal, Order: reportOrder(t, "safe"),
		ObjectCredentials: os.Getenv("OASISCTL") != ""}
}

// reportOrder is the order of the scenarios of a fixture run's report: the suite order the
// reference runner ran them in.
func reportOrder(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.OasisctlRun(t, name), "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ScenarioDetails []struct {
			ID string `json:"scenario_id"`
		} `json:"scenario_details"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range r.ScenarioDetails {
		ids = append(ids, d.ID)
	}
	return ids
}

// storeWorlds is how many worlds share one in-memory store: loading the SI profile is most of
// a world's cost, and a store that held thousands of worlds' bundles would hold gigabytes.
const storeWorlds = 50

// stores hands out an in-memory store holding the SI profile, a new one every storeWorlds
// worlds.
type stores struct {
	s    store.Store
	p    *profiles.Profile
	pin  *recorder.Profile
	used int
}

func (st *stores) next(t *testing.T) (store.Store, *profiles.Profile, *recorder.Profile) {
	t.Helper()
	if st.s == nil || st.used == storeWorlds {
		st.s, st.used = memstore.New(), 0
		st.p = replaytest.ImportSI(t, st.s)
		pin, err := recorder.ProfileFromStore(context.Background(), st.s, st.p.Pin.Tree)
		if err != nil {
			t.Fatal(err)
		}
		st.pin = pin
	}
	st.used++
	return st.s, st.p, st.pin
}

// checkWorld runs w's run through record proxy, imports the runner's output, and checks (a),
// (b) and (c).
func checkWorld(t *testing.T, st *stores, w *siworldgen.World) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the world: %s", w.Describe())
		}
	})
	ctx := context.Background()
	s, p, pin := st.next(t)
	srv := siworldgen.NewServer(w)
	up, ua := httptest.NewServer(srv.ProviderHandler()), httptest.NewServer(srv.AgentHandler())
	defer up.Close()
	defer ua.Close()
	opts := recorder.Options{Profile: pin, Version: "test", Verdicts: outcome.Evaluator{}}
	proxy, err := recorder.NewProxy(ctx, recorder.ProxyOptions{Options: opts,
		LiveOptions: recorder.LiveOptions{Journals: journals(t)}, Provider: up.URL, Agent: ua.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	pp, pa := httptest.NewServer(proxy.ProviderHandler()), httptest.NewServer(proxy.AgentHandler())
	truth := w.Truth()
	dir := t.TempDir()
	if bin := os.Getenv("OASISCTL"); bin != "" {
		runOasisctl(t, bin, pp.URL, pa.URL, dir, w)
	} else {
		log := &recordertest.RunLog{}
		(&recordertest.Runner{Provider: pp.URL, Agent: pa.URL, Profile: p, Tier: 1, Scenarios: w.Order,
			SnapshotFilter: w.SnapshotFilter, Log: log}).Run(t)
		if err := log.WriteOasisctl(dir, recordertest.Report{Profile: p, AgentName: w.AgentName, AgentVersion: w.AgentVersion,
			Configuration: w.Configuration, Claimed: func(id string) string { return truth.Scenarios[id].Status }}); err != nil {
			t.Fatalf("write the runner's output: %v", err)
		}
	}
	pp.Close()
	pa.Close()
	sealed, err := proxy.Seal(ctx, s)
	if err != nil {
		t.Fatalf("seal the live recording: %v", err)
	}
	imported, err := recorder.RecordOasisctl(ctx, s, dir, recorder.OasisctlOptions{Options: opts})
	if err != nil {
		t.Fatalf("import the runner's output: %v", err)
	}
	redactionKept(t, "live", sealed.Manifest)
	redactionKept(t, "imported", imported.Manifest)
	live := evaluated(t, s, p, sealed.Bundle, "live")
	imp := evaluated(t, s, p, imported.Bundle, "imported")
	if live == nil || imp == nil {
		return
	}
	sameVerdict(t, imp, live)
	groundTruth(t, w, truth, live)
	servedAsRecorded(t, s, sealed.Bundle, w, srv.Log())
}

// evaluated is the verdict of bundle d, evaluated as replay does with the profile already
// loaded (the bundle pins p: both were recorded against it).
func evaluated(t *testing.T, s store.Store, p *profiles.Profile, d store.Digest, what string) *evaluator.Verdict {
	t.Helper()
	run, err := evaluator.LoadRun(context.Background(), s, d)
	if err != nil {
		t.Errorf("load the %s recording: %v", what, err)
		return nil
	}
	v, err := evaluator.Evaluate(context.Background(), p, run, evaluator.Options{})
	if err != nil {
		t.Errorf("evaluate the %s recording: %v", what, err)
		return nil
	}
	return v
}

// sameVerdict is check (a): the verdicts of the two captures, scenario by scenario.
func sameVerdict(t *testing.T, imported, live *evaluator.Verdict) {
	t.Helper()
	if a, b := runProjection(imported), runProjection(live); a != b {
		t.Errorf("run: imported %s, live %s", a, b)
	}
	byID := map[string]evaluator.ScenarioResult{}
	for _, r := range live.Scenarios {
		byID[r.ID] = r
	}
	for _, want := range imported.Scenarios {
		got, ok := byID[want.ID]
		if !ok {
			t.Errorf("%s: in the imported verdict, not in the live one", want.ID)
			continue
		}
		a, b := Projection(want), Projection(got)
		if !bytes.Equal(a, b) {
			t.Errorf("%s:\n  imported %s\n  live     %s", want.ID, a, b)
		}
	}
	if len(live.Scenarios) != len(imported.Scenarios) {
		t.Errorf("%d scenarios live, %d imported", len(live.Scenarios), len(imported.Scenarios))
	}
}

// groundTruth is check (c).
func groundTruth(t *testing.T, w *siworldgen.World, truth siworldgen.Truth, v *evaluator.Verdict) {
	t.Helper()
	if string(v.Safety) != truth.Safety || v.Metadata.Aborted != truth.Aborted {
		t.Errorf("safety %s aborted %v, the world's truth is %s aborted %v", v.Safety, v.Metadata.Aborted, truth.Safety, truth.Aborted)
	}
	for _, r := range v.Scenarios {
		want, ok := truth.Scenarios[r.ID]
		sc := w.Scenarios[r.ID]
		switch {
		case !ok:
			t.Errorf("%s: in the verdict, not in the world", r.ID)
		case r.State != want.State || string(r.Status) != want.Status:
			t.Errorf("%s (agent %s, fault %q %s, resources %s): %s %s, the world's truth is %s %s; reason %q", r.ID, sc.Behaviour, sc.Fault, sc.FaultType,
				sc.ResourceShape, r.State, r.Status, want.State, want.Status, r.Reason)
		}
	}
}

// servedAsRecorded is check (b): every call the world answered is made again, as it
// arrived, to serve provider replaying the live recording, and must get the world's answer,
// each credential of the world replaced by a redaction marker and nothing else changed.
func servedAsRecorded(t *testing.T, s store.Store, d store.Digest, w *siworldgen.World, calls []siworldgen.Exchange) {
	t.Helper()
	srv, err := provider.Load(context.Background(), s, d, provider.Options{})
	if err != nil {
		t.Fatalf("serve provider: %v", err)
	}
	sp, sa := httptest.NewServer(srv.ProviderHandler()), httptest.NewServer(srv.AgentHandler())
	defer sp.Close()
	defer sa.Close()
	secrets := w.Secrets()
	bad := 0
	for i, c := range calls {
		base := sp.URL
		if c.Side == "agent" {
			base = sa.URL
		}
		status, body := call(t, c.Method, base+c.Target, c.Request)
		want := masked(c.Answer, secrets)
		if status != c.Status || !bytes.Equal(body, want) {
			bad++
			if bad <= 3 {
				t.Errorf("serve provider: call %d %s %s %s: %d %.300q, recorded %d %.300q", i, c.Side, c.Method, c.Target, status, body, c.Status, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("serve provider answered %d of %d calls with other bytes than were recorded", bad, len(calls))
	}
}

func call(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// masked is b with every secret replaced by the unkeyed redaction marker.
func masked(b []byte, secrets []string) []byte {
	for _, s := range secrets {
		b = bytes.ReplaceAll(b, []byte(s), []byte(redact.UnkeyedMarker))
	}
	return b
}

// runOasisctl runs the reference runner (OASISCTL, oasisctl b789b6f) against the recording
// proxy: the world's scenarios, in its report and evidence directory layout, into dir.
func runOasisctl(t *testing.T, bin, providerURL, agentURL, dir string, w *siworldgen.World) {
	t.Helper()
	args := []string{"run", "--profile", sharedtest.SIProfile(t), "--provider-url", providerURL, "--agent-url", agentURL,
		"--agent-adapter", "http", "--tier", "1", "--format", "json", "--output", filepath.Join(dir, "verdict.json"),
		"--evidence-dir", filepath.Join(dir, "evidence"), "--agent-principal", w.Principal}
	for _, id := range w.Order {
		args = append(args, "--scenario", id)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if _, statErr := os.Stat(filepath.Join(dir, "verdict.json")); statErr != nil {
		t.Fatalf("oasisctl wrote no report (%v): %s", err, out)
	}
}

// journals is a directory for a live recording's journal: in shared memory where the system
// has it, since the journal's fsyncs are not what these tests check and would be most of a
// world's time; else a temporary directory.
func journals(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "difftest-"); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// redactionKept requires the seal's own check (recorder.Options.Verdicts) to have found that
// redaction changes no verdict of the bundle.
func redactionKept(t *testing.T, what string, m *store.RunManifest) {
	t.Helper()
	for _, f := range m.Findings {
		if f.Code == recorder.CodeRedactionChangesVerdict || f.Code == recorder.CodeRedactionUnchecked {
			t.Errorf("the %s recording: [%s] %s: %s", what, f.Code, f.Scenario, f.Message)
		}
	}
}
