package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func bundleLsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list the sealed bundles of the store",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"}},
		Action: func(c *cli.Context) error {
			if err := wantArgs(c, 0); err != nil {
				return err
			}
			return withStore(c, readOnly, func(s store.Store) error {
				infos, err := store.ListBundles(c.Context, s)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeCanonical(c.App.Writer, bundleListJSON(infos))
				}
				for _, b := range infos {
					sum := b.Manifest.Summary()
					fmt.Fprintf(c.App.Writer, "%s  %s  %s %s  %d %s  %s\n",
						b.Digest.Short(), sum.Subject, sum.Agent.Name, sum.Agent.Version,
						sum.Units, sum.UnitName, strings.Join(b.Tags, ","))
				}
				return nil
			})
		},
	}
}

// bundleListEntry is one bundle in `bundle ls --json`: its summary, and for an OASIS run the
// profile it pins and its scenario count.
type bundleListEntry struct {
	Digest store.Digest `json:"digest"`
	Tags   []string     `json:"tags"`
	store.BundleSummary
	Profile   *store.ProfileRef `json:"profile,omitempty"`
	Scenarios int               `json:"scenarios,omitempty"`
}

func bundleListJSON(infos []store.BundleInfo) []bundleListEntry {
	out := make([]bundleListEntry, 0, len(infos))
	for _, b := range infos {
		e := bundleListEntry{Digest: b.Digest, Tags: append([]string{}, b.Tags...), BundleSummary: b.Manifest.Summary()}
		if run, ok := b.Manifest.(*store.RunManifest); ok {
			e.Profile, e.Scenarios = &run.Profile, len(run.Scenarios)
		}
		out = append(out, e)
	}
	return out
}
