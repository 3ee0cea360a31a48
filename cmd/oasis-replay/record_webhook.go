package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

func recordWebhookCommand() *cli.Command {
	return &cli.Command{
		Name:  "webhook",
		Usage: "record a Kubernetes audit webhook: the apiserver POSTs EventLists into an open recording window",
		Description: "Configure the apiserver's --audit-webhook-config-file to POST to --listen. Each accepted body,\n" +
			"an audit.k8s.io EventList, is stored byte-exact as one audit_log observation of --scenario, in\n" +
			"the order the bodies arrived. Bodies beyond --max-body get 413, other content types 415,\n" +
			"bodies that are not an EventList 400. The bundle is sealed on SIGINT or SIGTERM, or after\n" +
			"--idle without a POST, and its digest is printed before the command exits.",
		Flags: append(append(recordFlags(), agentFlags()...),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:18092", Usage: "address to accept POSTs on"},
			&cli.DurationFlag{Name: "idle", Value: recorder.DefaultIdle, Usage: "seal after this long without a POST"},
			&cli.Int64Flag{Name: "max-body", Usage: "largest accepted body, in bytes (0: 32 MiB)"},
		),
		Action: func(c *cli.Context) error {
			if err := wantArgs(c, 0); err != nil {
				return err
			}
			agent, config, err := agentInput(c)
			if err != nil {
				return err
			}
			return withRecording(c, nil, func(s store.Store, opts recorder.Options) error {
				w, err := recorder.NewWebhook(c.Context, s, recorder.WebhookOptions{Options: opts, Scenario: c.String("scenario"),
					AgentPrincipal: c.String("agent-principal"), Agent: agent, Configuration: config, Tier: c.Int("tier"),
					Timestamp: c.String("timestamp"), MaxBody: c.Int64("max-body"), Idle: c.Duration("idle")})
				if err != nil {
					return err
				}
				ln, err := listen(c.String("listen"))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.ErrWriter, "recording: audit webhook at http://%s\n", ln.Addr())
				res, err := w.Serve(c.Context, ln)
				if err != nil {
					return err
				}
				printRecorded(c, res)
				return nil
			})
		},
	}
}
