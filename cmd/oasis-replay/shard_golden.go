package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/golden"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
)

// goldenShardFlags are golden check's flags for sharded work and JSON output.
func goldenShardFlags() []cli.Flag {
	return append(shardFlagList("case name"),
		&cli.BoolFlag{Name: "json", Usage: "print one record per case as JSON"},
		&cli.StringFlag{Name: "push", Usage: "then push each case's bundle and its outcome to `REMOTE`"},
		&cli.StringFlag{Name: "from", Usage: "report the outcomes REMOTE holds for the cases (pushed by golden check --push) instead of checking them"},
		plainHTTPFlag())
}

// goldenShardHelp is golden check's help on sharding.
const goldenShardHelp = "--shard I/N checks only the cases whose name hashes into shard I of N (--shards N takes I from\n" +
	"JOB_COMPLETION_INDEX). --push REMOTE then pushes each case's bundle and a record of its\n" +
	"outcome, an OCI artifact of type application/vnd.oasis-replay.golden-result.v1+json named\n" +
	"golden-<case>-<key> where the key hashes the case's input and golden files, --runs and --key:\n" +
	"golden check --from REMOTE DIR reads the outcomes of DIR's cases from REMOTE instead of checking\n" +
	"them (a case without a record for its current files is an error), and its --json is the\n" +
	"unsharded golden check --json byte for byte. --json prints {\"cases\": [...], \"counts\": {...}}:\n" +
	"per case its name, outcome, digests, evaluations, differences and reasons."

// goldenRecord is one case's outcome as golden check --json prints it and --push stores it. It
// holds only what is the same on every machine: no go-cmp rendering, no timing.
type goldenRecord struct {
	Case        string            `json:"case"`
	Outcome     golden.Outcome    `json:"outcome"`
	Reason      string            `json:"reason,omitempty"`
	Error       string            `json:"error,omitempty"`
	Bundle      *store.Digest     `json:"bundle,omitempty"`
	Verdict     *store.Digest     `json:"verdict,omitempty"`
	Receipt     *store.Digest     `json:"receipt,omitempty"`
	Overall     string            `json:"overall,omitempty"`
	Evaluations int               `json:"evaluations"`
	Divergence  *goldenDivergence `json:"divergence,omitempty"`
	Mismatches  []goldenMismatch  `json:"mismatches,omitempty"`
}

type goldenDivergence struct {
	Baseline    string       `json:"baseline"`
	Setting     string       `json:"setting"`
	Want        store.Digest `json:"want"`
	Got         store.Digest `json:"got"`
	Error       string       `json:"error,omitempty"`
	Differences []string     `json:"differences,omitempty"`
	Truncated   bool         `json:"truncated,omitempty"`
}

type goldenMismatch struct {
	File        string   `json:"file"`
	Want        string   `json:"want"`
	Got         string   `json:"got"`
	Note        string   `json:"note,omitempty"`
	Differences []string `json:"differences,omitempty"`
	Truncated   bool     `json:"truncated,omitempty"`
}

func recordOf(res *golden.CaseResult) goldenRecord {
	r := goldenRecord{Case: res.Case.Name, Outcome: res.Outcome, Reason: res.Reason, Evaluations: res.Runs}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	for _, d := range []struct {
		from store.Digest
		to   **store.Digest
	}{{res.Bundle, &r.Bundle}, {res.Verdict, &r.Verdict}, {res.Receipt, &r.Receipt}} {
		if d.from != (store.Digest{}) {
			v := d.from
			*d.to = &v
		}
	}
	if r.Verdict != nil {
		r.Overall = string(res.Overall)
	}
	if d := res.Divergence; d != nil {
		r.Divergence = &goldenDivergence{Baseline: d.Baseline.String(), Setting: d.Setting.String(), Want: d.Want, Got: d.Got,
			Differences: texts(d.Differences), Truncated: d.Truncated}
		if d.Err != nil {
			r.Divergence.Error = d.Err.Error()
		}
	}
	for _, m := range res.Mismatches {
		r.Mismatches = append(r.Mismatches, goldenMismatch{File: m.File, Want: m.Want, Got: m.Got, Note: m.Note,
			Differences: texts(m.Differences), Truncated: m.Truncated})
	}
	return r
}

func texts[D fmt.Stringer](ds []D) []string {
	if len(ds) == 0 {
		return nil
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// goldenRecordName is the name of a case's record on a remote: golden-<case>-<key>, the key
// the first 16 hex of a digest of everything the case's outcome depends on in the corpus and
// the options: the case's name, its input file, its golden files (absent ones too), --runs and
// the trusted key. A record on the remote for other files is never read as this case's; what
// the key does not cover is the shared test data recipes read ($SHARED).
func goldenRecordName(c *golden.Corpus, cs *golden.Case, runs int, keyFile string) (string, error) {
	h := sha256.New()
	part := func(b []byte) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	part([]byte(cs.Name))
	part(binary.BigEndian.AppendUint64(nil, uint64(runs)))
	files := []string{cs.Input}
	for _, suffix := range []string{golden.BundleSuffix, golden.VerdictSuffix, golden.ReceiptSuffix, golden.SignatureSuffix} {
		files = append(files, cs.Name+suffix)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(c.Dir, f))
		switch {
		case errors.Is(err, os.ErrNotExist):
			part(nil)
			h.Write([]byte{0}) // absent differs from empty
			continue
		case err != nil:
			return "", err
		}
		part(b)
		h.Write([]byte{1})
	}
	if keyFile != "" {
		b, err := os.ReadFile(keyFile)
		if err != nil {
			return "", err
		}
		part(b)
	}
	return fmt.Sprintf("golden-%s-%x", cs.Name, h.Sum(nil)[:8]), nil
}

// goldenSharded reports whether golden check is asked for sharded work or JSON output, which
// runGoldenCheck handles.
func goldenSharded(c *cli.Context) bool {
	for _, f := range []string{"shard", "shards", "push", "from", "json"} {
		if c.IsSet(f) {
			return true
		}
	}
	return false
}

// runGoldenCheck is golden check with --shard, --push, --from or --json: the cases of the
// shard checked (or, with --from, their records read from the remote), then listed as records.
func runGoldenCheck(c *cli.Context, corpus *golden.Corpus, opts golden.Options) error {
	sh, err := shardFlags(c)
	if err != nil {
		return err
	}
	if c.String("from") != "" && c.String("push") != "" {
		return usageErrorf(c, "--from reads outcomes and --push writes them: give one")
	}
	cases, err := corpus.Select(opts.Cases)
	if err != nil {
		return err
	}
	cases = slices.DeleteFunc(slices.Clone(cases), func(cs *golden.Case) bool { return !sh.HasKey(cs.Name) })
	var records []goldenRecord
	if from := c.String("from"); from != "" {
		records, err = goldenRecordsFrom(c, corpus, cases, opts)
	} else {
		records, err = checkGoldenCases(c, corpus, cases, opts)
	}
	if err != nil {
		return err
	}
	counts := map[golden.Outcome]int{golden.OK: 0, golden.Mismatched: 0, golden.Skipped: 0, golden.Failed: 0}
	for _, r := range records {
		counts[r.Outcome]++
	}
	if c.Bool("json") {
		if records == nil {
			records = []goldenRecord{}
		}
		err = writeCanonical(c.App.Writer, map[string]any{"cases": records, "counts": counts})
	} else {
		err = writeGoldenRecords(c.App.Writer, corpus.Dir, records, counts)
	}
	if err != nil {
		return err
	}
	switch {
	case counts[golden.Failed] > 0:
		return reported{status: exitError}
	case counts[golden.Mismatched] > 0:
		return reported{status: exitMismatch}
	case counts[golden.Skipped] > 0 && !c.Bool("allow-skip"):
		fmt.Fprintf(c.App.ErrWriter, "golden check: %d cases skipped (their shared test data is unavailable; --shared DIR supplies it, --allow-skip accepts the skips)\n",
			counts[golden.Skipped])
		return reported{status: exitMismatch}
	}
	return nil
}

// checkGoldenCases checks the cases, then pushes each case's bundle and record with --push.
func checkGoldenCases(c *cli.Context, corpus *golden.Corpus, cases []*golden.Case, opts golden.Options) ([]goldenRecord, error) {
	if len(cases) == 0 {
		return nil, nil
	}
	opts.Cases = make([]string, len(cases))
	for i, cs := range cases {
		opts.Cases[i] = cs.Name
	}
	// The scratch stores are kept until the bundles built in them are pushed.
	kept := &keptStores{}
	if c.String("push") != "" {
		newStore := opts.NewStore
		opts.NewStore = func() (store.Store, error) { return kept.open(newStore) }
	}
	defer kept.closeAll()
	rep, err := corpus.Check(c.Context, opts)
	if err != nil {
		return nil, err
	}
	records := make([]goldenRecord, len(rep.Results))
	for i, res := range rep.Results {
		records[i] = recordOf(res)
	}
	if c.String("push") == "" {
		return records, nil
	}
	b, err := openRemote(c, c.String("push"), c.Bool("plain-http"))
	if err != nil {
		return nil, err
	}
	pushed, uploaded := 0, 0
	for i, res := range rep.Results {
		if res.Bundle != (store.Digest{}) {
			s, ok := kept.holding(c.Context, res.Bundle)
			if !ok {
				return nil, fmt.Errorf("golden check --push: case %s: bundle %s is in no scratch store", res.Case.Name, res.Bundle)
			}
			if _, err := remote.Push(c.Context, s, b, []store.Digest{res.Bundle}, remote.PushOptions{}); err != nil {
				return nil, err
			}
			pushed++
		}
		name, err := goldenRecordName(corpus, res.Case, opts.Runs, c.String("key"))
		if err != nil {
			return nil, err
		}
		doc, err := store.Marshal(records[i])
		if err != nil {
			return nil, err
		}
		up, err := remote.PutRecord(c.Context, b, name, remote.ArtifactTypeGoldenResult, doc)
		if err != nil {
			return nil, err
		}
		if up {
			uploaded++
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "pushed %d case bundles and %d outcomes to %s: %d outcomes uploaded\n", pushed, len(records), b, uploaded)
	return records, nil
}

// goldenRecordsFrom reads the record of each case from --from.
func goldenRecordsFrom(c *cli.Context, corpus *golden.Corpus, cases []*golden.Case, opts golden.Options) ([]goldenRecord, error) {
	b, err := openRemote(c, c.String("from"), c.Bool("plain-http"))
	if err != nil {
		return nil, err
	}
	out := make([]goldenRecord, 0, len(cases))
	for _, cs := range cases {
		name, err := goldenRecordName(corpus, cs, opts.Runs, c.String("key"))
		if err != nil {
			return nil, err
		}
		doc, err := remote.GetRecord(c.Context, b, name, remote.ArtifactTypeGoldenResult)
		if errors.Is(err, remote.ErrNotFound) {
			return nil, fmt.Errorf("%w: case %s: %s holds no outcome for its current files (%s): run golden check --push on its shard first", remote.ErrNotFound, cs.Name, b, name)
		}
		if err != nil {
			return nil, err
		}
		var r goldenRecord
		dec := json.NewDecoder(strings.NewReader(string(doc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.Case != cs.Name {
			return nil, fmt.Errorf("%w: %s on %s: not the outcome of case %s (%v)", remote.ErrIntegrity, name, b, cs.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// writeGoldenRecords prints the records for people, as golden check prints a report (without
// the go-cmp renderings, which are not kept).
func writeGoldenRecords(w io.Writer, dir string, records []goldenRecord, counts map[golden.Outcome]int) error {
	p := textout.New(w)
	p.Line("golden check %s: %d cases: %d ok, %d mismatch, %d skipped, %d errors", dir, len(records),
		counts[golden.OK], counts[golden.Mismatched], counts[golden.Skipped], counts[golden.Failed])
	for _, r := range records {
		switch r.Outcome {
		case golden.Skipped:
			p.Line("%-9s %s: %s", r.Outcome, r.Case, r.Reason)
			continue
		case golden.Failed:
			p.Line("%-9s %s: %s", r.Outcome, r.Case, r.Error)
			continue
		}
		p.Line("%-9s %s: %s, bundle %s, verdict %s, %d evaluations", r.Outcome, r.Case, r.Overall, short(r.Bundle), short(r.Verdict), r.Evaluations)
		if d := r.Divergence; d != nil {
			p.Line("  the evaluations diverge (Core §3.5.4: the same evidence must give the same verdict):")
			p.Line("    %s gave %s", d.Baseline, d.Want)
			if d.Error != "" {
				p.Line("    %s failed: %s", d.Setting, d.Error)
			} else {
				p.Line("    %s gave %s", d.Setting, d.Got)
			}
			writeLines(p, d.Differences, d.Truncated)
		}
		for _, m := range r.Mismatches {
			p.Line("  %s differs from the case: golden %s, case gives %s", m.File, m.Want, m.Got)
			if m.Note != "" {
				p.Line("    %s", m.Note)
			}
			writeLines(p, m.Differences, m.Truncated)
		}
	}
	return p.Err()
}

func writeLines(p *textout.Writer, lines []string, truncated bool) {
	for _, l := range lines {
		p.Line("    %s", l)
	}
	if truncated {
		p.Line("    … more differences")
	}
}

func short(d *store.Digest) string {
	if d == nil {
		return "-"
	}
	return d.Short()
}

// keptStores are the scratch stores of golden check --push, kept open until their bundles are
// pushed.
type keptStores struct {
	mu     sync.Mutex
	stores []store.Store
}

// open opens a scratch store whose Close does nothing: closeAll closes it.
func (k *keptStores) open(newStore func() (store.Store, error)) (store.Store, error) {
	s, err := newStore()
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stores = append(k.stores, s)
	return keptStore{s}, nil
}

// holding returns the kept store in which bundle b is sealed.
func (k *keptStores) holding(ctx context.Context, b store.Digest) (store.Store, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.stores {
		if d, err := s.GetRef(ctx, store.BundleRefName(b)); err == nil && d == b {
			return s, true
		}
	}
	return nil, false
}

func (k *keptStores) closeAll() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.stores {
		s.Close()
	}
	k.stores = nil
}

// keptStore is a scratch store whose Close is left to keptStores.
type keptStore struct{ store.Store }

func (keptStore) Close() error { return nil }
