package main

import (
	"context"
	"flag"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/serve"
	"github.com/oasis-replay/oasis-replay/store"
)

// serveOpener opens the --store for one request without waiting for it: a store another
// process holds fails at once (badgerstore.ErrLocked, class in-use), and the API tries again
// up to --lock-wait without holding up its other requests (serve.EvalConfig.StoreWait). The
// open itself is the CLI's (openStore: recovery of a store a killed writer left, the messages
// of a missing store), under a --lock-wait of zero.
func serveOpener(c *cli.Context) serve.Opener {
	return func(ctx context.Context, write bool) (store.Store, func() error, error) {
		mode := readOnly
		if write {
			mode = readWrite
		}
		s, err := openStore(noLockWait(c, ctx), mode)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
}

// noLockWait is c with --lock-wait zero and ctx as its context: a flag set of its own, looked
// up before c's, holds the one flag it changes.
func noLockWait(c *cli.Context, ctx context.Context) *cli.Context {
	fs := flag.NewFlagSet("serve-store", flag.ContinueOnError)
	fs.Duration("lock-wait", 0, "")
	child := cli.NewContext(c.App, fs, c)
	child.Context = ctx
	return child
}
