package main

import (
	"context"
	"fmt"
	"net"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

func recordProxyCommand() *cli.Command {
	return &cli.Command{
		Name:  "proxy",
		Usage: "record the OASIS wire traffic of a live run between a runner, its provider and its agent",
		Description: "Point the runner at the two listeners instead of the real provider and agent adapter. Every\n" +
			"call is forwarded and its response returned unchanged; every exchange is recorded. The bundle\n" +
			"is sealed on SIGINT or SIGTERM, or when no call has been in flight for --idle, and its digest\n" +
			"is printed before the command exits. A failed upstream call gets 502 and a finding.",
		Flags: append(recordFlags(),
			&cli.StringFlag{Name: "provider", Usage: "base URL of the real environment provider (required)"},
			&cli.StringFlag{Name: "agent", Usage: "base URL of the real agent adapter (required)"},
			&cli.StringFlag{Name: "listen-provider", Value: "127.0.0.1:18090", Usage: "address the runner's provider calls come to"},
			&cli.StringFlag{Name: "listen-agent", Value: "127.0.0.1:18091", Usage: "address the runner's agent calls come to"},
			&cli.DurationFlag{Name: "idle", Value: recorder.DefaultIdle, Usage: "seal after this long without any call"},
			&cli.Int64Flag{Name: "max-body", Usage: "recording limit of one body, in bytes (0: 64 MiB)"},
			&cli.IntFlag{Name: "tier", Usage: "claimed complexity tier (default: the tier of the provision requests)"},
			&cli.StringFlag{Name: "timestamp", Usage: "when the run happened, RFC 3339 (the recorder reads no clock)"},
		),
		Action: func(c *cli.Context) error {
			if err := wantArgs(c, 0); err != nil {
				return err
			}
			if c.String("provider") == "" || c.String("agent") == "" {
				return fmt.Errorf("%w: %s: --provider and --agent are required", errBadUsage, c.Command.FullName())
			}
			return withRecording(c, nil, func(s store.Store, opts recorder.Options) error {
				p, err := recorder.NewProxy(c.Context, s, recorder.ProxyOptions{Options: opts, Provider: c.String("provider"), Agent: c.String("agent"),
					MaxBody: c.Int64("max-body"), Idle: c.Duration("idle"), Tier: c.Int("tier"), Timestamp: c.String("timestamp")})
				if err != nil {
					return err
				}
				provLn, agentLn, err := listenPair(c.String("listen-provider"), c.String("listen-agent"))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.ErrWriter, "recording: provider calls to http://%s go to %s\n", provLn.Addr(), c.String("provider"))
				fmt.Fprintf(c.App.ErrWriter, "recording: agent calls to http://%s go to %s\n", agentLn.Addr(), c.String("agent"))
				res, err := p.Serve(c.Context, provLn, agentLn)
				if err != nil {
					return err
				}
				printRecorded(c, res)
				return nil
			})
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
