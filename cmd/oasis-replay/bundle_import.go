package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

func bundleImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "import a bundle archive into the store, verifying every digest and size first",
		ArgsUsage: "FILE",
		Description: "Nothing becomes visible until the whole archive has verified: the bundle is sealed\n" +
			"only at the end. An archive that fails verification leaves no bundle behind (content\n" +
			"already written is unreferenced and removed by store gc).\n\n" +
			"Exit status: 0 imported; 1 the archive does not verify (damaged, truncated, forged or beyond\n" +
			"the limits), or the store's content does not match its digests; 2 bad usage, a file that\n" +
			"cannot be read, a tag that names another bundle, a store in use, or any other error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "tags", Usage: "apply the tags recorded in the archive"},
			&cli.Int64Flag{Name: "max-blob-size", Usage: "largest blob accepted, in bytes (0: default 8 GiB)"},
			&cli.Int64Flag{Name: "max-total-size", Usage: "largest total uncompressed content, in bytes (0: default 16 GiB)"},
		},
		Action: func(c *cli.Context) error {
			path := c.Args().First()
			f, err := inputfile.Open(c.Context, path)
			if err != nil {
				return err
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil {
				return err
			}
			return withStore(c, readWrite, func(s store.Store) error {
				limits := archive.DefaultLimits()
				if n := c.Int64("max-blob-size"); n > 0 {
					limits.MaxBlobSize = n
				}
				if n := c.Int64("max-total-size"); n > 0 {
					limits.MaxTotalBytes = n
				}
				bar := newProgress(c.App.ErrWriter, info.Size(), "import")
				defer bar.finish()
				sum, err := archive.Import(c.Context, s, f, limits, archive.ImportOptions{
					ApplyTags: c.Bool("tags"), Size: info.Size(),
					Progress: func(p archive.Progress) { bar.set(p.Done) },
				})
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				bar.finish()
				fmt.Fprintf(c.App.Writer, "imported %s from %s: %d objects, %d blobs, %s of evidence\n",
					sum.Bundle, path, sum.Objects, sum.Blobs, humanBytes(sum.ContentBytes))
				return nil
			})
		},
	}
}
