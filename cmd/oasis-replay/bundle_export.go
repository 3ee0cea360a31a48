package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

func bundleExportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a bundle, its profile and its evidence into one portable archive file",
		ArgsUsage: "BUNDLE",
		Description: "The archive is an OCI image layout (oci-layout, index.json, blobs/sha256/<hex>) in a\n" +
			"zstd-compressed tar stream. The same bundle always gives the same archive bytes. The file\n" +
			"appears whole or not at all.\n\n" +
			"Exit status: 0 the archive was written; 1 the bundle's content in the store does not match its\n" +
			"digests (nothing is written); 2 bad usage, an unknown bundle or receipt, a file that cannot\n" +
			"be written, or any other error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "archive `FILE` to write", Required: true},
			&cli.StringSliceFlag{Name: "receipt", Usage: "also carry this receipt (digest) and its verdict"},
		},
		Action: func(c *cli.Context) error {
			return withBundle(c, readOnly, func(s store.Store, d store.Digest) error {
				tags, err := store.BundleTags(c.Context, s, d)
				if err != nil {
					return err
				}
				var receipts []store.Digest
				for _, r := range c.StringSlice("receipt") {
					rd, err := store.ParseDigest(r)
					if err != nil {
						return usageErrorf(c, "--receipt: %v", err)
					}
					receipts = append(receipts, rd)
				}
				out := c.String("output")
				bar := newProgress(c.App.ErrWriter, -1, "export")
				defer bar.finish()
				var sum archive.Summary
				err = writeFileAtomically(out, func(f *os.File) error {
					var err error
					sum, err = archive.Export(c.Context, s, d, f, archive.ExportOptions{
						Tags: tags, Receipts: receipts, Progress: func(p archive.Progress) { bar.set(p.Done) },
					})
					return err
				})
				if err != nil {
					return err
				}
				bar.finish()
				fmt.Fprintf(c.App.Writer, "exported %s to %s: %d objects, %d blobs, %s of evidence in %s\n",
					sum.Bundle, out, sum.Objects, sum.Blobs, humanBytes(sum.ContentBytes), humanBytes(sum.ArchiveBytes))
				return nil
			})
		},
	}
}

// writeFileAtomically writes path through a temporary file in the same directory, synced and
// renamed into place, so a failed or interrupted export never leaves a partial archive.
func writeFileAtomically(path string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
