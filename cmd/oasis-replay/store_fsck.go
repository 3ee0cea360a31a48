package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func storeFsckCommand() *cli.Command {
	return &cli.Command{
		Name:  "fsck",
		Usage: "re-hash every blob, chunk and object and check every reference",
		Description: "Each problem is reported with its digest (or ref) and kind. The garbage line counts what\n" +
			"store gc would remove, as gc decides it: every blob, object and chunk no ref reaches (left by\n" +
			"failed or interrupted recordings and imports, or by removed tags and bundles). Garbage is not\n" +
			"a problem.\n\n" +
			"Exit status: 0 no problem found; 1 at least one problem; 2 bad usage, a store that cannot be\n" +
			"opened, or any other error.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the report as canonical JSON"}},
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				report, err := store.Check(c.Context, s, store.CheckOptions{})
				if err != nil {
					return err
				}
				if c.Bool("json") {
					if err := writeCanonical(c.App.Writer, checkJSON(report)); err != nil {
						return err
					}
				} else {
					for _, p := range report.Problems {
						fmt.Fprintln(c.App.Writer, p.String())
					}
					fmt.Fprintf(c.App.Writer, "checked %d blobs (%d chunked), %d objects, %d chunks, %d refs: %s re-hashed, %d problems; %s\n",
						report.Blobs, report.ChunkedBlobs, report.Objects, report.Chunks, report.Refs,
						humanBytes(report.BytesChecked), len(report.Problems), garbageLine(report))
				}
				if !report.OK() {
					return reported{status: exitMismatch}
				}
				return nil
			})
		},
	}
}

// garbageLine says what store gc would remove.
func garbageLine(r *store.CheckReport) string {
	g := r.Garbage
	if g == nil {
		return "garbage unknown: a reachable object cannot be read"
	}
	content, stored := g.Bytes()
	return fmt.Sprintf("garbage for store gc: %d entries (%d objects, %d blobs, %d chunks), %s (%s stored), %d dangling references, %d orphan chunks",
		g.Len(), len(g.Objects), len(g.Blobs), len(g.Chunks), humanBytes(content), humanBytes(stored), r.DanglingGarbage, r.OrphanChunks)
}

type checkProblemJSON struct {
	Digest  store.Digest `json:"digest,omitzero"`
	Ref     string       `json:"ref,omitempty"`
	Kind    string       `json:"kind"`
	Message string       `json:"message"`
}

type checkReportJSON struct {
	Blobs        int                `json:"blobs"`
	ChunkedBlobs int                `json:"chunked_blobs"`
	Objects      int                `json:"objects"`
	Chunks       int                `json:"chunks"`
	Refs         int                `json:"refs"`
	BytesChecked int64              `json:"bytes_checked"`
	Problems     []checkProblemJSON `json:"problems"`
	// DanglingGarbage counts references from unreachable objects to missing content.
	DanglingGarbage int `json:"dangling_garbage"`
	// OrphanChunks counts chunks no chunk list names (left by an interrupted write).
	OrphanChunks int `json:"orphan_chunks"`
	// Garbage is what store gc would remove; null when it cannot be known.
	Garbage *garbageJSON `json:"garbage"`
}

type garbageJSON struct {
	Entries     int   `json:"entries"`
	Objects     int   `json:"objects"`
	Blobs       int   `json:"blobs"`
	Chunks      int   `json:"chunks"`
	Bytes       int64 `json:"bytes"`
	StoredBytes int64 `json:"stored_bytes"`
}

func checkJSON(r *store.CheckReport) checkReportJSON {
	out := checkReportJSON{Blobs: r.Blobs, ChunkedBlobs: r.ChunkedBlobs, Objects: r.Objects, Chunks: r.Chunks,
		Refs: r.Refs, BytesChecked: r.BytesChecked, Problems: []checkProblemJSON{}, DanglingGarbage: r.DanglingGarbage, OrphanChunks: r.OrphanChunks}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, checkProblemJSON{Digest: p.Digest, Ref: p.Ref, Kind: fmt.Sprint(p.Kind), Message: p.Message})
	}
	if g := r.Garbage; g != nil {
		out.Garbage = &garbageJSON{Entries: g.Len(), Objects: len(g.Objects), Blobs: len(g.Blobs), Chunks: len(g.Chunks)}
		out.Garbage.Bytes, out.Garbage.StoredBytes = g.Bytes()
	}
	return out
}
