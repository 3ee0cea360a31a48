package main

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/serve"
	// Aliased: package main has a test type named provider.
	providerreplay "github.com/oasis-replay/oasis-replay/serve/provider"
	"github.com/oasis-replay/oasis-replay/store"
)

func serveProviderCommand() *cli.Command {
	return &cli.Command{
		Name:      "provider",
		Usage:     "answer a runner's provider and agent calls from a bundle recorded by record proxy, reaching nothing live",
		ArgsUsage: "BUNDLE",
		Description: "Point the runner at the two listeners, as at record proxy's: every call gets the answer the\n" +
			"bundle recorded for it, status, headers and body byte for byte (credentials as their redaction\n" +
			"markers). A call matches a recorded exchange of the same side, method and target (path and\n" +
			"query) whose request body is equal, byte for byte or as JSON; equal requests recorded several\n" +
			"times are answered in the order they were recorded, then the last again. A call the bundle holds no\n" +
			"answer to gets 404 with a JSON error naming the closest recorded requests (and a line on\n" +
			"stderr); a recorded call that failed upstream, or whose answer was truncated, gets 502 with a\n" +
			"JSON error. The exchanges are loaded into memory (at most --max-memory bytes as stored) and\n" +
			"the store is closed before the listeners open.\n\n" +
			"Exit status: 0 stopped by SIGINT or SIGTERM; 2 bad usage, an unknown bundle, a bundle without\n" +
			"recorded exchanges or larger than --max-memory, an address in use, or any other error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen-provider", Value: "127.0.0.1:18090", Usage: "address the runner's provider calls come to"},
			&cli.StringFlag{Name: "listen-agent", Value: "127.0.0.1:18091", Usage: "address the runner's agent calls come to"},
			&cli.Int64Flag{Name: "max-memory", Value: providerreplay.DefaultMaxMemory, Usage: "the most `BYTES` of recorded exchanges (as stored) loaded"},
		},
		Action: runServeProvider,
	}
}

func runServeProvider(c *cli.Context) error {
	var srv *providerreplay.Server
	err := withBundle(c, readOnly, func(s store.Store, d store.Digest) error {
		var err error
		srv, err = providerreplay.Load(c.Context, s, d, providerreplay.Options{MaxMemory: c.Int64("max-memory"), Log: c.App.ErrWriter})
		return err
	})
	if err != nil {
		return err
	}
	provLn, agentLn, err := listenPair(c.String("listen-provider"), c.String("listen-agent"))
	if err != nil {
		return err
	}
	st := srv.Stats()
	fmt.Fprintf(c.App.ErrWriter, "replaying %s: %d provider and %d agent exchanges\n", srv.Bundle(), st.Exchanges["provider"], st.Exchanges["agent"])
	fmt.Fprintf(c.App.ErrWriter, "replaying: provider calls to http://%s\n", provLn.Addr())
	fmt.Fprintf(c.App.ErrWriter, "replaying: agent calls to http://%s\n", agentLn.Addr())
	err = serveAll(c.Context, map[net.Listener]http.Handler{provLn: srv.ProviderHandler(), agentLn: srv.AgentHandler()})
	st = srv.Stats()
	fmt.Fprintf(c.App.ErrWriter, "stopped: %d calls answered (%d of them again), %d answered 502, %d refused\n",
		st.Answered, st.Repeated, st.Failed, st.Refused)
	return err
}

// serveAll serves every listener until ctx ends or one of them fails, which stops the others.
func serveAll(ctx context.Context, handlers map[net.Listener]http.Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(handlers))
	for l, h := range handlers {
		go func() {
			err := serve.Run(ctx, l, h)
			cancel()
			errs <- err
		}()
	}
	var first error
	for range handlers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
