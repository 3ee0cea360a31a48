package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
)

func bundlePushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "push bundles, their tags and receipts to an OCI registry or S3 bucket",
		ArgsUsage: "REMOTE [BUNDLE...]",
		Description: "REMOTE is a remote's name (remote add) or its URL. Each bundle is uploaded as its\n" +
			"archive's index.json and blobs under an OCI wrapper manifest named bundle-<hex> and by the\n" +
			"store's tags; its receipts are attached as referrers. Only what the remote lacks is\n" +
			"uploaded, and names are written last, so an interrupted push is finished by running it\n" +
			"again. A matrix pushes its run bundles too. With --all, every sealed bundle of the store.\n" +
			"A signed receipt (--signed-receipt) is attached as a referrer of artifactType\n" +
			"application/vnd.dsse.envelope.v1+json; its signature is not checked here (receipt verify).\n\n" +
			"Exit status: 0 pushed; 1 the store's content does not match its digests; 2 bad usage, an\n" +
			"unknown remote or bundle, an unreachable remote, or any other error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plain-http", Usage: "talk HTTP to a remote given by URL (local servers only)"},
			&cli.BoolFlag{Name: "all", Usage: "push every sealed bundle of the store (then BUNDLE is not given)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was pushed and uploaded as JSON"},
			&cli.StringSliceFlag{Name: "signed-receipt", Usage: "attach this signed receipt `FILE` (replay --sign) to the bundle it is about"},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 1 && !c.Bool("all") {
				return usageErrorf(c, "missing BUNDLE (or --all)")
			}
			b, err := openRemote(c, args[0], c.Bool("plain-http"))
			if err != nil {
				return err
			}
			return withStore(c, readOnly, func(s store.Store) error {
				bundles, err := bundlesToPush(c, s, args[1:])
				if err != nil {
					return err
				}
				var opts remote.PushOptions
				for _, f := range c.StringSlice("signed-receipt") {
					env, err := readReceiptFile(f)
					if err != nil {
						return err
					}
					opts.SignedReceipts = append(opts.SignedReceipts, env)
				}
				rep, err := remote.Push(c.Context, s, b, bundles, opts)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(c, rep)
				}
				fmt.Fprintf(c.App.Writer, "pushed %d bundles to %s: %d of %d blobs and %d of %d manifests uploaded (%s), %d receipts, %d signed\n",
					len(rep.Bundles), b, rep.BlobsUploaded, rep.Blobs, rep.ManifestsUploaded, rep.Manifests, humanBytes(rep.UploadedBytes), rep.Receipts, rep.SignedReceipts)
				return nil
			})
		},
	}
}

// bundlesToPush resolves the BUNDLE arguments, or lists every sealed bundle with --all.
func bundlesToPush(c *cli.Context, s store.Store, args []string) ([]store.Digest, error) {
	if c.Bool("all") {
		if len(args) > 0 {
			return nil, usageErrorf(c, "--all and BUNDLE arguments do not go together")
		}
		refs, err := s.ListRefs(c.Context, store.RefBundlePrefix)
		if err != nil {
			return nil, err
		}
		out := make([]store.Digest, len(refs))
		for i, r := range refs {
			out[i] = r.Digest
		}
		return out, nil
	}
	out := make([]store.Digest, 0, len(args))
	for _, a := range args {
		d, err := store.Resolve(c.Context, s, a)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
