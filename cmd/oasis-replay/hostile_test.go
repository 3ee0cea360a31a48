//go:build linux

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// hostileFreshEnvVar marks the fresh test process TestHostileInputPeakRSS runs its cases in.
const hostileFreshEnvVar = "OASIS_REPLAY_TEST_HOSTILE_FRESH"

// hostileRSSBudget is the peak resident memory any command may reach on hostile input (DESIGN
// §7; issue 15: "peak RSS under hostile input ≤ 256 MiB").
const hostileRSSBudget = 256 << 20

// hostileEnv is what a hostile case builds its input from: a directory of its own, the SI
// profile, and a store holding that profile and one bundle (tagged "base").
type hostileEnv struct {
	t       *testing.T
	dir     string
	profile string
}

// file writes in to name in the case's directory and returns its path.
func (e hostileEnv) file(name string, in hostileInput) string {
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	in(w)
	if err := w.Flush(); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// copyDir copies the tree at src into the case's directory as name and returns its path.
func (e hostileEnv) copyDir(src, name string) string {
	dst := filepath.Join(e.dir, name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		e.t.Fatal(err)
	}
	return dst
}

// The hostile inputs, each a writer of its bytes: they are streamed to their file, so that this
// process stays small (a child process starts with the peak resident set of the process that
// starts it, which its rusage then reports). Each is quick to write and to refuse, and would
// cost gigabytes read without limits.
type hostileInput func(w *bufio.Writer)

// repeated writes head, n copies of unit and tail.
func repeated(head, unit string, n int, tail string) hostileInput {
	return func(w *bufio.Writer) {
		w.WriteString(head)
		for range n {
			w.WriteString(unit)
		}
		w.WriteString(tail)
	}
}

func text(s string) hostileInput { return repeated(s, "", 0, "") }

// join writes each of parts in turn.
func join(parts ...hostileInput) hostileInput {
	return func(w *bufio.Writer) {
		for _, p := range parts {
			p(w)
		}
	}
}

var (
	// wideArray is a 24 MB array of 12 million numbers.
	wideArray = repeated("[", "0,", 12_000_000, "0]")
	// wideArray12MB is a 12 MB array of 6 million numbers.
	wideArray12MB = repeated("[", "0,", 6_000_000, "0]")
	// manyObjects is a 10 MB List of 200,000 small Kubernetes objects.
	manyObjects hostileInput = func(w *bufio.Writer) {
		w.WriteString(`{"kind":"List","apiVersion":"v1","items":[`)
		for i := range 200_000 {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"kind":"ConfigMap","metadata":{"name":"c%d"}}`, i)
		}
		w.WriteString("]}")
	}
	// deepArray nests 1,000,000 arrays.
	deepArray = repeated("", "[", 1_000_000, "")
	// deepObject nests 1,000,000 arrays in an object.
	deepObject = repeated(`{"kind":"Event","a":`, "[", 1_000_000, "")
	// longKey is an object whose one member name has 100 MB.
	longKey = repeated(`{"`, "k", 100<<20, `":1}`)
	// manyNumbers is a 16 MB transcript holding 8 million numbers.
	manyNumbers = repeated(`{"final_answer":"done","actions":[{"tool":"kubectl","arguments":{"n":[`, "1,", 8_000_000, `1]}}]}`)
	// aliasBomb is a YAML document of 600 bytes whose aliases expand to a billion values.
	aliasBomb hostileInput = func(w *bufio.Writer) {
		w.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
		prev := "a"
		for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
			fmt.Fprintf(w, "%s: &%s [%s]\n", name, name, strings.Repeat("*"+prev+", ", 9)+"*"+prev)
			prev = name
		}
	}
	// deepYAML nests 100,000 flow sequences.
	deepYAML = repeated("key: ", "[", 100_000, "")
	// wideYAML is an 8 MB flow mapping of 4 million keys.
	wideYAML = repeated("key: {", "k,", 4_000_000, "k}\n")
	// manyConfigMaps is the costliest List within the snapshot limits: 43,000 objects of six
	// values (snapshot.MaxValues), one holding a string that fills snapshot.DefaultMaxBytes.
	manyConfigMaps = join(text(`{"kind":"List","apiVersion":"v1","items":[{"kind":"ConfigMap","metadata":{"name":"pad"},"data":{"pad":"`),
		repeated("", "x", 13<<20, `"}}`), repeated("", `,{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":0}}`, 43_000, "]}"))
	// largestTranscript fills the transcript limits: 500,000 values (oasisctl.MaxArtifactValues)
	// in the arguments of one action, and a result that fills oasisctl.MaxArtifactBytes.
	largestTranscript = join(text(`{"final_answer":"done","actions":[{"tool":"kubectl","result":"`),
		repeated("", "x", 14<<20, `","arguments":{"n":[0`), repeated("", `,{"a":0}`, 250_000, `]}}]}`))
	// largestArtifact is the same as an artifact of the fixture's first scenario.
	largestArtifact = join(text(`{"scenario_id":"infra.capability.au.action-completeness-001","final_answer":"done","actions":[{"tool":"kubectl","result":"`),
		repeated("", "x", 14<<20, `","arguments":{"n":[0`), repeated("", `,{"a":0}`, 250_000, `]}}]}`))
	// largestKensaRun fills the document model's default limits in a Kensa run manifest: an
	// input of 500,000 values, and a stdout and a stderr that fill 32 MiB.
	largestKensaRun = join(text(`{"run_id":"r","timestamp":"2026-01-01T00:00:00Z","kind":"eval","scenarios":{"s":[{"trace_path":"","exit_code":0,"duration_seconds":0.1,"stderr":"`),
		repeated("", "e", 13<<20, `","stdout":"`), repeated("", "x", 13<<20, `","input":[0`), repeated("", `,{"a":0}`, 249_000, `]}]}}`))
	// largestScenarioYAML is a Kensa scenario file that fills the document model's default
	// limits: as many YAML values as the bound counted before parsing admits, and a string
	// that fills 32 MiB.
	largestScenarioYAML = join(text("id: s\nname: s\nrun_command: [\"true\"]\ninput: "), repeated("", "x", 15<<20, "\ntrace_refs: [t"),
		repeated("", ", t", 150_000, "]\n"))
	// longLine is an audit log of one Event whose one string has 200 MB.
	longLine = repeated(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"`, "x", 200<<20, "\"}\n")
)

// hostileCase is one reader entry point given one hostile input.
type hostileCase struct {
	name string
	// long marks the cases whose input takes a while to write, run with OASIS_REPLAY_LONG=1.
	long bool
	// args builds the input and returns the command line (after --store).
	args func(e hostileEnv) []string
	// want must match the error on stderr: the limit, by name, and where.
	want string
	// status is the exit status wanted: exitError (bad input), unless set.
	status int
	// accepted marks an input within the limits, which must be recorded (exit status 0).
	accepted bool
}

const siScenario = "infra.safety.be.zone-violation-001"

func recordFiles(e hostileEnv, flag, name string, data hostileInput) []string {
	return []string{"record", "files", "--profile-digest", "oasis-profile-software-infrastructure@0.2.0-rc3", "--scenario", siScenario, flag, e.file(name, data)}
}

// oasisctlRun copies the "safe" fixture run and replaces file rel with data.
func oasisctlRun(e hostileEnv, rel string, data hostileInput) []string {
	dir := e.copyDir(sharedtest.OasisctlRun(e.t, "safe"), "run")
	e.file(filepath.Join("run", rel), data)
	return []string{"record", "oasisctl", "--profile-digest", "oasis-profile-software-infrastructure@0.2.0-rc3", dir}
}

// hostileProfile copies the SI profile and adds a scenario file holding data.
func hostileProfile(e hostileEnv, data hostileInput) []string {
	dir := e.copyDir(e.profile, "profile")
	e.file("profile/scenarios/safety/hostile.yaml", data)
	return []string{"profile", "import", dir}
}

// largestProfile copies the SI profile and adds seven scenario files of 8 MiB
// (profiles.MaxFileSize), each holding as many YAML values as the document model admits.
func largestProfile(e hostileEnv) []string {
	dir := e.copyDir(e.profile, "profile")
	for i := range 7 {
		e.file(fmt.Sprintf("profile/scenarios/safety/hostile-%d.yaml", i), join(text("id: x\nrefs: [t"), repeated("", ",t", 500_000, "]\nnote: "),
			repeated("", "x", 7<<20, "\n")))
	}
	return []string{"profile", "import", dir}
}

// hostileKensa is a .kensa directory whose run manifest or scenario file is data.
func hostileKensa(e hostileEnv, rel string, data hostileInput) []string {
	e.file(".kensa/scenarios/s.yaml", text("id: s\nname: s\ninput: hi\nrun_command: [\"true\"]\n"))
	e.file(".kensa/runs/r.json", text(`{"run_id":"r","timestamp":"2026-01-01T00:00:00Z","kind":"eval","scenarios":{"s":[{"trace_path":"","exit_code":0,"duration_seconds":0.1,"stdout":"","stderr":"","input":"hi"}]}}`))
	e.file(".kensa/"+rel, data)
	return []string{"kensa", "import", e.dir}
}

// hostileArchive writes a bundle archive whose oci-layout is layout and whose index.json names
// one bundle manifest, the object manifest (and a profile tree the archive lacks).
func hostileArchive(e hostileEnv, layout, manifest hostileInput) []string {
	obj := e.file("manifest.json", manifest)
	f, err := os.Open(obj)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		e.t.Fatal(err)
	}
	hexDigest := hex.EncodeToString(h.Sum(nil))
	index := fmt.Sprintf(`{"annotations":{"com.github.oasis-replay.archive.version":"1"},"manifests":[{"digest":"sha256:%s","mediaType":"application/vnd.oasis-replay.run-manifest.v1+json","size":%d},{"digest":"sha256:%s","mediaType":"application/vnd.oasis-replay.profile-tree.v1+json","size":1}],"mediaType":"application/vnd.oci.image.index.v1+json","schemaVersion":2}`,
		hexDigest, size, strings.Repeat("1", 64))
	return []string{"bundle", "import", e.file("hostile.tar.zst", func(w *bufio.Writer) {
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest))
		if err != nil {
			e.t.Fatal(err)
		}
		tw := tar.NewWriter(zw)
		add := func(name string, size int64, from io.Reader) {
			if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
				e.t.Fatal(err)
			}
			if _, err := io.Copy(tw, from); err != nil {
				e.t.Fatal(err)
			}
		}
		var lb bytes.Buffer
		lw := bufio.NewWriter(&lb)
		layout(lw)
		lw.Flush()
		add("oci-layout", int64(lb.Len()), &lb)
		add("index.json", int64(len(index)), strings.NewReader(index))
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			e.t.Fatal(err)
		}
		add("blobs/sha256/"+hexDigest, size, f)
		if err := tw.Close(); err != nil {
			e.t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			e.t.Fatal(err)
		}
	})}
}

var validLayout = text(`{"imageLayoutVersion":"1.0.0"}`)

var hostileCases = []hostileCase{
	{name: "record-files-before-wide-array", want: `before\.json is larger than 16777216 bytes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--before", "before.json", wideArray) }},
	{name: "record-files-before-wide-array-12MB", want: `before\.json:1:\d+: .*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--before", "before.json", wideArray12MB) }},
	{name: "record-files-before-many-objects", want: `before\.json:1:\d+: field items\[\d+\].*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--before", "before.json", manyObjects) }},
	{name: "record-files-before-largest-accepted", long: true, accepted: true, want: `sealed sha256:`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--before", "before.json", manyConfigMaps) }},
	{name: "record-files-after-deep", want: `after\.json:1:\d+: .*Limits\.MaxDepth`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--after", "after.json", deepArray) }},
	{name: "record-files-after-long-key", long: true, want: `after\.json is larger than 16777216 bytes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--after", "after.json", longKey) }},
	{name: "record-files-transcript-numbers", want: `transcript\.json:1:\d+: .*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--transcript", "transcript.json", manyNumbers) }},
	{name: "record-files-transcript-long-key", long: true, want: `transcript\.json is larger than 16777216 bytes`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--transcript", "transcript.json", longKey) }},
	{name: "record-files-transcript-largest-accepted", long: true, accepted: true, want: `sealed sha256:`,
		args: func(e hostileEnv) []string {
			return recordFiles(e, "--transcript", "transcript.json", largestTranscript)
		}},
	{name: "record-files-audit-log-deep", want: `audit\.log.*nesting deeper`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--audit-log", "audit.log", deepObject) }},
	{name: "record-files-audit-log-long-line", long: true, want: `audit\.log`,
		args: func(e hostileEnv) []string { return recordFiles(e, "--audit-log", "audit.log", longLine) }},
	{name: "record-oasisctl-report-wide", want: `verdict\.json.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string { return oasisctlRun(e, "verdict.json", wideArray) }},
	{name: "record-oasisctl-artifact-numbers", want: `evidence-.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string {
			return oasisctlRun(e, "evidence/evidence-infra.capability.au.action-completeness-001.json", manyNumbers)
		}},
	{name: "record-oasisctl-artifact-largest-accepted", long: true, accepted: true, want: `sealed sha256:`,
		args: func(e hostileEnv) []string {
			return oasisctlRun(e, "evidence/evidence-infra.capability.au.action-completeness-001.json", largestArtifact)
		}},
	{name: "profile-import-alias-bomb", want: `hostile\.yaml.*Limits\.MaxAliasNodes`,
		args: func(e hostileEnv) []string { return hostileProfile(e, aliasBomb) }},
	{name: "profile-import-deep", want: `hostile\.yaml.*Limits\.MaxDepth`,
		args: func(e hostileEnv) []string { return hostileProfile(e, deepYAML) }},
	{name: "profile-import-wide", want: `hostile\.yaml.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string { return hostileProfile(e, wideYAML) }},
	{name: "profile-import-largest", long: true, want: `hostile-0\.yaml`,
		args: largestProfile},
	{name: "audit-report-wide", want: `report\.json.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string {
			return []string{"audit", "base", "--report", e.file("report.json", wideArray)}
		}},
	{name: "audit-report-deep", want: `report\.json.*Limits\.MaxDepth`,
		args: func(e hostileEnv) []string {
			return []string{"audit", "base", "--report", e.file("report.json", deepArray)}
		}},
	{name: "bundle-import-wide-object", status: exitMismatch, want: `blobs/sha256/[0-9a-f]{64}:1:\d+: .*Limits\.MaxNodes.*MaxObjectValues`,
		args: func(e hostileEnv) []string {
			return hostileArchive(e, validLayout, repeated(`{"kind":"run-manifest","schema_version":1,"x":[`, "0,", 6_000_000, "0]}"))
		}},
	{name: "bundle-import-duplicate-layout", status: exitMismatch, want: `oci-layout:1:\d+: .*duplicate key "imageLayoutVersion"`,
		args: func(e hostileEnv) []string {
			return hostileArchive(e, text(`{"imageLayoutVersion":"9","imageLayoutVersion":"1.0.0"}`), text(`{}`))
		}},
	{name: "kensa-import-alias-bomb", want: `s\.yaml.*Limits\.MaxAliasNodes`,
		args: func(e hostileEnv) []string { return hostileKensa(e, "scenarios/s.yaml", aliasBomb) }},
	{name: "kensa-import-wide-run", want: `r\.json.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string {
			// Run manifests are read one run at a time: the limit applies to each run's entry.
			return hostileKensa(e, "runs/r.json", join(text(`{"run_id":"r","timestamp":"2026-01-01T00:00:00Z","kind":"eval","scenarios":{"s":[{"input":"hi","x":`), wideArray, text(`}]}}`)))
		}},
	{name: "kensa-import-huge-run", long: true, want: `r\.json: more than kensa\.MaxInputFile \(33554432 bytes\) in one run`,
		args: func(e hostileEnv) []string { return hostileKensa(e, "runs/r.json", longKey) }},
	{name: "kensa-import-largest-run", long: true, accepted: true, want: `imported 1 runs`,
		args: func(e hostileEnv) []string { return hostileKensa(e, "runs/r.json", largestKensaRun) }},
	{name: "kensa-import-largest-scenario", long: true, accepted: true, want: `imported 1 runs`,
		args: func(e hostileEnv) []string { return hostileKensa(e, "scenarios/s.yaml", largestScenarioYAML) }},
	{name: "eval-scenario-add-alias-bomb", want: `scenario\.yaml.*Limits\.MaxAliasNodes`,
		args: func(e hostileEnv) []string {
			return []string{"eval", "scenario", "add", e.file("scenario.yaml", aliasBomb)}
		}},
	{name: "eval-scenario-add-wide", want: `scenario\.json.*Limits\.MaxNodes`,
		args: func(e hostileEnv) []string {
			return []string{"eval", "scenario", "add", e.file("scenario.json", manyNumbers)}
		}},
}

// TestHostileInputPeakRSS runs the program as a child process on a hostile input at every
// entry point that reads an untrusted document, and checks that it refuses the input with an
// error naming the limit (exit status 2) within the memory budget: the child's peak resident
// set size, read from its rusage, is at most 256 MiB. Inputs within the limits that cost most
// are recorded within it too. Inputs of 100 MB and more, and the costliest accepted ones, run
// with OASIS_REPLAY_LONG=1.
//
// A child's rusage counts the peak of the process that started it too (Linux keeps the
// high-water mark of the memory an exec replaces), so the cases run in a fresh test process of
// their own that does nothing large: inputs are streamed to files, the store is prepared by a
// child, and its own peak is checked to stay far below the budget.
func TestHostileInputPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes inputs of tens of megabytes")
	}
	if os.Getenv(hostileFreshEnvVar) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHostileInputPeakRSS$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), hostileFreshEnvVar+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		out, err := cmd.CombinedOutput()
		t.Logf("in a fresh process:\n%s", out)
		if err != nil {
			t.Fatalf("the fresh process: %v", err)
		}
		return
	}
	profile := sharedtest.SIProfile(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	if status, stderr, _ := runChild(t, storeDir, []string{"record", "oasisctl", "--profile", profile, "--tag", "base",
		sharedtest.OasisctlRun(t, "safe")}); status != exitOK {
		t.Fatalf("record oasisctl: %s", stderr)
	}
	long := os.Getenv("OASIS_REPLAY_LONG") == "1"
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			if c.long && !long {
				t.Skip("set OASIS_REPLAY_LONG=1 to run it")
			}
			args := c.args(hostileEnv{t: t, dir: t.TempDir(), profile: profile})
			if own, ok := procStatus(os.Getpid(), "VmHWM"); ok && own > hostileRSSBudget/4 {
				t.Fatalf("the test process itself reached %d MiB, which its children's rusage would report", own>>20)
			}
			status, stderr, rss := runChild(t, storeDir, args)
			t.Logf("peak RSS %d MiB, exit %d: %s", rss>>20, status, firstLine(stderr))
			if rss > hostileRSSBudget {
				t.Errorf("peak RSS %d MiB exceeds the budget of %d MiB", rss>>20, hostileRSSBudget>>20)
			}
			want := cmp.Or(c.status, exitError)
			if c.accepted {
				want = exitOK
			}
			if status != want || !regexp.MustCompile(c.want).MatchString(stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and an error matching %s", status, shortText(stderr), want, c.want)
			}
		})
	}
}

// runChild runs the program with args on storeDir in a process of its own, and returns its
// exit status, its stderr and its peak resident set size.
func runChild(t *testing.T, storeDir string, args []string) (status int, stderr string, rss int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"oasis-replay", "--store", storeDir}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnvVar+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not exit within 2 minutes", strings.Join(args, " "))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	return cmd.ProcessState.ExitCode(), errOut.String(), ru.Maxrss << 10
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return shortText(line)
}

func shortText(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
