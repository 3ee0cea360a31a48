package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

func bundlePullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "pull bundles and their receipts from an OCI registry or S3 bucket into the store",
		ArgsUsage: "REMOTE [REF...]",
		Description: "REF is a bundle digest (or the digest of its wrapper manifest), a unique prefix of at\n" +
			"least 4 hex characters, or a tag on the remote. Every digest and size is verified before\n" +
			"anything enters the store, and the bundle is checked as bundle import checks an archive and\n" +
			"sealed last: an interrupted pull leaves no bundle behind and is finished by running it\n" +
			"again, which downloads only what the store lacks.\n\n" +
			"Exit status: 0 pulled; 1 what the remote holds does not match its digests (a tampered or\n" +
			"damaged remote; the error names the object), or the bundle does not verify; 2 bad usage,\n" +
			"an unknown remote or reference, an unreachable remote, a store in use, or any other error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plain-http", Usage: "talk HTTP to a remote given by URL (local servers only)"},
			&cli.BoolFlag{Name: "tags", Usage: "apply the tags recorded in the bundles' index.json"},
			&cli.BoolFlag{Name: "all", Usage: "pull every bundle the remote names (bundle-<hex>; then REF is not given)"},
			&cli.StringFlag{Name: "signed-receipts", Usage: "write the signed receipts attached to the bundles into `DIR`, as <bundle hex>-<envelope hex>.dsse.json"},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if (len(args) > 1) == c.Bool("all") {
				return usageErrorf(c, "give REF… or --all, not both or neither")
			}
			b, err := openRemote(c, args[0], c.Bool("plain-http"))
			if err != nil {
				return err
			}
			refs := args[1:]
			if c.Bool("all") {
				if refs, err = remote.AllBundles(c.Context, b); err != nil {
					return err
				}
			}
			return withStore(c, readWrite, func(s store.Store) error {
				opts := remote.PullOptions{ApplyTags: c.Bool("tags"), Limits: archive.DefaultLimits()}
				if dir := c.String("signed-receipts"); dir != "" {
					opts.SignedReceipt = signedReceiptWriter(dir)
				}
				rep, err := remote.Pull(c.Context, s, b, refs, opts)
				if err != nil {
					return err
				}
				for _, d := range rep.Bundles {
					fmt.Fprintln(c.App.Writer, d)
				}
				fmt.Fprintf(c.App.Writer, "pulled %d bundles from %s: %d blobs downloaded (%s), %d receipts, %d signed\n",
					len(rep.Bundles), b, rep.Downloaded, humanBytes(rep.DownloadedBytes), rep.Receipts, rep.SignedReceipts)
				return nil
			})
		},
	}
}

// signedReceiptWriter writes each signed receipt a pull finds into dir, named by the bundle and
// the envelope's digest so that the name says what it is and two never collide.
func signedReceiptWriter(dir string) func(store.Digest, []byte) error {
	return func(bundle store.Digest, env []byte) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(dir, bundle.Hex()+"-"+store.Sum(env).Hex()+".dsse.json")
		return writeFileAtomically(path, func(f *os.File) error {
			_, err := f.Write(env)
			return err
		})
	}
}

// pullReference pulls the bundle a reference written as REMOTE@REF names (as
// oci://host/repo@sha256:<hex>, or origin@v1 for a remote added as origin) into the store, and
// returns the bundle's digest as text for the command that takes it. Any other argument is
// returned unchanged: a store's tags and digests never hold "@".
func pullReference(c *cli.Context, arg string) (string, error) {
	name, ref, ok := remote.SplitReference(arg)
	if !ok {
		return arg, nil
	}
	b, err := openRemote(c, name, false)
	if err != nil {
		return "", err
	}
	var d store.Digest
	err = withStore(c, readWrite, func(s store.Store) error {
		rep, err := remote.Pull(c.Context, s, b, []string{ref}, remote.PullOptions{Limits: archive.DefaultLimits()})
		if err != nil {
			return err
		}
		d = rep.Bundles[0]
		return nil
	})
	return d.String(), err
}
