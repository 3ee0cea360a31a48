package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func storeStatsCommand() *cli.Command {
	return &cli.Command{
		Name:        "stats",
		Usage:       "count blobs, objects, chunks and refs; logical, unique and stored sizes",
		Description: readExitStatus,
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"}},
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				st, err := store.GatherStats(c.Context, s)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeCanonical(c.App.Writer, statsJSON(st))
				}
				w := c.App.Writer
				for _, k := range st.Kinds {
					fmt.Fprintf(w, "%-18s %8d  %10s logical  %10s stored\n", k.Name, k.Count, humanBytes(k.Size), humanBytes(k.StoredSize))
				}
				for _, r := range st.Refs {
					fmt.Fprintf(w, "refs %-13s %8d\n", r.Namespace, r.Count)
				}
				fmt.Fprintf(w, "logical %s, unique %s, stored %s (dedup %.2fx, compression %.2fx); the store's own data %s\n",
					humanBytes(st.Logical), humanBytes(st.Unique), humanBytes(st.Stored), st.DedupRatio(), st.CompressionRatio(), humanBytes(st.Internal))
				return nil
			})
		},
	}
}

type kindStatsJSON struct {
	Kind       string `json:"kind"`
	Count      int    `json:"count"`
	Size       int64  `json:"size"`
	StoredSize int64  `json:"stored_size"`
}

type refStatsJSON struct {
	Namespace string `json:"namespace"`
	Count     int    `json:"count"`
}

type statsOutputJSON struct {
	Kinds   []kindStatsJSON `json:"kinds"`
	Refs    []refStatsJSON  `json:"refs"`
	Logical int64           `json:"logical"`
	Unique  int64           `json:"unique"`
	Stored  int64           `json:"stored"`
	// Internal is what the store keeps for itself: listings, packed bytes no record counts,
	// version 3 compression dictionaries.
	Internal int64 `json:"internal"`
}

func statsJSON(st *store.Stats) statsOutputJSON {
	out := statsOutputJSON{Kinds: []kindStatsJSON{}, Refs: []refStatsJSON{}, Logical: st.Logical, Unique: st.Unique, Stored: st.Stored, Internal: st.Internal}
	for _, k := range st.Kinds {
		out.Kinds = append(out.Kinds, kindStatsJSON{Kind: k.Name, Count: k.Count, Size: k.Size, StoredSize: k.StoredSize})
	}
	for _, r := range st.Refs {
		out.Refs = append(out.Refs, refStatsJSON{Namespace: r.Namespace, Count: r.Count})
	}
	return out
}
