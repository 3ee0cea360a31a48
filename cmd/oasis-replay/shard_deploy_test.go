package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/internal/shard"
	"github.com/oasis-replay/oasis-replay/remote/remotetest"
)

// The Kubernetes objects of deploy/, as far as the tests read them.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sPodSpec struct {
	RestartPolicy   string `yaml:"restartPolicy"`
	SecurityContext struct {
		RunAsNonRoot *bool  `yaml:"runAsNonRoot"`
		RunAsUser    *int64 `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	InitContainers []k8sContainer `yaml:"initContainers"`
	Containers     []k8sContainer `yaml:"containers"`
	Volumes        []struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
			Items      []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
	} `yaml:"volumes"`
}

type k8sContainer struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
	} `yaml:"securityContext"`
	VolumeMounts []k8sMount `yaml:"volumeMounts"`
}

type k8sMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}

func (c *k8sContainer) env(name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// deployImage is the image the manifests run: this version of the program.
const deployImage = "ghcr.io/oasis-replay/oasis-replay:" + programVersion

// deployRemote is the registry remote the manifests name, which the local test replaces.
const deployRemote = "oci://registry.example.com/evidence/"

// readDeploy reads the objects of a manifest under deploy/.
func readDeploy(t *testing.T, file string) []k8sObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", file))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []k8sObject
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("deploy/%s: %v", file, err)
		}
		out = append(out, o)
	}
}

// deployJob returns the one Job of a manifest.
func deployJob(t *testing.T, file string) k8sObject {
	t.Helper()
	for _, o := range readDeploy(t, file) {
		if o.Kind == "Job" {
			return o
		}
	}
	t.Fatalf("deploy/%s holds no Job", file)
	return k8sObject{}
}

// parseCommand parses args as the program does and returns the context the command's action
// gets, without running it (the command exists, its flags and arguments are its own), and the
// command's name ("eval matrix").
func parseCommand(t *testing.T, args []string) (*cli.Context, string) {
	t.Helper()
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	cmds := app.Commands
	var leaf *cli.Command
	var path []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		i := slices.IndexFunc(cmds, func(c *cli.Command) bool { return c.Name == a })
		if i < 0 {
			break
		}
		leaf, cmds = cmds[i], cmds[i].Subcommands
		path = append(path, a)
	}
	if leaf == nil || len(leaf.Subcommands) > 0 {
		t.Fatalf("%q: not a command of the program", args)
	}
	var got *cli.Context
	leaf.Action = func(c *cli.Context) error {
		got = c
		return checkArgs(c)
	}
	if err := app.RunContext(context.Background(), flagsFirst(app, append([]string{"oasis-replay"}, args...))); err != nil || got == nil {
		t.Fatalf("%q: %v", args, err)
	}
	return got, strings.Join(path, " ")
}

// TestDeployManifests: the Jobs of deploy/ are Indexed Jobs of as many completions as the
// --shards their command takes, or single merge Jobs; they run this version's image as a
// non-root user with the registry's credentials mounted where DOCKER_CONFIG says; their
// arguments are commands of the program; and the Dockerfile builds a static binary on a
// minimal base and runs it as a non-root user.
func TestDeployManifests(t *testing.T) {
	t.Setenv(shard.IndexEnv, "0")
	commands := map[string]bool{}
	for _, file := range []string{"kensa-replay-job.yaml", "kensa-stats-job.yaml", "eval-matrix-job.yaml", "eval-merge-job.yaml"} {
		job := deployJob(t, file)
		pod := job.Spec.Template.Spec
		if job.APIVersion != "batch/v1" || pod.RestartPolicy != "Never" {
			t.Errorf("%s: apiVersion %q, restartPolicy %q", file, job.APIVersion, pod.RestartPolicy)
		}
		if sc := pod.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("%s: the pod does not run as a non-root user", file)
		}
		for _, ct := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
			where := file + ": container " + ct.Name
			if ct.Image != deployImage {
				t.Errorf("%s: image %q, want %q", where, ct.Image, deployImage)
			}
			if p := ct.SecurityContext.AllowPrivilegeEscalation; p == nil || *p {
				t.Errorf("%s: privilege escalation is not ruled out", where)
			}
			c, name := parseCommand(t, ct.Args)
			commands[name] = true
			sh, err := shardFlags(c)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			switch {
			case c.IsSet("shards"):
				if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions == nil || *job.Spec.Completions != sh.Count {
					t.Errorf("%s: --shards %d in a Job of completionMode %q and completions %v", where, sh.Count, job.Spec.CompletionMode, job.Spec.Completions)
				}
				if job.Spec.Parallelism == nil || *job.Spec.Parallelism > sh.Count {
					t.Errorf("%s: parallelism %v above %d completions", where, job.Spec.Parallelism, sh.Count)
				}
			case job.Spec.CompletionMode == "Indexed" && !slices.ContainsFunc(pod.InitContainers, func(i k8sContainer) bool { return i.Name == ct.Name }):
				t.Errorf("%s: an Indexed Job whose command is not sharded", where)
			}
			for _, f := range []string{"push", "from"} {
				if r := c.String(f); r != "" && !strings.HasPrefix(r, deployRemote) {
					t.Errorf("%s: --%s %s is not the registry remote", where, f, r)
				}
			}
			if c.String("push") != "" || c.String("from") != "" {
				checkDockerConfig(t, where, pod, ct)
			}
		}
	}
	for _, want := range []string{"kensa replay", "kensa stats", "eval matrix", "eval scenario add"} {
		if !commands[want] {
			t.Errorf("no Job runs %s (the Jobs run %v)", want, commands)
		}
	}
	checkDockerfile(t)
}

// checkDockerConfig: DOCKER_CONFIG names a directory where the registry secret's
// .dockerconfigjson is mounted as config.json.
func checkDockerConfig(t *testing.T, where string, pod k8sPodSpec, ct k8sContainer) {
	dir := ct.env("DOCKER_CONFIG")
	i := slices.IndexFunc(ct.VolumeMounts, func(m k8sMount) bool { return m.MountPath == dir })
	if dir == "" || i < 0 {
		t.Errorf("%s: DOCKER_CONFIG %q is not a mounted volume", where, dir)
		return
	}
	for _, v := range pod.Volumes {
		if v.Name == ct.VolumeMounts[i].Name {
			if v.Secret == nil || len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != ".dockerconfigjson" || v.Secret.Items[0].Path != "config.json" {
				t.Errorf("%s: volume %s is not a docker config secret mounted as config.json", where, v.Name)
			}
			return
		}
	}
	t.Errorf("%s: no volume %s", where, ct.VolumeMounts[i].Name)
}

// checkDockerfile checks the Dockerfile's key lines.
func checkDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^FROM golang:\S+ AS build$`,
		`(?m)^RUN CGO_ENABLED=0 .*go build .*-o /out/oasis-replay \./cmd/oasis-replay$`,
		`(?m)^FROM gcr\.io/distroless/static\S*:nonroot$`,
		`(?m)^COPY --from=build /out/oasis-replay /usr/local/bin/oasis-replay$`,
		`(?m)^USER 65532:65532$`,
		`(?m)^ENTRYPOINT \["/usr/local/bin/oasis-replay"\]$`,
	} {
		if !regexp.MustCompile(want).Match(b) {
			t.Errorf("deploy/Dockerfile has no line matching %s", want)
		}
	}
	if regexp.MustCompile(`(?m)^USER (0|root)\b`).Match(b) {
		t.Error("deploy/Dockerfile runs as root")
	}
}

// localPod is one pod of a Job run as a local process of the built binary.
type localPod struct {
	bin, store string
	env        []string
}

// run runs the pod's containers in order, as Kubernetes does (init containers first), and
// returns the last one's exit status, stdout and stderr.
func (p localPod) run(t *testing.T, args ...[]string) (int, string, string) {
	t.Helper()
	var status int
	var stdout, stderr bytes.Buffer
	for _, a := range args {
		stdout.Reset()
		stderr.Reset()
		cmd := exec.Command(p.bin, a...)
		cmd.Env = append(append(os.Environ(), "OASIS_REPLAY_STORE="+p.store), p.env...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			status = exit.ExitCode()
		case err != nil:
			t.Fatal(err)
		default:
			status = 0
		}
	}
	return status, stdout.String(), stderr.String()
}

// localArgs are a container's arguments for a local run: the registry remote replaced by
// the local registry's URL (talked to over plain HTTP), and the replacements given.
func localArgs(ct k8sContainer, registry string, replace map[string]string) []string {
	out := make([]string, 0, len(ct.Args)+1)
	remote := false
	for _, a := range ct.Args {
		if r, ok := replace[a]; ok {
			a = r
		}
		if strings.HasPrefix(a, deployRemote) {
			a = "oci://" + registry + "/evidence/" + strings.TrimPrefix(a, deployRemote)
			remote = true
		}
		out = append(out, a)
	}
	if remote {
		out = append(out, "--plain-http")
	}
	return out
}

// TestIndexedJobLocally runs the Jobs of deploy/ as a Kubernetes Indexed Job would, as far as
// this machine allows: the binary built as the Dockerfile builds it (static), one process per
// completion index with JOB_COMPLETION_INDEX = 0…N-1 and an empty store each, all at once,
// against a real registry (Debian's docker-registry), then the merge Job; its output is the
// unsharded run's, byte for byte (kensa), or but for the digests of runs made anew (eval).
func TestIndexedJobLocally(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "oasis-replay")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if f, err := elf.Open(bin); err == nil {
		libs, _ := f.ImportedLibraries()
		interp := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
		f.Close()
		if interp || len(libs) > 0 {
			t.Errorf("the binary built with CGO_ENABLED=0 is not static: interpreter %v, libraries %v", interp, libs)
		}
	}
	env := []string{"DOCKER_CONFIG=" + filepath.Join(tmp, "docker"), "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config")}
	pods := func(name string, n int) []localPod {
		out := make([]localPod, n)
		for i := range out {
			out[i] = localPod{bin: bin, store: filepath.Join(tmp, fmt.Sprintf("%s-%d", name, i)), env: append(slices.Clone(env), shard.IndexEnv+"="+strconv.Itoa(i))}
		}
		return out
	}
	all := func(ps []localPod, args ...[]string) []string {
		outs := make([]string, len(ps))
		var wg sync.WaitGroup
		for i, p := range ps {
			wg.Go(func() {
				status, stdout, stderr := p.run(t, args...)
				if status != exitOK {
					t.Errorf("pod %d: %q: exit %d\n%s", i, args[len(args)-1], status, stderr)
				}
				outs[i] = stdout
			})
		}
		wg.Wait()
		return outs
	}

	t.Run("kensa", func(t *testing.T) {
		recorded := filepath.Join(tmp, "recorded")
		mustRun(t, "--store", recorded, "kensa", "import", filepath.Join("..", "..", "recorder", "kensa", "testdata", "twoways"))
		mustRun(t, "--store", recorded, "bundle", "push", "oci://"+reg.Host+"/evidence/kensa", "--all", "--plain-http")
		job := deployJob(t, "kensa-replay-job.yaml")
		replayArgs := localArgs(job.Spec.Template.Spec.Containers[0], reg.Host, nil)
		byBundle := map[string]json.RawMessage{}
		for _, out := range all(pods("replay", *job.Spec.Completions), replayArgs) {
			var part struct{ Runs []json.RawMessage }
			if err := json.Unmarshal([]byte(out), &part); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, r := range part.Runs {
				var id struct{ Bundle string }
				json.Unmarshal(r, &id)
				byBundle[id.Bundle] = r
			}
		}
		var whole struct{ Runs []json.RawMessage }
		json.Unmarshal([]byte(mustRun(t, "--store", recorded, "kensa", "replay", "--no-store", "--json")), &whole)
		if len(byBundle) != len(whole.Runs) {
			t.Errorf("the pods replayed %d runs, the store holds %d", len(byBundle), len(whole.Runs))
		}
		for _, r := range whole.Runs {
			var id struct{ Bundle string }
			json.Unmarshal(r, &id)
			if !bytes.Equal(byBundle[id.Bundle], r) {
				t.Errorf("run %s: a pod gave %s, want %s", id.Bundle, byBundle[id.Bundle], r)
			}
		}
		// A pod retried pushes nothing new.
		if _, _, stderr := pods("retry", 1)[0].run(t, replayArgs); !pushedNothing(stderr) {
			t.Errorf("pod 0 retried uploaded something: %s", stderr)
		}
		merge := deployJob(t, "kensa-stats-job.yaml")
		status, got, stderr := pods("stats", 1)[0].run(t, localArgs(merge.Spec.Template.Spec.Containers[0], reg.Host, nil))
		if want := mustRun(t, "--store", recorded, "kensa", "stats", "--json"); status != exitOK || got != want {
			t.Errorf("the merge Job: exit %d, output differs from the unsharded kensa stats:\n%s%s\nwant\n%s", status, got, stderr, want)
		}
	})

	t.Run("eval", func(t *testing.T) {
		objs := readDeploy(t, "eval-matrix-job.yaml")
		scenario := filepath.Join(tmp, "deploy.json")
		if err := os.WriteFile(scenario, []byte(objs[0].Data["deploy.json"]), 0o644); err != nil {
			t.Fatal(err)
		}
		replace := map[string]string{"/etc/oasis-replay/scenarios/deploy.json": scenario,
			"http://eval-agent.default.svc.cluster.local:8080/": "eval-agent pressure", "5": "2"}
		job := deployJob(t, "eval-matrix-job.yaml")
		add := localArgs(job.Spec.Template.Spec.InitContainers[0], reg.Host, replace)
		matrix := localArgs(job.Spec.Template.Spec.Containers[0], reg.Host, replace)
		all(pods("matrix", *job.Spec.Completions), add, matrix)

		merge := deployJob(t, "eval-merge-job.yaml")
		status, got, stderr := pods("merge", 1)[0].run(t, add, localArgs(merge.Spec.Template.Spec.Containers[0], reg.Host, replace))
		if status != exitOK && status != exitMismatch {
			t.Fatalf("the merge Job: exit %d\n%s", status, stderr)
		}
		// The unsharded matrix, on one store: the same cells, its runs made anew.
		unsharded := removeFlagValues(matrix, "--shards", "--from", "--push", "--plain-http")
		_, want, _ := pods("unsharded", 1)[0].run(t, add, append(unsharded, "--json"))
		digest := regexp.MustCompile(`sha256:[0-9a-f]{64}`)
		if digest.ReplaceAllString(got, "D") != digest.ReplaceAllString(want, "D") || !strings.Contains(got, `"cells"`) {
			t.Errorf("the merged matrix differs from the unsharded one beyond its digests:\n%s\nwant\n%s", got, want)
		}
		report := mustRun(t, "--store", filepath.Join(tmp, "report"), "eval", "report", "--from", "oci://"+reg.Host+"/evidence/matrix", "--plain-http", "--json")
		if report != got {
			t.Errorf("eval report --from differs from the merge Job's report:\n%s\nwant\n%s", report, got)
		}
	})
}

// removeFlagValues removes the flags named from args, with their values (--plain-http has none).
func removeFlagValues(args []string, flags ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if slices.Contains(flags, args[i]) {
			if args[i] != "--plain-http" {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}
