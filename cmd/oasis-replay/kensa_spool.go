package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// kensaRunSpool recovers what kensa runs that did not finish left in spools (sealing their
// finished runs, and saying so on stderr), then returns the spool of this run: --spool, or a
// new directory under the store's journals directory, where record recover and the next kensa
// run find it if this one is killed. done, called with RunJobs' error, removes a spool kensa
// run named once every run in it is sealed or was in flight; one holding finished runs that
// could not be sealed stays for record recover. A spool that cannot be recovered is a warning:
// it stays for record recover, which says why.
func kensaRunSpool(c *cli.Context) (spool string, done func(error), err error) {
	if c.String("store") == "" {
		return "", nil, usageErrorf(c, "--store is empty")
	}
	root := journalsDir(c)
	stale, err := rkensa.ListSpools(root)
	if err != nil {
		return "", nil, err
	}
	spool = c.String("spool")
	if spool != "" && rkensa.IsSpool(spool) {
		stale = append(stale, spool)
	}
	for _, dir := range stale {
		rec, err := rkensa.RecoverSpool(c.Context, dir, version(), kensaStoreOpener(c))
		switch {
		case errors.Is(err, rkensa.ErrSpoolInUse):
			continue // another kensa run is writing it
		case err != nil:
			// Left for record recover, which reports it: one spool that cannot be sealed must
			// not keep every later kensa run from running.
			fmt.Fprintf(c.App.ErrWriter, "kensa run: warning: the spool %s a kensa run left was not recovered: %v\n", dir, err)
			continue
		}
		printRecoveredSpool(c, rec)
	}
	if spool != "" {
		return spool, func(error) {}, nil
	}
	spool = rkensa.NewSpoolDir(root)
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return "", nil, err
	}
	return spool, func(err error) {
		if err == nil || !rkensa.IsSpool(spool) {
			_ = os.RemoveAll(spool)
		}
	}, nil
}

// kensaStoreOpener opens --store for writing for the duration of one call.
func kensaStoreOpener(c *cli.Context) rkensa.OpenStore {
	return func(use func(s rkensa.Writer) error) error {
		return withStore(c, readWrite, func(s store.Store) error { return use(s) })
	}
}

// printRecoveredSpool says on stderr which runs a recovery sealed.
func printRecoveredSpool(c *cli.Context, rec *rkensa.Recovered) {
	w := c.App.ErrWriter
	fmt.Fprintf(w, "kensa run: sealed %d finished runs a kensa run that did not finish left in %s", len(rec.Records), rec.Spool)
	if rec.InFlight > 0 {
		fmt.Fprintf(w, " (%d in flight when it stopped were not recorded)", rec.InFlight)
	}
	fmt.Fprintln(w)
	for i, r := range rec.Records {
		fmt.Fprintf(w, "  %s  %s  %s\n", rec.Bundles[i], r.Definition.Scenario.ID, r.Status)
	}
}
