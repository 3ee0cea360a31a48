package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/replay/outcome"
	"github.com/oasis-replay/oasis-replay/store"
)

// redactKeyEnvVar holds the redaction key itself (not a file name).
const redactKeyEnvVar = "OASIS_REPLAY_REDACT_KEY"

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "record evaluation evidence into a sealed bundle (oasisctl output, live proxy, loose files, audit webhook), recover live recordings",
		Description: "Every record command pins the run to a profile: --profile DIR (imported along the way) or\n" +
			"--profile-digest of an imported one (see profile ls). It prints the bundle digest on stdout\n" +
			"and what it noticed (findings) on stderr. Input that cannot be recorded leaves the store as\n" +
			"it was.\n\n" +
			"Redaction: --redact VALUE and --redact-file FILE (one value per line) replace every occurrence\n" +
			"of each value, in every recorded byte, by [REDACTED:hmac-sha256:<16 hex>] made with the key of\n" +
			"--redact-key-file FILE or $" + redactKeyEnvVar + " (at least 16 bytes); they need a key.\n" +
			"Credentials found in the input (a run configuration's token, the secrets of the credentials a\n" +
			"provider mints, Authorization headers) are always redacted, with the key if there is one, else\n" +
			"by [REDACTED]; identifiers (namespaces, principals, user names, servers) never are. The seal\n" +
			"checks that redaction changes no verdict: the evidence unredacted is evaluated in memory, and a\n" +
			"difference is a redaction-changes-verdict finding (the bundle is sealed; exit status 1).\n\n" +
			groupExitStatus,
		Subcommands: []*cli.Command{
			recordOasisctlCommand(),
			recordProxyCommand(),
			recordFilesCommand(),
			recordWebhookCommand(),
			recordRecoverCommand(),
		},
	}
}

// recordFlags are the flags every record command takes.
func recordFlags() []cli.Flag {
	return append(append([]cli.Flag{
		&cli.StringFlag{Name: "profile", Usage: "profile directory to pin the run to (imported into the store)"},
		&cli.StringFlag{Name: "profile-commit", Usage: "source commit of the --profile directory, recorded in the pin"},
		&cli.StringFlag{Name: "profile-digest", Usage: "imported profile tree to pin the run to: digest, unique prefix or id@version"},
	}, redactFlags()...),
		&cli.StringSliceFlag{Name: "tag", Usage: "tag the sealed bundle (repeatable)"},
	)
}

// redactFlags are the flags of the redaction (see recordRedactor).
func redactFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "redact", Usage: "value to redact from everything recorded (repeatable)"},
		&cli.StringFlag{Name: "redact-file", Usage: "file of values to redact, one per line"},
		&cli.StringFlag{Name: "redact-key-file", Usage: "file holding the redaction key (default: $" + redactKeyEnvVar + ")"},
	}
}

// agentFlags describe the agent for sources that do not report it (files, webhook).
func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "scenario", Usage: "`ID` of the scenario the evidence is for (required)"},
		&cli.StringFlag{Name: "agent-principal", Usage: "audit-log user the agent acted as"},
		&cli.StringFlag{Name: "agent", Usage: "agent name"},
		&cli.StringFlag{Name: "agent-version", Usage: "agent version"},
		&cli.StringSliceFlag{Name: "config", Usage: "agent configuration dimension=value (repeatable)"},
		&cli.IntFlag{Name: "tier", Usage: "claimed complexity tier (default: the scenario's tier)"},
		&cli.StringFlag{Name: "timestamp", Usage: "when the run happened, RFC 3339 (the recorder reads no clock)"},
	}
}

// withRecording checks the inputs (those of every record command, then the command's own),
// opens the store for writing and resolves the options every record command shares (the
// pinned profile, tags, redaction) before handing both to record. Interrupting the command
// (SIGINT, SIGTERM) cancels c.Context, which is how the live recorders know to seal.
func withRecording(c *cli.Context, inputs []input, record func(s store.Store, opts recorder.Options) error) error {
	if err := checkInputs(recordInputs(c, inputs...)...); err != nil {
		return err
	}
	return withStore(c, readWrite, func(s store.Store) error {
		opts, err := recordOptions(c, s)
		if err != nil {
			return err
		}
		return record(s, opts)
	})
}

// recordInputs are the inputs of every record command (--profile, the redaction files), then
// the command's own.
func recordInputs(c *cli.Context, inputs ...input) []input {
	return append([]input{flagInput(c, "profile", inputfile.Dir), flagInput(c, "redact-file", inputfile.File),
		flagInput(c, "redact-key-file", inputfile.File)}, inputs...)
}

// recordOptions builds the options every source takes: the pinned profile and the redactor.
func recordOptions(c *cli.Context, s store.Store) (recorder.Options, error) {
	opts := recorder.Options{Tags: c.StringSlice("tag"), Version: version(), Verdicts: outcome.Evaluator{}}
	dir, digest := c.String("profile"), c.String("profile-digest")
	switch {
	case dir == "" && digest == "":
		return opts, usageErrorf(c, "no profile: give --profile DIR or --profile-digest DIGEST")
	case dir != "" && digest != "":
		return opts, usageErrorf(c, "give --profile or --profile-digest, not both")
	case digest != "" && c.String("profile-commit") != "":
		return opts, usageErrorf(c, "--profile-commit goes with --profile")
	case dir != "":
		p, err := recorder.ProfileFromDir(dir, c.String("profile-commit"))
		if err != nil {
			return opts, err
		}
		opts.Profile = p
	default:
		tree, err := recorder.ResolveProfile(c.Context, s, digest)
		if err != nil {
			return opts, err
		}
		if opts.Profile, err = recorder.ProfileFromStore(c.Context, s, tree); err != nil {
			return opts, err
		}
	}
	red, err := recordRedactor(c)
	if err != nil {
		return opts, err
	}
	opts.Redactor = red
	return opts, nil
}

// recordRedactor builds the redactor from --redact, --redact-file and the key.
func recordRedactor(c *cli.Context) (*redact.Redactor, error) {
	values := c.StringSlice("redact")
	if path := c.String("redact-file"); path != "" {
		more, err := redact.LoadValues(path)
		if err != nil {
			return nil, err
		}
		values = append(values, more...)
	}
	var key []byte
	var err error
	switch {
	case c.String("redact-key-file") != "":
		key, err = redact.LoadKey(c.String("redact-key-file"))
	case os.Getenv(redactKeyEnvVar) != "":
		key, err = redact.ParseKey([]byte(os.Getenv(redactKeyEnvVar)))
		if err != nil {
			err = fmt.Errorf("$%s: %w", redactKeyEnvVar, err)
		}
	case len(values) > 0:
		return nil, usageErrorf(c, "redacting values needs a key, so that a marker can be traced to its secret: "+
			"give --redact-key-file FILE or set $%s", redactKeyEnvVar)
	}
	if err != nil {
		return nil, err
	}
	return redact.New(key, values)
}

// agentInput reads the agent flags.
func agentInput(c *cli.Context) (store.AgentIdentity, map[string]string, error) {
	agent := store.AgentIdentity{Name: c.String("agent"), Version: c.String("agent-version")}
	var config map[string]string
	for _, kv := range c.StringSlice("config") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return agent, nil, usageErrorf(c, "--config %q is not dimension=value", kv)
		}
		if config == nil {
			config = map[string]string{}
		}
		config[k] = v
	}
	if c.String("scenario") == "" {
		return agent, nil, usageErrorf(c, "--scenario is required")
	}
	return agent, config, nil
}

// printRecorded prints the bundle digest on stdout, and on stderr a summary and every finding
// that is not informational. A bundle whose redaction changes its verdict is sealed all the
// same, and the command exits 1 (exitMismatch): the evidence as recorded does not say what
// the run said.
func printRecorded(c *cli.Context, res *recorder.Result) error {
	fmt.Fprintln(c.App.Writer, res.Bundle)
	printRecordSummary(c.App.ErrWriter, res)
	if redactionChangesVerdict(res.Manifest) {
		return reported{status: exitMismatch}
	}
	return nil
}

// redactionChangesVerdict reports whether the seal found that redaction changes the verdict.
func redactionChangesVerdict(m *store.RunManifest) bool {
	return slices.ContainsFunc(m.Findings, func(f store.Finding) bool { return f.Code == recorder.CodeRedactionChangesVerdict })
}

func printRecordSummary(w io.Writer, res *recorder.Result) {
	m := res.Manifest
	missing := 0
	for _, s := range m.Scenarios {
		if s.Evidence == nil {
			missing++
		}
	}
	counts := map[string]int{}
	for _, f := range m.Findings {
		counts[f.Severity]++
	}
	fmt.Fprintf(w, "sealed %s: %d scenarios (%d without evidence), %d findings (%d errors, %d warnings)\n",
		res.Bundle.Short(), len(m.Scenarios), missing, len(m.Findings), counts[store.SeverityError], counts[store.SeverityWarning])
	for _, f := range m.Findings {
		if f.Severity != store.SeverityInfo {
			fmt.Fprintf(w, "  %s\n", formatFinding(f))
		}
	}
}
