package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/formats/otlp"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// maxSpanFile bounds one telemetry file read by eval scenario generate.
const maxSpanFile = 256 << 20

func evalScenarioGenerateCommand() *cli.Command {
	return &cli.Command{
		Name:      "generate",
		Usage:     "draft scenarios from the agent's skill.invoke spans (OTLP files, or the spans kensa run recorded)",
		ArgsUsage: "[FILE...]",
		Description: "Reads OpenTelemetry spans named skill.invoke from each FILE (OTLP JSON, one document or one\n" +
			"per line; OTLP protobuf for names ending in .pb, .binpb or .protobuf; JSON-lines spans for\n" +
			".jsonl) or, without FILE, from the spans the store recorded (what kensa run's OTLP receiver\n" +
			"took from the agent, and the exporter's spans.jsonl; a span recorded twice counts once), and\n" +
			"drafts scenarios with source traces and a confidence score: recurring patterns (a skill invoked\n" +
			"at least 3 times with the same input shape, one output in at least 80% of them), decision points\n" +
			"(the same input shape led to different outputs) and edge cases (a rare input shape that\n" +
			"succeeded). A span's skill is its skill.name\n" +
			"attribute, its input skill.input (or input.value), its output skill.output (or output.value),\n" +
			"its device device.id; a span with status error failed. --lookback-hours counts back from the\n" +
			"newest span, never from the clock, so the same spans always give the same drafts.\n\n" +
			"Drafts capture what the agent did, not what it should do: review them, then add them with\n" +
			"eval scenario add (--out writes one file per draft).\n\n" +
			"Without FILE, a run of the store whose spans cannot be read (a malformed body the agent sent)\n" +
			"is skipped and named on stderr (and in --json's skipped list); the drafts come from the others.\n\n" +
			"Exit status: 0 drafted (possibly none, runs skipped or not); 2 bad usage, or a FILE that holds\n" +
			"no readable spans.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lookback-hours", Value: 168, Usage: "keep the spans of the last `N` hours before the newest span (0: all)"},
			&cli.IntFlag{Name: "max-scenarios", Value: 20, Usage: "draft at most `N` scenarios, the most confident first"},
			&cli.StringFlag{Name: "device", Usage: "keep the spans of device `ID` only (the device.id attribute)"},
			&cli.StringFlag{Name: "out", Usage: "write each draft to `DIR` as draft-NN.json"},
			&cli.BoolFlag{Name: "json", Usage: "print the drafts as JSON"},
		},
		Action: runEvalGenerate,
	}
}

func runEvalGenerate(c *cli.Context) error {
	if c.Int("lookback-hours") < 0 || c.Int("max-scenarios") < 1 {
		return argsError(c, "--lookback-hours must not be negative and --max-scenarios must be at least 1")
	}
	set, err := generateDrafts(c, evallib.DraftOptions{
		LookbackHours: c.Int("lookback-hours"), Max: c.Int("max-scenarios"), Device: c.String("device")})
	if err != nil {
		return err
	}
	// A store run whose spans cannot be read is left out, never the whole store: say which.
	for _, k := range set.Skipped {
		fmt.Fprintf(c.App.ErrWriter, "oasis-replay: skipped run %s (bundle %s): %s\n", k.RunID, k.Bundle.Short(), k.Reason)
	}
	var files []string
	if dir := c.String("out"); dir != "" {
		if files, err = writeDrafts(dir, set.Drafts); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		return writeJSON(c, set)
	}
	w := c.App.Writer
	fmt.Fprintln(w, set.Note)
	fmt.Fprintf(w, "%d skill.invoke span(s)", set.Spans)
	if set.Spans > 0 {
		fmt.Fprintf(w, " from %s to %s", set.From, set.To)
	}
	fmt.Fprintf(w, ": %d draft(s)\n", len(set.Drafts))
	for i, d := range set.Drafts {
		fmt.Fprintf(w, "%2d. %-17s confidence %s  %s\n    %s\n", i+1, d.Pattern, d.Confidence, d.Scenario.Name, d.Why)
		if files != nil {
			fmt.Fprintf(w, "    written to %s\n", files[i])
		}
	}
	return nil
}

// generateDrafts drafts from the spans of the FILE arguments, or of the store without any.
func generateDrafts(c *cli.Context, opts evallib.DraftOptions) (set *evallib.DraftSet, err error) {
	if c.NArg() == 0 {
		err = withStore(c, readOnly, func(s store.Store) error {
			set, err = evallib.DraftFromStore(c.Context, s, opts)
			return err
		})
		return set, err
	}
	var spans []otlp.Span
	for _, name := range c.Args().Slice() {
		b, err := readInput(name, doc.Limits{MaxBytes: maxSpanFile})
		if err != nil {
			return nil, err
		}
		got, err := evallib.ReadSpanFile(name, b)
		if err != nil {
			return nil, err
		}
		spans = append(spans, got...)
	}
	return evallib.DraftScenarios(evallib.Invocations(spans), opts)
}

// writeDrafts writes each draft as indented JSON to dir/draft-NN.json.
func writeDrafts(dir string, drafts []evallib.Draft) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for i, d := range drafts {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(d.Document), "", "  "); err != nil {
			return nil, err
		}
		b.WriteByte('\n')
		name := filepath.Join(dir, fmt.Sprintf("draft-%02d.json", i+1))
		if err := writeFileAtomically(name, func(f *os.File) error { _, err := f.Write(b.Bytes()); return err }); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// writeJSON prints v as indented JSON with no HTML escaping.
func writeJSON(c *cli.Context, v any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
