package golden

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultRuns is how many times Check evaluates each case: one full cycle of the settings of
// replay.Bundle.Repeat (GOMAXPROCS 1, 2, 4 and 8, each with one worker and with GOMAXPROCS
// workers, scenario evaluation orders permuted from the second run on).
const DefaultRuns = 8

// Options tune Check and Update.
type Options struct {
	// Shared is the directory $SHARED stands for, "" when the shared test data is not
	// available: the cases that need it are then skipped.
	Shared string
	// Runs is how many evaluations prove a case's verdict byte-identical; below 2 is
	// DefaultRuns.
	Runs int
	// Cases selects cases by name; empty is every case.
	Cases []string
	// Trusted, for Check, requires every case to carry a signed receipt (<name>.receipt.dsse.json)
	// signed by this key that names exactly the case's bundle, profile, verdict and receipt.
	Trusted *attest.Verifier
	// Signer, for Update, (re)writes every case's signed receipt with this key.
	Signer *attest.Signer
	// NewStore opens an empty scratch store for one case (an in-memory one serves); the case
	// is built and evaluated in it and it is closed afterwards. Required: the corpus never
	// touches a store the caller keeps.
	NewStore func() (store.Store, error)
}

// Outcome is what became of one case.
type Outcome string

// Outcomes of a case.
const (
	// OK: every golden output is byte-identical (Check), or was already (Update).
	OK Outcome = "ok"
	// Updated: Update rewrote at least one golden output.
	Updated Outcome = "updated"
	// Mismatched: a golden output differs (Check), or the evaluations diverged.
	Mismatched Outcome = "MISMATCH"
	// Skipped: the case needs shared test data that is not available.
	Skipped Outcome = "skipped"
	// Failed: the case could not be built or evaluated.
	Failed Outcome = "ERROR"
)

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case    *Case
	Outcome Outcome
	// Reason says why the case was skipped.
	Reason string
	// Err says why the case could not be built or evaluated.
	Err error
	// Bundle, Verdict and Receipt are the digests the case gave; Overall its overall status.
	Bundle, Verdict, Receipt store.Digest
	Overall                  evaluator.Status
	// Runs is the number of evaluations done; Divergence the first that differed from the
	// first, if any.
	Runs       int
	Divergence *replay.Divergence
	// Mismatches are the golden outputs that differ from what the case gives (for Update:
	// what changed).
	Mismatches []Mismatch
	// Written lists the golden files Update (re)wrote.
	Written []string
}

// Report is the outcome of Check or Update over a corpus.
type Report struct {
	Dir     string
	Update  bool
	Results []*CaseResult
}

// Count returns how many cases had outcome o.
func (r *Report) Count(o Outcome) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == o {
			n++
		}
	}
	return n
}

// Check builds every selected case in a fresh scratch store (Options.NewStore), evaluates it opts.Runs times
// under varying settings, and compares bundle digest, verdict and receipt with the golden
// files, byte for byte. Nothing is written. The error is for a corpus that cannot be used at
// all; each case's own problems are in its CaseResult.
func (c *Corpus) Check(ctx context.Context, opts Options) (*Report, error) {
	return c.run(ctx, opts, false)
}

// Update is Check that rewrites every golden output that differs (atomically, file by file)
// and reports which changed. A case whose evaluations diverge is not written: its verdict has
// no single value to record.
func (c *Corpus) Update(ctx context.Context, opts Options) (*Report, error) {
	return c.run(ctx, opts, true)
}

func (c *Corpus) run(ctx context.Context, opts Options, update bool) (*Report, error) {
	if opts.NewStore == nil {
		return nil, errors.New("golden: Options.NewStore is nil")
	}
	cases, err := c.Select(opts.Cases)
	if err != nil {
		return nil, err
	}
	if opts.Shared != "" {
		// A mistyped location would otherwise skip every case that needs it, silently.
		if info, err := os.Stat(opts.Shared); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a directory", ErrShared, opts.Shared)
		}
	}
	rep := &Report{Dir: c.Dir, Update: update}
	// Cases run one after the other: the determinism proof changes GOMAXPROCS of the process.
	for _, cs := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, c.runCase(ctx, cs, opts, update))
	}
	return rep, nil
}

// runCase builds, evaluates and compares (or writes) one case.
func (c *Corpus) runCase(ctx context.Context, cs *Case, opts Options, update bool) *CaseResult {
	res := &CaseResult{Case: cs}
	got, result, err := c.evaluate(ctx, cs, opts, res)
	var skip *skipped
	switch {
	case errors.As(err, &skip):
		res.Outcome, res.Reason = Skipped, skip.reason
		return res
	case err != nil:
		res.Outcome, res.Err = Failed, err
		return res
	case res.Divergence != nil:
		res.Outcome = Mismatched
		return res
	}
	res.Outcome = OK
	for _, suffix := range outputs {
		file := c.goldenPath(cs, suffix)
		want, err := readGolden(file)
		if err != nil {
			res.Outcome, res.Err = Failed, err
			return res
		}
		if bytes.Equal(want, got[suffix]) {
			continue
		}
		res.Mismatches = append(res.Mismatches, compare(cs.Name+suffix, suffix, want, got[suffix]))
		if !update {
			res.Outcome = Mismatched
			continue
		}
		if err := writeGolden(file, got[suffix]); err != nil {
			res.Outcome, res.Err = Failed, err
			return res
		}
		res.Written = append(res.Written, cs.Name+suffix)
		res.Outcome = Updated
	}
	if err := c.signature(cs, res, result, opts, update); err != nil {
		res.Outcome, res.Err = Failed, err
	}
	return res
}

// signature checks the case's signed receipt against opts.Trusted (Check), or writes it
// with opts.Signer when it differs (Update). Ed25519 signatures are deterministic: the file
// changes only when what it states, or the key, does.
func (c *Corpus) signature(cs *Case, res *CaseResult, result *replay.Result, opts Options, update bool) error {
	file := c.goldenPath(cs, SignatureSuffix)
	name := cs.Name + SignatureSuffix
	switch {
	case update && opts.Signer != nil:
		signed, err := opts.Signer.Sign(attest.NewStatement(result.Predicate()))
		if err != nil {
			return err
		}
		old, err := readGolden(file)
		if err != nil || bytes.Equal(old, signed) {
			return err
		}
		if err := writeGolden(file, signed); err != nil {
			return err
		}
		res.Mismatches = append(res.Mismatches, Mismatch{File: name, Want: present(old), Got: "signed by key " + opts.Signer.KeyID()[:16]})
		res.Written, res.Outcome = append(res.Written, name), Updated
	case !update && opts.Trusted != nil:
		data, err := readGolden(file)
		if err != nil {
			return err
		}
		if data == nil {
			res.Mismatches = append(res.Mismatches, Mismatch{File: name, Want: absent, Got: "a signature is required",
				Note: "golden update --sign KEY writes it"})
			res.Outcome = Mismatched
			return nil
		}
		st, err := opts.Trusted.Verify(data)
		if err == nil {
			err = st.Check(result.Expect())
		}
		if err != nil {
			res.Mismatches = append(res.Mismatches, Mismatch{File: name, Want: "signed by key " + opts.Trusted.KeyID()[:16], Got: "not valid", Note: err.Error()})
			res.Outcome = Mismatched
		}
	}
	return nil
}

// present summarises a golden file that may be absent.
func present(b []byte) string {
	if b == nil {
		return absent
	}
	return store.Sum(b).Short()
}

// evaluate builds the case in a fresh scratch store and evaluates it, returning the bytes
// each golden file should hold.
func (c *Corpus) evaluate(ctx context.Context, cs *Case, opts Options, res *CaseResult) (map[string][]byte, *replay.Result, error) {
	s, err := opts.NewStore()
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	d, err := build(ctx, s, c.Dir, opts.Shared, cs)
	if err != nil {
		return nil, nil, err
	}
	res.Bundle = d
	b, err := replay.Load(ctx, s, d)
	if err != nil {
		return nil, nil, err
	}
	runs := opts.Runs
	if runs < 2 {
		runs = DefaultRuns
	}
	rr, err := b.Repeat(ctx, replay.RepeatOptions{Runs: runs})
	if err != nil {
		return nil, nil, err
	}
	res.Runs, res.Divergence = rr.Runs, rr.Divergence
	first := rr.First
	res.Verdict, res.Receipt, res.Overall = first.Receipt.Verdict, first.Receipt.Digest, first.Verdict.Overall
	return map[string][]byte{
		BundleSuffix:  []byte(d.String() + "\n"),
		VerdictSuffix: first.Canonical,
		ReceiptSuffix: first.Receipt.Canonical,
	}, first, nil
}

// readGolden reads a golden file; a missing one reads as nothing, which differs from any
// output.
func readGolden(file string) ([]byte, error) {
	f, err := inputfile.Open(context.Background(), file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGolden, err)
	}
	defer f.Close()
	data, err := readAtMost(f, maxGoldenSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGolden, file, err)
	}
	return data, nil
}

// maxGoldenSize bounds a golden file: a verdict of thousands of scenarios stays well below it.
const maxGoldenSize = 256 << 20

// writeGolden replaces file with data: written to a temporary file of the same directory,
// synced, then renamed, so an interrupted update leaves the old file or the new one.
func writeGolden(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrGolden, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, 0o644)
	}
	if werr == nil {
		werr = os.Rename(name, file)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("%w: %s: %w", ErrGolden, file, werr)
	}
	return nil
}

// readAtMost reads r to the end, failing beyond limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}
