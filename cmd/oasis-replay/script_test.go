package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/oasis-replay/oasis-replay/internal/kensaagent"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestMain lets the scripts run the program as a command: "oasis-replay" exits with the
// program's status; "oasis-replay-status" does too, after writing "exit status N" to stderr,
// so a script can check the exact status (`! oasis-replay-status …` then
// `stderr 'exit status 2'`). "eval-agent MODE" is an Eval Library agent for the eval scripts
// and "skill-agent FILE" an agent that sends spans to kensa run's receiver (evalagent_test.go);
// "kensa-agent" is the scripted agent of the kensa run scripts (internal/kensaagent).
//
// With OASIS_REPLAY_TEST_RUN_MAIN=1 the test binary is the program itself, so that the live
// tests can run a recorder as a process of its own (see live_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnvVar) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testscript.Main(m, map[string]func(){
		"oasis-replay": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		// kensa-agent is the scripted agent kensa run scripts run (internal/kensaagent).
		"kensa-agent": func() { os.Exit(kensaagent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"oasis-replay-status": func() {
			args := append([]string{"oasis-replay"}, os.Args[1:]...)
			status := run(args, os.Stdin, os.Stdout, os.Stderr)
			fmt.Fprintf(os.Stderr, "exit status %d\n", status)
			os.Exit(status)
		},
		"hold-store": holdStore,
		"eval-agent": evalTestAgent,
		// skill-agent FILE sends FILE's skill.invoke spans to kensa run's OTLP receiver.
		"skill-agent": skillAgent,
		// span-flood MODE N sends kensa run's OTLP receiver N hostile bodies (spanlimits_test.go).
		"span-flood": spanFlood,
	})
}

// holdStore is the scripts' `hold-store DIR PORT`: it opens the store in DIR for writing,
// then listens on 127.0.0.1:PORT (for waitport) and holds the store until SIGINT or SIGTERM.
func holdStore() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hold-store DIR PORT")
		os.Exit(2)
	}
	s, err := badgerstore.Open(os.Args[1], badgerstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Args[2]))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ln.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// TestScripts runs every testdata/script/*.txtar. Each script gets its own store
// ($OASIS_REPLAY_STORE=$WORK/store) and, when the shared test data exists, $SHARED pointing at
// it; scripts that need it start with `[!shared] skip`. The commands sleep DURATION, freeport
// VAR, waitport PORT and http METHOD URL are added.
func TestScripts(t *testing.T) {
	shared, haveShared := sharedtest.Lookup()
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv(storeEnvVar, filepath.Join(env.WorkDir, "store"))
			env.Setenv(redactKeyEnvVar, "")
			if haveShared {
				env.Setenv("SHARED", shared)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// capture NAME REGEXP sets $NAME to the first submatch of REGEXP in the last stdout,
			// for digests and ids a later command needs.
			"capture": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: capture NAME REGEXP")
				}
				m := regexp.MustCompile(args[1]).FindStringSubmatch(ts.ReadFile("stdout"))
				if len(m) < 2 {
					ts.Fatalf("capture: no match for %s in stdout", args[1])
				}
				ts.Setenv(args[0], m[1])
			},
			// sleep DURATION gives a command started in the background time to install its
			// signal handler before the script signals it.
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: sleep DURATION")
				}
				d, err := time.ParseDuration(args[0])
				ts.Check(err)
				time.Sleep(d)
			},
			// freeport VAR sets $VAR to a TCP port of 127.0.0.1 that was free a moment ago, for a
			// server the script starts and then waits for with waitport.
			"freeport": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: freeport VAR")
				}
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				ts.Check(err)
				port := ln.Addr().(*net.TCPAddr).Port
				ts.Check(ln.Close())
				ts.Setenv(args[0], strconv.Itoa(port))
			},
			// http METHOD URL [TOKEN] sends a request without a body (with TOKEN as its bearer
			// token) and writes the status line's code and the body to stdout, for the servers
			// the scripts start.
			"http": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 || len(args) > 3 {
					ts.Fatalf("usage: http METHOD URL [TOKEN]")
				}
				req, err := http.NewRequest(args[0], args[1], nil)
				ts.Check(err)
				if len(args) == 3 {
					req.Header.Set("Authorization", "Bearer "+args[2])
				}
				resp, err := http.DefaultClient.Do(req)
				ts.Check(err)
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				ts.Check(err)
				fmt.Fprintf(ts.Stdout(), "%d\n%s", resp.StatusCode, body)
			},
			// waitport PORT waits until something accepts connections on 127.0.0.1:PORT: a
			// command started in the background is then past its setup, however slow the machine.
			"waitport": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitport PORT")
				}
				addr := net.JoinHostPort("127.0.0.1", args[0])
				for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
					conn, err := net.DialTimeout("tcp", addr, time.Second)
					if err == nil {
						ts.Check(conn.Close())
						return
					}
					if time.Now().After(deadline) {
						ts.Fatalf("nothing listens on %s: %v", addr, err)
					}
				}
			},
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				return haveShared, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
