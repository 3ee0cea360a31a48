package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func bundleLsCommand() *cli.Command {
	return &cli.Command{
		Name:        "ls",
		Usage:       "list the sealed bundles of the store",
		Description: readExitStatus,
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"}},
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				infos, err := store.ListBundles(c.Context, s)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeCanonical(c.App.Writer, bundleListJSON(infos))
				}
				if len(infos) == 0 {
					noneYet(c, "bundles", "record or import one, or run oasis-replay demo")
				}
				// One write for the whole listing, not one per bundle.
				w := bufio.NewWriter(c.App.Writer)
				for _, b := range infos {
					fmt.Fprintf(w, "%s  %s  %s %s  %d %s  %s\n",
						b.Digest.Short(), b.Subject, b.Agent.Name, b.Agent.Version,
						b.Units, b.UnitName, strings.Join(b.Tags, ","))
				}
				return w.Flush()
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
		e := bundleListEntry{Digest: b.Digest, Tags: append([]string{}, b.Tags...), BundleSummary: b.BundleSummary, Profile: b.Profile}
		if b.Profile != nil {
			e.Scenarios = b.Units // an OASIS run's units are its scenarios
		}
		out = append(out, e)
	}
	return out
}
