package main

import (
	"context"
	"fmt"
	"net"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
)

func recordWebhookCommand() *cli.Command {
	return &cli.Command{
		Name:  "webhook",
		Usage: "record a Kubernetes audit webhook: the apiserver POSTs EventLists into an open recording window",
		Description: "Configure the apiserver's --audit-webhook-config-file to POST to --listen. Each accepted body,\n" +
			"an audit.k8s.io EventList, is stored byte-exact as one audit_log observation of --scenario, in\n" +
			"the order the bodies were accepted; a POST is answered 200 once its body is journaled. Bodies\n" +
			"beyond --max-body get 413, other content types 415, bodies that are not an EventList 400,\n" +
			"bodies that do not arrive in time 408. The bundle's digest is printed before the command\n" +
			"exits.\n\n" + liveHelp + "\n\n" + liveExitStatus,
		Flags: append(append(append(recordFlags(), agentFlags()...),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:18092", Usage: "address to accept POSTs on"},
			&cli.Int64Flag{Name: "max-body", Usage: "largest accepted body, in bytes (0: 32 MiB)"},
		), liveFlags(recorder.DefaultWebhookExchanges)...),
		Action: func(c *cli.Context) error {
			agent, config, err := agentInput(c)
			if err != nil {
				return err
			}
			var w *recorder.Webhook
			var ln net.Listener
			start := func(opts recorder.Options) (liveRecording, error) {
				var err error
				if ln, err = listen(c.String("listen")); err != nil {
					return nil, err
				}
				w, err = recorder.NewWebhook(c.Context, recorder.WebhookOptions{Options: opts, LiveOptions: liveOptions(c),
					Scenario: c.String("scenario"), AgentPrincipal: c.String("agent-principal"), Agent: agent, Configuration: config,
					Tier: c.Int("tier"), Timestamp: c.String("timestamp"), MaxBody: c.Int64("max-body")})
				if err != nil {
					ln.Close()
					return nil, err
				}
				return w, nil
			}
			serve := func(ctx context.Context) error {
				fmt.Fprintf(c.App.ErrWriter, "recording: audit webhook at http://%s\n", ln.Addr())
				return w.Serve(ctx, ln)
			}
			return recordLive(c, start, serve)
		},
	}
}
