package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func bundleShowCommand() *cli.Command {
	return &cli.Command{
		Name:        "show",
		Usage:       "show what a bundle holds: profile, agent, scenarios and their evidence, findings",
		ArgsUsage:   "BUNDLE",
		Description: readExitStatus,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the run manifest as canonical JSON"},
			&cli.StringFlag{Name: "evidence", Usage: "list the evidence of `SCENARIO`: each piece's digest (for cat), media type, size and source"}},
		Action: func(c *cli.Context) error {
			return withBundle(c, readOnly, func(s store.Store, d store.Digest) error {
				if scenario := c.String("evidence"); scenario != "" {
					return showEvidence(c, s, d, scenario)
				}
				if c.Bool("json") {
					b, err := s.GetObject(c.Context, d)
					if err != nil {
						return err
					}
					_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
					return err
				}
				m, err := store.LoadBundleManifest(c.Context, s, d)
				if err != nil {
					return err
				}
				tags, err := store.BundleTags(c.Context, s, d)
				if err != nil {
					return err
				}
				if run, ok := m.(*store.RunManifest); ok {
					printManifest(c.App.Writer, d, tags, run)
				} else {
					printSummary(c.App.Writer, d, tags, m)
				}
				return nil
			})
		},
	}
}

// showEvidence lists the evidence of one scenario of a run bundle (bundle show --evidence).
func showEvidence(c *cli.Context, s store.Store, d store.Digest, scenario string) error {
	m, err := store.LoadBundleManifest(c.Context, s, d)
	if err != nil {
		return err
	}
	run, ok := m.(*store.RunManifest)
	if !ok {
		return argsError(c, "--evidence: bundle %s is a %s, not an OASIS run: its pieces are listed by bundle show", d.Short(), m.ObjectKind())
	}
	pieces, err := scenarioEvidence(c.Context, s, d, run, scenario)
	if err != nil {
		return err
	}
	return printEvidence(c.App.Writer, d, scenario, pieces)
}

func printManifest(w io.Writer, d store.Digest, tags []string, m *store.RunManifest) {
	fmt.Fprintf(w, "bundle     %s\n", d)
	if len(tags) > 0 {
		fmt.Fprintf(w, "tags       %s\n", strings.Join(tags, ", "))
	}
	fmt.Fprintf(w, "recorded   by %s %s from %s\n", m.Recorder.Name, m.Recorder.Version, m.Recorder.Source)
	fmt.Fprintf(w, "profile    %s %s (tree %s", m.Profile.ID, m.Profile.Version, m.Profile.Tree.Short())
	if m.Profile.SourceCommit != "" {
		fmt.Fprintf(w, ", commit %s", m.Profile.SourceCommit)
	}
	fmt.Fprintln(w, ")")
	if m.CoreSpecVersion != "" {
		fmt.Fprintf(w, "core spec  %s\n", m.CoreSpecVersion)
	}
	fmt.Fprintf(w, "agent      %s %s\n", m.Agent.Name, m.Agent.Version)
	for _, k := range slices.Sorted(maps.Keys(m.AgentConfiguration)) {
		fmt.Fprintf(w, "  %s = %s\n", k, m.AgentConfiguration[k])
	}
	if m.Provider != nil {
		fmt.Fprintf(w, "provider   %s %s %s\n", m.Provider.Name, m.Provider.Version, m.Provider.URL)
	}
	fmt.Fprintf(w, "tier       %d\n", m.Tier)
	if m.Conformance != nil {
		fmt.Fprintf(w, "conformance %s (%s)\n", m.Conformance.Digest.Short(), humanBytes(m.Conformance.Size))
	}
	if m.Claimed != nil {
		fmt.Fprintf(w, "claimed    %s %s (%s)\n", m.Claimed.MediaType, m.Claimed.Digest.Short(), humanBytes(m.Claimed.Size))
	}
	fmt.Fprintf(w, "scenarios  %d\n", len(m.Scenarios))
	for _, sc := range m.Scenarios {
		if sc.Evidence == nil {
			fmt.Fprintf(w, "  %-60s  no evidence recorded\n", sc.ScenarioID)
			continue
		}
		fmt.Fprintf(w, "  %-60s  %s (%s)\n", sc.ScenarioID, sc.Evidence.Digest.Short(), humanBytes(sc.Evidence.Size))
	}
	for _, src := range m.Sources {
		fmt.Fprintf(w, "source     %s %s (%s)\n", src.Path, src.Blob.Digest.Short(), humanBytes(src.Blob.Size))
	}
	for _, k := range slices.Sorted(maps.Keys(m.Annotations)) {
		fmt.Fprintf(w, "annotation %s = %s\n", k, m.Annotations[k])
	}
	printRedaction(w, m.Redaction)
	if len(m.Findings) > 0 {
		fmt.Fprintf(w, "findings   %d\n", len(m.Findings))
		for _, f := range m.Findings {
			fmt.Fprintf(w, "  %s\n", formatFinding(f))
		}
	}
}

// printSummary shows a bundle of a kind that has no printer of its own: its summary and what
// its manifest refers to.
func printSummary(w io.Writer, d store.Digest, tags []string, m store.Manifest) {
	sum := m.Summary()
	fmt.Fprintf(w, "bundle     %s\n", d)
	if len(tags) > 0 {
		fmt.Fprintf(w, "tags       %s\n", strings.Join(tags, ", "))
	}
	fmt.Fprintf(w, "evaluation %s (%s)\n", sum.Evaluation, m.ObjectKind())
	fmt.Fprintf(w, "subject    %s (tree %s)\n", sum.Subject, m.Definition().Short())
	fmt.Fprintf(w, "agent      %s %s\n", sum.Agent.Name, sum.Agent.Version)
	fmt.Fprintf(w, "recorded   from %s\n", sum.Source)
	fmt.Fprintf(w, "%-10s %d\n", sum.UnitName, sum.Units)
	for _, ref := range m.References() {
		fmt.Fprintf(w, "  %s %s (%s)\n", ref.MediaType, ref.Digest.Short(), humanBytes(ref.Size))
	}
}

// formatFinding renders a recorder finding as "severity code [scenario] file:line field: message".
func formatFinding(f store.Finding) string {
	var where []string
	if f.Scenario != "" {
		where = append(where, f.Scenario)
	}
	if f.File != "" {
		loc := f.File
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		where = append(where, loc)
	}
	if f.Field != "" {
		where = append(where, f.Field)
	}
	s := fmt.Sprintf("%s %s", f.Severity, f.Code)
	if len(where) > 0 {
		s += " " + strings.Join(where, " ")
	}
	return s + ": " + f.Message
}

// printRedaction lists what the recorder redacted, value by value (by marker): occurrences
// per encoding and the blobs and objects that hold the marker.
func printRedaction(w io.Writer, r *store.RedactionRecord) {
	if r == nil {
		return
	}
	key := "no key"
	if r.KeyID != "" {
		key = "key " + r.KeyID
	}
	fmt.Fprintf(w, "redacted   %d value(s), markers made with %s\n", len(r.Values), key)
	for _, v := range r.Values {
		var encs []string
		for _, e := range slices.Sorted(maps.Keys(v.Encodings)) {
			encs = append(encs, fmt.Sprintf("%s %d", e, v.Encodings[e]))
		}
		if len(encs) == 0 {
			encs = []string{"not found"}
		}
		fmt.Fprintf(w, "  %s  %d occurrence(s): %s\n", v.Marker, v.Occurrences, strings.Join(encs, ", "))
		for _, d := range v.Blobs {
			fmt.Fprintf(w, "    in %s\n", d.Short())
		}
		if v.Manifest {
			fmt.Fprintln(w, "    in the run manifest")
		}
	}
}
