package main

import (
	"context"
	"fmt"
	"net"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
)

func recordProxyCommand() *cli.Command {
	return &cli.Command{
		Name:  "proxy",
		Usage: "record the OASIS wire traffic of a live run between a runner, its provider and its agent",
		Description: "Point the runner at the two listeners instead of the real provider and agent adapter. Every\n" +
			"call is forwarded and its response returned unchanged; every exchange is recorded (bodies up\n" +
			"to --max-body; answers up to --max-read are read when sealing). A failed upstream call gets\n" +
			"502 and a finding. The bundle's digest is printed before the command exits.\n\n" + liveHelp +
			"\n\n" + liveExitStatus,
		Flags: append(append(recordFlags(),
			&cli.StringFlag{Name: "provider", Usage: "base `URL` of the real environment provider (required)"},
			&cli.StringFlag{Name: "agent", Usage: "base `URL` of the real agent adapter (required)"},
			&cli.StringFlag{Name: "listen-provider", Value: "127.0.0.1:18090", Usage: "address the runner's provider calls come to"},
			&cli.StringFlag{Name: "listen-agent", Value: "127.0.0.1:18091", Usage: "address the runner's agent calls come to"},
			&cli.Int64Flag{Name: "max-body", Usage: "recording limit of one body, in bytes (0: 64 MiB)"},
			&cli.Int64Flag{Name: "max-read", Usage: "largest answer read when sealing, in bytes (0: 4 MiB); larger ones are kept, not read"},
			&cli.IntFlag{Name: "tier", Usage: "claimed complexity tier (default: the tier of the provision requests)"},
			&cli.StringFlag{Name: "timestamp", Usage: "when the run happened, RFC 3339 (the recorder reads no clock)"},
		), liveFlags(recorder.DefaultMaxExchanges)...),
		Action: func(c *cli.Context) error {
			if c.String("provider") == "" || c.String("agent") == "" {
				return usageErrorf(c, "--provider and --agent are required")
			}
			var p *recorder.Proxy
			var provLn, agentLn net.Listener
			start := func(opts recorder.Options) (liveRecording, error) {
				var err error
				if provLn, agentLn, err = listenPair(c.String("listen-provider"), c.String("listen-agent")); err != nil {
					return nil, err
				}
				p, err = recorder.NewProxy(c.Context, recorder.ProxyOptions{Options: opts, LiveOptions: liveOptions(c),
					Provider: c.String("provider"), Agent: c.String("agent"), MaxBody: c.Int64("max-body"), MaxRead: c.Int64("max-read"),
					Tier: c.Int("tier"), Timestamp: c.String("timestamp")})
				if err != nil {
					provLn.Close()
					agentLn.Close()
					return nil, err
				}
				return p, nil
			}
			serve := func(ctx context.Context) error {
				fmt.Fprintf(c.App.ErrWriter, "recording: provider calls to http://%s go to %s\n", provLn.Addr(), c.String("provider"))
				fmt.Fprintf(c.App.ErrWriter, "recording: agent calls to http://%s go to %s\n", agentLn.Addr(), c.String("agent"))
				return p.Serve(ctx, provLn, agentLn)
			}
			return recordLive(c, start, serve)
		},
	}
}

// listenPair opens both listeners, or neither.
func listenPair(a, b string) (net.Listener, net.Listener, error) {
	first, err := listen(a)
	if err != nil {
		return nil, nil, err
	}
	second, err := listen(b)
	if err != nil {
		first.Close()
		return nil, nil, err
	}
	return first, second, nil
}

func listen(addr string) (net.Listener, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
