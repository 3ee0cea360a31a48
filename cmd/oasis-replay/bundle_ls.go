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
					m := b.Manifest
					fmt.Fprintf(c.App.Writer, "%s  %s %s  %s %s  %d scenarios  %s\n",
						b.Digest.Short(), m.Profile.ID, m.Profile.Version, m.Agent.Name, m.Agent.Version,
						len(m.Scenarios), strings.Join(b.Tags, ","))
				}
				return nil
			})
		},
	}
}

type bundleListEntry struct {
	Digest    store.Digest        `json:"digest"`
	Tags      []string            `json:"tags"`
	Profile   store.ProfileRef    `json:"profile"`
	Agent     store.AgentIdentity `json:"agent"`
	Scenarios int                 `json:"scenarios"`
	Source    string              `json:"source"`
}

func bundleListJSON(infos []store.BundleInfo) []bundleListEntry {
	out := make([]bundleListEntry, 0, len(infos))
	for _, b := range infos {
		out = append(out, bundleListEntry{
			Digest: b.Digest, Tags: append([]string{}, b.Tags...), Profile: b.Manifest.Profile,
			Agent: b.Manifest.Agent, Scenarios: len(b.Manifest.Scenarios), Source: b.Manifest.Recorder.Source,
		})
	}
	return out
}
