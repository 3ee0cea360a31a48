//go:build linux

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// policyEnv is what the input policy's cases build their command lines from: a store holding
// the demo's bundles (tagged demo), a directory of their own, and valid inputs to give the
// command's other arguments.
type policyEnv struct {
	t     *testing.T
	store string
	dir   string
}

// policyRecipe is how one path input of one command is fed a hostile path.
type policyRecipe struct {
	// args is the command line (after --store) with the hostile path at "@".
	args func(e policyEnv) []string
	// member is, for a directory input, the file inside it to make a symbolic link leading
	// out of the directory; dir builds the directory around it (an empty one when nil).
	member string
	dir    func(e policyEnv, dst string)
	// says overrides what the error must say for a kind ("huge": a reader that refuses the
	// zeros of the sparse file by their content before any limit).
	says map[string]string
	// noLink exempts a directory input from the link kind, saying why.
	noLink string
}

// policyRecipes feed each path input of the command tree (pathInputs: ArgsUsage words and
// flags naming files or directories) a hostile path. TestEveryPathInputPolicy fails for an
// input that has neither a recipe nor an exemption, so a new command is covered once it is
// declared, or exempted with its reason.
var policyRecipes = map[string]policyRecipe{
	"record oasisctl DIR": {args: fixed("record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", "@"),
		member: "verdict.json"},
	"record oasisctl --profile":         {args: withRun("record", "oasisctl", "--profile", "@"), member: "profile.md", dir: copyOf(sharedtest.SIProfile), says: profileSays},
	"record oasisctl --redact-file":     {args: withRun("record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", "--redact-file", "@")},
	"record oasisctl --redact-key-file": {args: withRun("record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", "--redact-key-file", "@")},
	"record oasisctl --run-config":      {args: withRun("record", "oasisctl", "--profile-digest", "oasis-replay-example-profile@0.1.0", "--run-config", "@")},
	"record proxy --profile":            {args: fixed("record", "proxy", "--provider", "http://127.0.0.1:9", "--agent", "http://127.0.0.1:9", "--profile", "@"), member: "profile.md", dir: copyOf(sharedtest.SIProfile), says: profileSays},
	"record proxy --redact-file":        {args: fixed("record", "proxy", "--provider", "http://127.0.0.1:9", "--agent", "http://127.0.0.1:9", "--profile-digest", "oasis-replay-example-profile@0.1.0", "--redact-file", "@")},
	"record proxy --redact-key-file":    {args: fixed("record", "proxy", "--provider", "http://127.0.0.1:9", "--agent", "http://127.0.0.1:9", "--profile-digest", "oasis-replay-example-profile@0.1.0", "--redact-key-file", "@")},
	"record files --profile":            {args: fixed("record", "files", "--profile", "@", "--scenario", "x"), member: "profile.md", dir: copyOf(sharedtest.SIProfile), says: profileSays},
	"record files --redact-file":        {args: exampleWith("--redact-file", "@")},
	"record files --redact-key-file":    {args: exampleWith("--redact-key-file", "@")},
	"record files --audit-log":          {args: exampleWith("--audit-log", "@"), says: map[string]string{"huge": "not an audit log"}},
	"record files --before":             {args: exampleWith("--before", "@"), member: "state.json", says: snapshotSays},
	"record files --after":              {args: exampleWith("--after", "@"), member: "state.json", says: snapshotSays},
	"record files --transcript":         {args: exampleWith("--transcript", "@")},
	"record webhook --profile":          {args: fixed("record", "webhook", "--scenario", "x", "--profile", "@"), member: "profile.md", dir: copyOf(sharedtest.SIProfile), says: profileSays},
	"record webhook --redact-file":      {args: webhook("--redact-file", "@")},
	"record webhook --redact-key-file":  {args: webhook("--redact-key-file", "@")},
	"record recover JOURNAL":            {args: fixed("record", "recover", "@"), says: map[string]string{"huge": "is not a journal"}},
	"record recover --redact-file":      {args: fixed("record", "recover", "--redact-file", "@")},
	"record recover --redact-key-file":  {args: fixed("record", "recover", "--redact-key-file", "@")},
	"replay --sign": {args: func(e policyEnv) []string {
		return []string{"replay", "--sign", "@", "--receipt", e.path("r.dsse.json"), "demo"}
	}},
	"audit --report": {args: fixed("audit", "--report", "@", "demo")},
	"audit --require-signature": {args: func(e policyEnv) []string {
		return []string{"audit", "--require-signature", "@", "--key", e.publicKey(), "demo"}
	}},
	"audit --key": {args: func(e policyEnv) []string {
		return []string{"audit", "--key", "@", "--require-signature", e.file("r.dsse.json", "{}"), "demo"}
	}},
	"receipt verify FILE": {args: func(e policyEnv) []string { return []string{"receipt", "verify", "--key", e.publicKey(), "@"} }},
	"receipt verify --key": {args: func(e policyEnv) []string {
		return []string{"receipt", "verify", "--key", "@", e.file("r.dsse.json", "{}")}
	}},
	"profile import DIR":           {args: fixed("profile", "import", "@"), member: "profile.md", dir: copyOf(sharedtest.SIProfile), says: profileSays},
	"bundle import FILE":           {args: fixed("bundle", "import", "@"), says: archiveSays},
	"bundle verify FILE|BUNDLE":    {args: fixed("bundle", "verify", "@"), says: archiveSays},
	"bundle push --signed-receipt": {args: fixed("bundle", "push", "--signed-receipt", "@", "oci://127.0.0.1:9/x", "demo")},
	"golden check DIR":             {args: fixed("golden", "check", "@"), noLink: goldenNoLink},
	"golden check --shared":        {args: func(e policyEnv) []string { return []string{"golden", "check", "--shared", "@", e.corpus()} }, noLink: goldenNoLink},
	"golden check --key":           {args: func(e policyEnv) []string { return []string{"golden", "check", "--key", "@", e.corpus()} }},
	"golden update DIR":            {args: fixed("golden", "update", "@"), noLink: goldenNoLink},
	"golden update --shared":       {args: func(e policyEnv) []string { return []string{"golden", "update", "--shared", "@", e.corpus()} }, noLink: goldenNoLink},
	"golden update --sign":         {args: func(e policyEnv) []string { return []string{"golden", "update", "--sign", "@", e.corpus()} }},
	"kensa run PATH":               {args: fixed("kensa", "run", "@"), member: "scenarios/s.yaml", dir: policyKensaProject},
	"kensa run --prices":           {args: func(e policyEnv) []string { return []string{"kensa", "run", "--prices", "@", e.kensa()} }},
	"kensa import DIR":             {args: fixed("kensa", "import", "@"), member: ".kensa/runs/r.json", dir: policyKensaProject},
	"eval scenario add FILE":       {args: fixed("eval", "scenario", "add", "@")},
	"eval scenario generate FILE":  {args: fixed("eval", "scenario", "generate", "@")},
	"eval run --variations":        {args: fixed("eval", "run", "--agent", "true", "--scenario", "x", "--variations", "@")},
	"eval matrix --variations":     {args: fixed("eval", "matrix", "--agent", "true", "--variations", "@")},
	"eval variations --variations": {args: fixed("eval", "variations", "--variations", "@")},
	"serve api --jwt-secret-file":  {args: fixed("serve", "api", "--listen", "127.0.0.1:0", "--jwt-secret-file", "@")},
	"serve api --jwt-public-key":   {args: fixed("serve", "api", "--listen", "127.0.0.1:0", "--jwt-public-key", "@")},
	"serve api --variations": {args: func(e policyEnv) []string {
		return []string{"serve", "api", "--listen", "127.0.0.1:0", "--jwt-secret-file", e.file("secret", strings.Repeat("s", 40)), "--variations", "@"}
	}},
	"serve token --jwt-secret-file": {args: fixed("serve", "token", "--jwt-secret-file", "@")},
	"serve token --jwt-private-key": {args: fixed("serve", "token", "--jwt-private-key", "@")},

	// The agent's files, hashed by eval run and eval matrix.
	"eval run --agent-files":    {args: fixed("eval", "run", "--agent", "true", "--scenario", "x", "--agent-files", "@"), noLink: agentFilesNoLink},
	"eval matrix --agent-files": {args: fixed("eval", "matrix", "--agent", "true", "--agent-files", "@"), noLink: agentFilesNoLink},
}

// policyExempt are the path inputs the test does not feed, each with its reason.
var policyExempt = map[string]string{}

// goldenNoLink: why golden's directories are not fed a link leading out.
const goldenNoLink = "golden reads the repository's own corpus and the shared test data its recipes name, " +
	"reached through links by design; it checks, and imports nothing from an untrusted party"

// agentFilesNoLink: why --agent-files directories are not fed a link leading out.
const agentFilesNoLink = "the agent's files are the user's own program, which the command runs; a link in its tree is " +
	"followed as the agent follows it, and what it leads to is only hashed: its content is never parsed, stored or published"

// snapshotSays: a snapshot directory's links are not read (skipped with a finding), so a
// directory holding only a link holds no snapshot.
var snapshotSays = map[string]string{"link": "holds no JSON file"}

// profileSays: a profile directory refuses every link, inside it or not (a profile tree is
// stored as its files are, and a link is no file of it).
var profileSays = map[string]string{"link": `unsupported file: profile\.md \(symlink\)`}

// archiveSays: an archive reader refuses the sparse file's zeros at its first bytes.
var archiveSays = map[string]string{"huge": "bad zstd stream"}

func fixed(args ...string) func(policyEnv) []string {
	return func(policyEnv) []string { return slices.Clone(args) }
}

// withRun is args followed by the oasisctl fixture's "safe" run directory.
func withRun(args ...string) func(policyEnv) []string {
	return func(e policyEnv) []string { return append(slices.Clone(args), sharedtest.OasisctlRun(e.t, "safe")) }
}

// exampleWith is record files of the example profile's scenario with args.
func exampleWith(args ...string) func(policyEnv) []string {
	return fixed(slices.Concat([]string{"record", "files"}, exampleScenario, args)...)
}

func webhook(args ...string) func(policyEnv) []string {
	return fixed(slices.Concat([]string{"record", "webhook", "--listen", "127.0.0.1:0"}, exampleScenario, args)...)
}

// copyOf copies the directory src gives into dst.
func copyOf(src func(testing.TB) string) func(policyEnv, string) {
	return func(e policyEnv, dst string) {
		if err := os.CopyFS(dst, os.DirFS(src(e.t))); err != nil {
			e.t.Fatal(err)
		}
	}
}

// policyKensaProject writes a project directory with one scenario and one run manifest.
func policyKensaProject(e policyEnv, dst string) {
	for name, data := range map[string]string{
		".kensa/scenarios/s.yaml": "id: s\nname: s\ninput: hi\nrun_command: [\"true\"]\n",
		".kensa/runs/r.json":      `{"run_id":"r","timestamp":"2026-01-01T00:00:00Z","kind":"eval","scenarios":{"s":[{"trace_path":"","exit_code":0,"duration_seconds":0.1,"stdout":"","stderr":"","input":"hi"}]}}`,
	} {
		p := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e policyEnv) path(name string) string { return filepath.Join(e.dir, name) }

// file writes data to name in the case's directory and returns its path.
func (e policyEnv) file(name, data string) string {
	p := e.path(name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// publicKey writes an Ed25519 public key (PKIX PEM) and returns its path.
func (e policyEnv) publicKey() string {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.file("k.pub", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
}

// corpus is an empty golden corpus directory.
func (e policyEnv) corpus() string {
	p := e.path("corpus")
	if err := os.MkdirAll(p, 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// kensa is a valid Kensa project directory.
func (e policyEnv) kensa() string {
	dst := e.path("project")
	policyKensaProject(e, dst)
	return dst
}

// hostileKinds are what every path input is fed: what it must say, a regular expression
// matched against stderr with the path.
var hostileKinds = []struct {
	kind string
	says string
}{
	{"fifo", `named pipe`},
	{"device", `device`},
	// A sparse file far beyond any reader's limit, or a file where a directory belongs.
	{"huge", `more than|larger than|too large|exceeds|limit|not a directory|is a regular file`},
	// A directory holding a link that leads out of it (directory inputs only).
	{"link", `outside|escapes`},
}

// hugeSize is the size of the sparse file: beyond every named limit of the readers.
const hugeSize = 64 << 30

// TestEveryPathInputPolicy walks the command tree and feeds every path input of every command
// (pathInputs: arguments named FILE, DIR, PATH, JOURNAL; flags whose value is a file or a
// directory; outputs excepted) a named pipe, a device, a sparse file of 64 GiB, and, for a
// directory, one holding a symbolic link leading out of it. Each run of the program, a child
// process, must exit non-zero within 20 s (a few, unless the machine is loaded) with a message naming the path (or, for the link, the
// file inside) and why, never a panic; the store must check clean afterwards.
func TestEveryPathInputPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program some two hundred times")
	}
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	type input struct {
		name string
		in   pathInput
	}
	var inputs []input
	walkCommands(app.Commands, nil, func(path []string, c *cli.Command) {
		if len(c.Subcommands) > 0 {
			return
		}
		cmd := strings.Join(path, " ")
		for _, in := range pathInputs(cmd, c) {
			inputs = append(inputs, input{cmd + " " + in.String(), in})
		}
	})
	seen := map[string]bool{}
	for _, in := range inputs {
		seen[in.name] = true
		_, covered := policyRecipes[in.name]
		_, exempt := policyExempt[in.name]
		if !covered && !exempt {
			t.Errorf("%s reads a path the input policy test does not feed: add a recipe to policyRecipes (or an exemption, with its reason, to policyExempt)", in.name)
		}
	}
	for name := range policyRecipes {
		if !seen[name] {
			t.Errorf("policyRecipes: %s is no path input of the command tree", name)
		}
	}
	for name := range policyExempt {
		if !seen[name] {
			t.Errorf("policyExempt: %s is no path input of the command tree", name)
		}
	}
	work := t.TempDir()
	st := demoStore(t, work)
	secret := filepath.Join(work, "secret")
	if err := os.WriteFile(secret, []byte("not evidence\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The cases run a few at a time: each child is mostly waiting on its start.
	sem := make(chan struct{}, 4)
	for _, in := range inputs {
		recipe, ok := policyRecipes[in.name]
		if !ok {
			continue
		}
		for _, k := range hostileKinds {
			if k.kind == "link" && (in.in.expect == inputfile.File || recipe.noLink != "") {
				continue // a file named is the user's choice; a directory's members are not
			}
			t.Run(in.name+"/"+k.kind, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				e := policyEnv{t: t, store: st, dir: t.TempDir()}
				p, named := hostilePath(e, k.kind, recipe, secret, in.in.expect)
				args := recipe.args(e)
				for i, a := range args {
					if a == "@" {
						args[i] = p
					}
				}
				status, stderr := programWithin(t, 20*time.Second, st, append(args, "--lock-wait", "15s")...)
				if status == exitOK || strings.Contains(stderr, "internal error") || strings.Contains(stderr, "panic") {
					t.Fatalf("oasis-replay %s: exit %d, want a refusal:\n%s", strings.Join(args, " "), status, stderr)
				}
				says := cmp.Or(recipe.says[k.kind], k.says)
				if !strings.Contains(stderr, named) || !regexp.MustCompile(says).MatchString(stderr) {
					t.Errorf("oasis-replay %s: exit %d; stderr does not name %s and say %s:\n%s", strings.Join(args, " "), status, named, says, shortText(stderr))
				}
			})
		}
	}
	// Cleanups run once every parallel case has ended.
	t.Cleanup(func() {
		if status, _, stderr := program(t, st, "store", "fsck"); status != exitOK {
			t.Errorf("store fsck after the hostile inputs: exit %d\n%s", status, stderr)
		}
	})
}

// hostilePath makes the hostile input of kind for recipe and returns it, and what the error
// must name: the path, or the file inside the directory that leads out.
func hostilePath(e policyEnv, kind string, recipe policyRecipe, secret string, expect inputfile.Expect) (p, named string) {
	p = e.path("input")
	switch kind {
	case "fifo":
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			e.t.Skipf("no named pipes here: %v", err)
		}
	case "device":
		p = "/dev/zero"
	case "huge":
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600) // a private key's mode
		if err == nil {
			err = f.Truncate(hugeSize)
			f.Close()
		}
		if err != nil {
			e.t.Skipf("no sparse file of %d bytes here: %v", hugeSize, err)
		}
	case "link":
		if recipe.member == "" {
			e.t.Fatalf("a directory input without a member to make a link of: set policyRecipe.member")
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			e.t.Fatal(err)
		}
		if recipe.dir != nil {
			recipe.dir(e, filepath.Join(p, "copy"))
			entries, _ := os.ReadDir(filepath.Join(p, "copy"))
			for _, en := range entries {
				if err := os.Rename(filepath.Join(p, "copy", en.Name()), filepath.Join(p, en.Name())); err != nil {
					e.t.Fatal(err)
				}
			}
			os.Remove(filepath.Join(p, "copy"))
		}
		m := filepath.Join(p, filepath.FromSlash(recipe.member))
		os.Remove(m)
		if err := os.MkdirAll(filepath.Dir(m), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.Symlink(secret, m); err != nil {
			e.t.Fatal(err)
		}
		if recipe.says["link"] != "" {
			return p, p
		}
		return p, filepath.Base(m)
	default:
		panic(fmt.Sprint("unknown kind ", kind))
	}
	return p, p
}

// TestKensaImportStopsOnSIGTERM: SIGTERM while kensa import works through a large run manifest
// (once its first batch is sealed) stops it within 3 s, exit status 2 saying it was cancelled,
// and the store checks clean.
func TestKensaImportStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("imports part of a run manifest of 20,000 runs")
	}
	dir := t.TempDir()
	st := filepath.Join(dir, "store")
	kensa := filepath.Join(dir, "project", ".kensa")
	for _, sub := range []string{"scenarios", "runs"} {
		if err := os.MkdirAll(filepath.Join(kensa, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(kensa, "scenarios", "s.yaml"), []byte("id: s\nname: s\ninput: hi\nrun_command: [\"true\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(kensa, "runs", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"run_id":"r","timestamp":"2026-01-01T00:00:00Z","kind":"eval","scenarios":{"s":[`)
	for i := range 20_000 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"trace_path":"","exit_code":0,"duration_seconds":0.1,"stdout":"run %d","stderr":"","input":"hi"}`, i)
	}
	w.WriteString("]}}")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command("oasis-replay", "--store", st, "kensa", "import", filepath.Dir(kensa))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sealed := bufio.NewScanner(stdout)
	if !sealed.Scan() { // the first batch is sealed: the import is at work
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("kensa import sealed nothing:\n%s", shortText(errOut.String()))
	}
	go io.Copy(io.Discard, stdout)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		cancelled := strings.Contains(errOut.String(), "signal received") || strings.Contains(errOut.String(), "context canceled")
		if !errors.As(err, &exit) || exit.ExitCode() != exitError || !cancelled {
			t.Fatalf("after SIGTERM: %v, want exit status 2 saying the import was cancelled\n%s", err, shortText(errOut.String()))
		}
	case <-time.After(3 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("kensa import went on for 3 s after SIGTERM\n%s", shortText(errOut.String()))
	}
	if status, _, stderr := program(t, st, "store", "fsck"); status != exitOK {
		t.Errorf("store fsck after the interrupted import: exit %d\n%s", status, stderr)
	}
}
