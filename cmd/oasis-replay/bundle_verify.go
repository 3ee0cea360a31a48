package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

func bundleVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "verify an archive file, or a bundle in the store, by re-hashing every blob and object",
		ArgsUsage: "FILE|BUNDLE",
		Description: "An existing file is verified as an archive, without any store. Anything else is resolved\n" +
			"as a bundle of the store (digest, unique prefix or tag), and everything it reaches is\n" +
			"read back and re-hashed.\n\n" +
			"Exit status: 0 verified; 1 a blob or object does not verify (the first one is named); 2 bad\n" +
			"usage, an unknown bundle, a file that cannot be read, or any other error.",
		Action: func(c *cli.Context) error {
			arg := c.Args().First()
			if _, err := os.Stat(arg); err == nil {
				return verifyArchiveFile(c, arg) // an existing path is never a bundle name
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return withBundle(c, readOnly, func(s store.Store, d store.Digest) error {
				report, err := store.VerifyBundle(c.Context, s, d)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "bundle %s verified: %d blobs and objects, %s re-hashed\n",
					d, report.Entries, humanBytes(report.Bytes))
				return nil
			})
		},
	}
}

func verifyArchiveFile(c *cli.Context, path string) error {
	f, err := inputfile.Open(c.Context, path)
	if err != nil {
		return err
	}
	defer f.Close()
	report, err := archive.Verify(c.Context, f, archive.DefaultLimits())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(c.App.Writer, "archive %s verified: bundle %s, %d objects, %d blobs, %s of evidence\n",
		path, report.Bundle, report.Objects, report.Blobs, humanBytes(report.ContentBytes))
	return nil
}
