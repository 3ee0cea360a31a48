package remotetest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Registry is a running docker-registry.
type Registry struct {
	// Host is 127.0.0.1:PORT.
	Host string
	// Root is its storage directory: blobs are under docker/registry/v2/blobs/sha256/.
	Root string
}

// BlobFile is where the registry keeps the content of the blob with the given hex digest.
func (r *Registry) BlobFile(hex string) string {
	return filepath.Join(r.Root, "docker", "registry", "v2", "blobs", "sha256", hex[:2], hex, "data")
}

// StartRegistry starts docker-registry on a free port of 127.0.0.1, with deletes disabled (the
// package's default) and no referrers API (distribution 2.8 has none).
func StartRegistry(t testing.TB) *Registry {
	t.Helper()
	bin := lookPath(t, "docker-registry", "install Debian's docker-registry package (apt-get install docker-registry)")
	dir := t.TempDir()
	host := freeAddr(t)
	r := &Registry{Host: host, Root: filepath.Join(dir, "data")}
	config := fmt.Sprintf("version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n", r.Root, host)
	cfgFile := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgFile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	start(t, exec.Command(bin, "serve", cfgFile), "http://"+host+"/v2/")
	return r
}

// S3 is a running versitygw.
type S3 struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	// Root is the posix backend's directory: bucket B's key K is the file Root/B/K.
	Root string
	// Access and Secret are the root user's keys.
	Access, Secret string
}

// StartS3 starts versitygw with a posix backend on a free port of 127.0.0.1 and creates the
// given buckets (directories of the backend).
func StartS3(t testing.TB, buckets ...string) *S3 {
	t.Helper()
	bin := lookPath(t, "versitygw", "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0")
	s := &S3{Root: filepath.Join(t.TempDir(), "s3"), Access: "oasisreplaytest", Secret: "oasisreplaytestsecret"}
	for _, b := range buckets {
		if err := os.MkdirAll(filepath.Join(s.Root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	host := freeAddr(t)
	s.Endpoint = "http://" + host
	start(t, exec.Command(bin, "--access", s.Access, "--secret", s.Secret, "--port", host, "posix", s.Root), s.Endpoint+"/")
	return s
}

// Env sets the AWS variables that point a client at this server for the rest of the test.
func (s *S3) Env(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
}

// lookPath finds a program in PATH or in Go's bin directory, or skips the test.
func lookPath(t testing.TB, name, install string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("GOPATH"), "bin"), filepath.Join(os.Getenv("HOME"), "go", "bin")} {
		if p := filepath.Join(dir, name); dir != "" && isExecutable(p) {
			return p
		}
	}
	t.Skipf("%s is not installed (%s): skipping the test against a real server", name, install)
	return ""
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs cmd until the test ends and waits until url answers.
func start(t testing.TB, cmd *exec.Cmd, url string) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "server-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(out.Name())
	t.Fatalf("%s did not answer at %s within 15 s:\n%s", cmd.Path, url, log)
}
