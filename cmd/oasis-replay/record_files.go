package main

import (
	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

func recordFilesCommand() *cli.Command {
	return &cli.Command{
		Name:  "files",
		Usage: "record one scenario from loose files: audit log, state snapshots, agent transcript",
		Description: "--audit-log is a Kubernetes audit log: audit.k8s.io Event JSON lines (log backend) or an\n" +
			"EventList (webhook backend), detected from its first bytes and streamed in bounded memory.\n" +
			"--before and --after are `kubectl get -o json` output (a List or one object), or a directory\n" +
			"of such files (a cluster dump: one observation per file, bare arrays of objects taking their\n" +
			"kind from the file name). --transcript is the agent's JSON transcript (final_answer, reasoning,\n" +
			"actions[{tool, arguments, result}]). Every file is checked before anything is written; an error\n" +
			"names the file and line.\n\n" + recordExitStatus,
		Flags: append(append(recordFlags(), agentFlags()...),
			&cli.StringFlag{Name: "audit-log", Usage: "Kubernetes audit log file"},
			&cli.StringFlag{Name: "before", Usage: "state snapshot before the run: file or directory"},
			&cli.StringFlag{Name: "after", Usage: "state snapshot after the run: file or directory"},
			&cli.StringFlag{Name: "transcript", Usage: "agent transcript, a JSON `FILE`"},
		),
		Action: func(c *cli.Context) error {
			agent, config, err := agentInput(c)
			if err != nil {
				return err
			}
			return withRecording(c, []input{flagInput(c, "audit-log", inputfile.File), flagInput(c, "before", inputfile.FileOrDir),
				flagInput(c, "after", inputfile.FileOrDir), flagInput(c, "transcript", inputfile.File)}, func(s store.Store, opts recorder.Options) error {
				res, err := recorder.RecordFiles(c.Context, s, recorder.FilesInput{
					Scenario: c.String("scenario"), AuditLog: c.String("audit-log"), Before: c.String("before"), After: c.String("after"),
					Transcript: c.String("transcript"), AgentPrincipal: c.String("agent-principal"), Agent: agent, Configuration: config,
					Tier: c.Int("tier"), Timestamp: c.String("timestamp"),
				}, opts)
				if err != nil {
					return err
				}
				return printRecorded(c, res)
			})
		},
	}
}
