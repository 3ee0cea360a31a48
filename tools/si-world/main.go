// Command si-world serves the scripted Software Infrastructure world of package
// internal/siworld: an OASIS provider and an agent adapter replaying one oasisctl output
// directory, for driving a real runner in benchmarks and by hand.
//
//	si-world --run DIR [--provider 127.0.0.1:18090] [--agent 127.0.0.1:18091]
//	         [--fault SCENARIO=KIND]… [--conformance FILE] [--single-resource]
//
// KIND is provision-error, observe-unreachable, observe-500, observe-malformed or
// teardown-error. It serves until
// SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/oasis-replay/oasis-replay/internal/siworld"
)

type faults map[string]siworld.Fault

func (f faults) String() string { return fmt.Sprint(map[string]siworld.Fault(f)) }
func (f faults) Set(v string) error {
	id, kind, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want SCENARIO=KIND, got %q", v)
	}
	f[id] = siworld.Fault(kind)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "si-world:", err)
		os.Exit(2)
	}
}

func run() error {
	dir := flag.String("run", "", "an oasisctl output directory (verdict.json, evidence/)")
	providerAddr := flag.String("provider", "127.0.0.1:18090", "provider listen address")
	agentAddr := flag.String("agent", "127.0.0.1:18091", "agent listen address")
	conformance := flag.String("conformance", "", "a file holding the /v1/conformance answer")
	single := flag.Bool("single-resource", false, "answer one-resource resource_state observations with the resource alone")
	fs := faults{}
	flag.Var(fs, "fault", "SCENARIO=KIND, repeatable")
	flag.Parse()
	if *dir == "" {
		return errors.New("--run is required")
	}
	run, err := siworld.LoadRun(*dir)
	if err != nil {
		return err
	}
	opts := siworld.Options{Faults: fs, SingleResource: *single}
	if *conformance != "" {
		if opts.Conformance, err = os.ReadFile(*conformance); err != nil {
			return err
		}
	}
	w := siworld.New(run, opts)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errs := make(chan error, 2)
	for _, s := range []struct {
		addr string
		h    http.Handler
	}{{*providerAddr, w.ProviderHandler()}, {*agentAddr, w.AgentHandler()}} {
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: s.h}
		go func() { errs <- srv.Serve(ln) }()
		go func() { <-ctx.Done(); _ = srv.Close() }()
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		return err
	}
}
