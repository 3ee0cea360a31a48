package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalReportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "show a matrix as a heatmap in the terminal, and write it as HTML, CSV or JSON",
		ArgsUsage: "[MATRIX]",
		Description: "Reports MATRIX (a bundle digest, prefix or tag; default: the latest matrix): the heatmap of\n" +
			"shift magnitudes (green up to 0.2, amber up to 0.5, red above; numbers always shown; without\n" +
			"colour when NO_COLOR is set or stdout is not a terminal, a marker G, A or R per band), the\n" +
			"match rates, the flagged cells and the changes since the previous matrix of the same\n" +
			"scenarios. --html FILE writes a self-contained page (inline SVG heatmap with legend, match\n" +
			"rates, shift distribution, flagged count, each cell linking to its run bundles' digests).\n\n" +
			evalMinMatchHelp +
			"--from REMOTE reports on what REMOTE holds instead, pulled into a temporary store: MATRIX is\n" +
			"then a digest, prefix or tag of a matrix there, by default the one no other matrix there names\n" +
			"as its previous (eval matrix --from REMOTE --push REMOTE seals it from sharded runs).\n\n" +
			"Exit status: 0 reported; 2 bad usage, no matrix, or an unreadable store.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "html", Usage: "write the HTML report to `FILE`"},
			&cli.StringFlag{Name: "csv", Usage: "write one row per cell to `FILE`"},
			&cli.BoolFlag{Name: "json", Usage: "print the cells as JSON instead of the heatmap"},
			minMatchFlag(),
		}, fromFlagList()...),
		Action: runEvalReport,
	}
}

func runEvalReport(c *cli.Context) error {
	minMatch, err := evalMinMatch(c)
	if err != nil {
		return err
	}
	var report *evallib.Report
	err = withMatrixReportStore(c, readOnly, func(s store.Store) error {
		m, err := reportMatrix(c, s)
		if err != nil {
			return err
		}
		var previous *evallib.MatrixSummary
		if m.Manifest.Previous != nil {
			previous, err = evallib.LoadMatrix(c.Context, s, *m.Manifest.Previous)
			if errors.Is(err, store.ErrNotFound) {
				previous, err = nil, nil // collected: the report goes without the comparison
			}
			if err != nil {
				return err
			}
		}
		report = evallib.NewReport(m, previous)
		return nil
	})
	if err != nil {
		return err
	}
	report.SetMinMatch(minMatch)
	if name := c.String("html"); name != "" {
		if err := writeReportFile(name, report.WriteHTML); err != nil {
			return err
		}
	}
	if name := c.String("csv"); name != "" {
		if err := writeReportFile(name, report.WriteCSV); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		return report.WriteJSON(c.App.Writer)
	}
	return report.WriteText(c.App.Writer, colorOutput(c))
}

// reportMatrix returns the matrix named by the argument, or the latest one.
func reportMatrix(c *cli.Context, s store.Store) (*evallib.MatrixSummary, error) {
	if c.NArg() == 0 {
		return evallib.LatestMatrix(c.Context, s)
	}
	d, err := store.Resolve(c.Context, s, c.Args().First())
	if err != nil {
		return nil, err
	}
	m, err := store.LoadBundleManifest(c.Context, s, d)
	if err != nil {
		return nil, err
	}
	if _, ok := m.(*store.EvalMatrix); !ok {
		return nil, fmt.Errorf("%w: bundle %s is a %s, not an Eval Library matrix", store.ErrWrongEvaluation, d.Short(), m.ObjectKind())
	}
	return evallib.LoadMatrix(c.Context, s, d)
}

// reportFileMode is the permission of the report files eval report writes, as os.Create
// gives kensa stats --html under the usual umask.
const reportFileMode = 0o644

// writeReportFile writes a report through a temporary file renamed into place, so a failed
// write never leaves half a report. It does not sync: a report is derived from the store and
// written again at will, and an fsync of a report of thousands of cells costs more than
// rendering it. The file is made readable by all (0644): a report is for sharing, and the
// temporary file it starts as is private (0600), which a browser served by another user refused.
func writeReportFile(name string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	err = tmp.Chmod(reportFileMode)
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err == nil {
		err = write(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
