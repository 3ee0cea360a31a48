package badgerstore

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// generatedLog returns size bytes (whole lines) of the generated audit log of seed. Logs of one
// seed are prefixes of each other, like an audit log recorded twice as it grows.
func generatedLog(t testing.TB, seed, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := auditgen.Write(&b, seed, size); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The test binary doubles as the child process of the multi-process tests: when childEnv names
// a role, TestMain plays it instead of running tests.
const childEnv = "BADGERSTORE_TEST_CHILD"

// Child roles.
const (
	roleHoldLock  = "hold-lock"  // open the store, say so, then wait to be killed
	roleWriter    = "writer"     // write and seal bundles until killed (crash_test.go)
	roleOpenClose = "open-close" // open and close the store until killed (faults_test.go)
)

func TestMain(m *testing.M) {
	switch role := os.Getenv(childEnv); role {
	case "":
		os.Exit(m.Run())
	case roleHoldLock:
		holdLock(os.Getenv("BADGERSTORE_TEST_DIR"))
	case roleWriter:
		writeUntilKilled(os.Getenv("BADGERSTORE_TEST_DIR"), os.Getenv("BADGERSTORE_TEST_SEED"))
	case roleOpenClose:
		openCloseUntilKilled(os.Getenv("BADGERSTORE_TEST_DIR"))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s role %q\n", childEnv, role)
		os.Exit(2)
	}
}

// childCommand runs this test binary in the given role.
func childCommand(role, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, "BADGERSTORE_TEST_DIR="+dir)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return cmd
}

func holdLock(dir string) {
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Println("open")
	select {} // until killed
}
