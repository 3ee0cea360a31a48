package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/journal"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/replay/outcome"
	"github.com/oasis-replay/oasis-replay/store"
)

// Statuses of a journal in record recover's report.
const (
	recoverSealed    = "sealed"    // sealed into a bundle, journal removed
	recoverRecording = "recording" // a live recorder still writes it: left alone
	recoverFailed    = "failed"    // could not be sealed: kept, with the error
)

// recoveredJournal is one journal in record recover's report (--json: {"journals": [...]}).
type recoveredJournal struct {
	Journal    string                `json:"journal"`
	Status     string                `json:"status"`
	Bundle     string                `json:"bundle,omitempty"`
	Exchanges  int                   `json:"exchanges,omitempty"`
	Incomplete []recorder.Incomplete `json:"incomplete,omitempty"`
	CutBytes   int64                 `json:"cut_bytes,omitempty"`
	Error      string                `json:"error,omitempty"`
	// RedactionChangesVerdict are the messages of the bundle's redaction-changes-verdict
	// findings: it was sealed, and its verdict as redacted is not the evidence's.
	RedactionChangesVerdict []string `json:"redaction_changes_verdict,omitempty"`
	// Kind is "kensa-run" for the spool of a kensa run (a journal of a live recording has
	// none); Bundles are the runs it sealed, InFlight the runs that had not finished.
	Kind     string   `json:"kind,omitempty"`
	Bundles  []string `json:"bundles,omitempty"`
	InFlight int      `json:"in_flight,omitempty"`
}

func recordRecoverCommand() *cli.Command {
	return &cli.Command{
		Name:      "recover",
		Usage:     "seal what live recordings (proxy, webhook) and kensa runs that were killed or could not seal left behind",
		ArgsUsage: "[JOURNAL...]",
		Description: "A live recorder writes every exchange to a journal in the store's journals/ directory as it\n" +
			"arrives, and removes the journal once it sealed the bundle. A recorder that was killed, or\n" +
			"could not open the store to seal, leaves its journal behind: record recover seals every\n" +
			"exchange the journal holds complete into the bundle the recorder would have sealed (the same\n" +
			"digest), lists the incomplete ones (not sealed), cuts a torn record at the journal's end, and\n" +
			"removes the journal once the bundle is sealed, so recovering twice seals one bundle. With no\n" +
			"JOURNAL (a directory, or a journal's name under journals/), every journal of --store is\n" +
			"recovered; journals a live recorder still writes are left alone. A recording made with\n" +
			"redaction needs the same --redact, --redact-file and key: the journal keeps neither.\n" +
			"Prints each sealed bundle's digest on stdout (--json: a report of every journal).\n\n" +
			"kensa run spools each run under journals/ too, and keeps each finished run there until it is\n" +
			"sealed: the spool of a kensa run that was killed (or a --spool DIR given as JOURNAL) is recovered\n" +
			"the same way, every finished run sealed as kensa run would have sealed it (its --tag included),\n" +
			"the runs in flight dropped, the spool removed. kensa run itself does this when it starts.\n\n" +
			"Exit status: 0 every journal was sealed (or is still being recorded), or there was none;\n" +
			"1 every journal was sealed, and redaction changes the verdict of one of the bundles;\n" +
			"2 bad usage, or a journal that could not be sealed (it is kept, and the report says why).",
		Flags: append(redactFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		),
		Action: func(c *cli.Context) error {
			limitMemory()
			dirs, err := journalsToRecover(c)
			if err != nil {
				return err
			}
			red, err := recordRedactor(c)
			if err != nil {
				return err
			}
			var report []recoveredJournal
			if len(dirs) > 0 {
				err = withSealingStore(c, func(s store.Store) error {
					for _, dir := range dirs {
						if rkensa.IsSpool(dir) {
							report = append(report, recoverKensaSpool(c, s, dir))
							continue
						}
						report = append(report, recoverOne(c.Context, s, dir, recorder.SealOptions{Redactor: red, Verdicts: outcome.Evaluator{}}))
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			return printRecovered(c, report)
		},
	}
}

// journalsToRecover lists the journals named on the command line, or every journal of the
// store.
func journalsToRecover(c *cli.Context) ([]string, error) {
	root := journalsDir(c)
	if c.NArg() == 0 {
		dirs, err := journal.List(root)
		if err != nil {
			return nil, err
		}
		spools, err := rkensa.ListSpools(root)
		return append(dirs, spools...), err
	}
	var dirs []string
	for _, a := range c.Args().Slice() {
		dir := a
		if !strings.ContainsRune(a, filepath.Separator) {
			if _, err := os.Stat(filepath.Join(root, a)); err == nil {
				dir = filepath.Join(root, a)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil && !rkensa.IsSpool(dir) {
			return nil, usageErrorf(c, "%s is not a journal or a kensa run spool (see %s)", a, root)
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

func recoverOne(ctx context.Context, s store.Store, dir string, opts recorder.SealOptions) recoveredJournal {
	out := recoveredJournal{Journal: filepath.Base(dir)}
	sealed, err := recorder.RecoverJournal(ctx, s, dir, opts)
	switch {
	case errors.Is(err, journal.ErrInUse):
		out.Status = recoverRecording
	case err != nil:
		out.Status, out.Error = recoverFailed, err.Error()
	default:
		out.Status, out.Bundle, out.Exchanges = recoverSealed, sealed.Bundle.String(), sealed.Exchanges
		out.Incomplete, out.CutBytes = sealed.Incomplete, sealed.CutBytes
		for _, f := range sealed.Manifest.Findings {
			if f.Code == recorder.CodeRedactionChangesVerdict {
				out.RedactionChangesVerdict = append(out.RedactionChangesVerdict, f.Message)
			}
		}
	}
	return out
}

func printRecovered(c *cli.Context, report []recoveredJournal) error {
	failed, changed := 0, 0
	for _, r := range report {
		if r.Status == recoverFailed {
			failed++
		}
		if len(r.RedactionChangesVerdict) > 0 {
			changed++
		}
	}
	if c.Bool("json") {
		if report == nil {
			report = []recoveredJournal{}
		}
		if err := writeCanonical(c.App.Writer, map[string]any{"journals": report}); err != nil {
			return err
		}
	} else {
		printRecoveredText(c, report)
	}
	switch {
	case failed > 0:
		return reported{status: exitError}
	case changed > 0:
		return reported{status: exitMismatch}
	}
	return nil
}

func printRecoveredText(c *cli.Context, report []recoveredJournal) {
	w := c.App.ErrWriter
	if len(report) == 0 {
		fmt.Fprintf(w, "no journal to recover in %s\n", journalsDir(c))
	}
	for _, r := range report {
		switch r.Status {
		case recoverRecording:
			fmt.Fprintf(w, "journal %s: a live recorder (or kensa run) is still writing it; left alone\n", r.Journal)
		case recoverSealed:
			if r.Kind == kindKensaRun {
				printRecoveredKensa(c, r)
				continue
			}
			printRecoveredJournal(c, r)
		case recoverFailed:
			fmt.Fprintf(w, "journal %s: not sealed: %s\n", r.Journal, r.Error)
		}
	}
}

func printRecoveredJournal(c *cli.Context, r recoveredJournal) {
	w := c.App.ErrWriter
	fmt.Fprintln(c.App.Writer, r.Bundle)
	fmt.Fprintf(w, "journal %s: sealed %s: %d exchanges\n", r.Journal, r.Bundle, r.Exchanges)
	if r.CutBytes > 0 {
		fmt.Fprintf(w, "  cut a torn record of %d bytes from its end\n", r.CutBytes)
	}
	for _, in := range r.Incomplete {
		fmt.Fprintf(w, "  not sealed, incomplete: %s: %s\n", in.Exchange, in.Reason)
	}
	for _, m := range r.RedactionChangesVerdict {
		fmt.Fprintf(w, "  error %s: %s\n", recorder.CodeRedactionChangesVerdict, m)
	}
}

// kindKensaRun is the Kind of a kensa run spool in record recover's report.
const kindKensaRun = "kensa-run"

// recoverKensaSpool seals the finished runs of a kensa run's spool into s.
func recoverKensaSpool(c *cli.Context, s store.Store, dir string) recoveredJournal {
	out := recoveredJournal{Journal: filepath.Base(dir), Kind: kindKensaRun}
	rec, err := rkensa.RecoverSpool(c.Context, dir, version(), func(use func(rkensa.Writer) error) error { return use(s) })
	switch {
	case errors.Is(err, rkensa.ErrSpoolInUse):
		out.Status = recoverRecording
	case err != nil:
		out.Status, out.Error = recoverFailed, err.Error()
	default:
		out.Status, out.InFlight = recoverSealed, rec.InFlight
		for _, d := range rec.Bundles {
			out.Bundles = append(out.Bundles, d.String())
		}
	}
	return out
}

func printRecoveredKensa(c *cli.Context, r recoveredJournal) {
	for _, b := range r.Bundles {
		fmt.Fprintln(c.App.Writer, b)
	}
	fmt.Fprintf(c.App.ErrWriter, "kensa run spool %s: sealed %d finished runs", r.Journal, len(r.Bundles))
	if r.InFlight > 0 {
		fmt.Fprintf(c.App.ErrWriter, "; %d in flight were not recorded", r.InFlight)
	}
	fmt.Fprintln(c.App.ErrWriter)
}
