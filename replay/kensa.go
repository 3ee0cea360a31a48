package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/oasis-replay/oasis-replay/attest"
	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// KensaBundle is a Kensa run bundle loaded for evaluation.
type KensaBundle struct {
	Digest   store.Digest
	Manifest *store.KensaRun
	Evidence *ekensa.Evidence
	// Definition is the scenario's definition tree as a receipt names it: the tree object's
	// kind, the scenario id, the definition's version and its digest.
	Definition attest.Definition
	// Claimed is the result Kensa recorded for the run (imports), nil otherwise.
	Claimed *pyvalue.Value
}

// KensaResult is the evaluation of a Kensa bundle, with its receipt.
type KensaResult struct {
	Result    *ekensa.Result
	Canonical []byte
	Verdict   store.Digest
	Receipt   Receipt
	// Predicate is the signable form of Receipt (package attest).
	Predicate attest.Predicate
}

// BlobReader reads blobs and objects; every store.Store is one.
type BlobReader interface {
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
}

// LoadKensa reads the bundle d of a Kensa run and everything its evaluation needs.
func LoadKensa(ctx context.Context, s BlobReader, d store.Digest) (*KensaBundle, error) {
	mb, err := s.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, err)
	}
	var m store.KensaRun
	if err := store.Decode(mb, &m); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, err)
	}
	l := kensaLoader{ctx: ctx, s: s}
	ev, err := l.evidence(&m)
	if err != nil {
		return nil, fmt.Errorf("bundle %s (%s): %w", d.Short(), m.Scenario, err)
	}
	ev.Digest = m.Evidence
	b := &KensaBundle{Digest: d, Manifest: &m, Evidence: ev, Definition: l.definition}
	if m.Claimed != nil {
		raw, err := l.blob(*m.Claimed)
		if err != nil {
			return nil, err
		}
		v, err := pyvalue.Loads("claimed result", raw)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: claimed result: %w", d.Short(), err)
		}
		b.Claimed = &v
	}
	return b, nil
}

// Evaluate derives the run's verdict and its receipt: the bundle, its definition tree, this
// evaluator (ekensa.Info) and the verdict.
func (b *KensaBundle) Evaluate() (*KensaResult, error) {
	r := ekensa.Evaluate(b.Evidence)
	canonical, digest, err := r.Encode()
	if err != nil {
		return nil, fmt.Errorf("replay: verdict of %s: %w", b.Digest.Short(), err)
	}
	receipt, err := EncodeReceipt(store.Receipt{Bundle: b.Digest, BundleKind: store.KindKensaRun,
		Profile: b.Manifest.DefinitionTree, Evaluator: ekensa.Info(), Verdict: digest})
	if err != nil {
		return nil, err
	}
	return &KensaResult{Result: r, Canonical: canonical, Verdict: digest, Receipt: receipt,
		Predicate: receipt.Predicate(b.Definition)}, nil
}

// RepeatKensa evaluates the Kensa bundle d runs times and proves that every evaluation gives
// the first one's verdict byte for byte, or reports the first that does not. Every run after
// the first loads the bundle again from s — scenario, dataset row, trace and judgement parsed
// anew — under GOMAXPROCS 1, 2, 4, 8 in turn, so that nothing but the stored evidence reaches
// the verdict. It returns the first evaluation and the divergence (nil when every run
// reproduced it).
func RepeatKensa(ctx context.Context, s BlobReader, d store.Digest, runs int) (*KensaBundle, *KensaResult, *Divergence, error) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var first *KensaResult
	var firstBundle *KensaBundle
	var baseline Setting
	for k := 1; k <= max(runs, 1); k++ {
		set := Setting{Run: k, GOMAXPROCS: procsCycle[(k-1)%len(procsCycle)], Workers: 1}
		runtime.GOMAXPROCS(set.GOMAXPROCS)
		b, err := LoadKensa(ctx, s, d)
		var res *KensaResult
		if err == nil {
			res, err = b.Evaluate()
		}
		switch {
		case k == 1 && err != nil:
			return nil, nil, nil, err
		case k == 1:
			firstBundle, first, baseline = b, res, set
		case err != nil:
			return firstBundle, first, &Divergence{Baseline: baseline, Setting: set, Want: first.Verdict, Err: err}, nil
		case !bytes.Equal(res.Canonical, first.Canonical):
			dv := &Divergence{Baseline: baseline, Setting: set, Want: first.Verdict, Got: res.Verdict}
			dv.Differences, dv.Truncated, dv.Err = verdictDiff(first.Canonical, res.Canonical)
			if len(dv.Differences) > 0 {
				dv.Field = dv.Differences[0].Path
			}
			return firstBundle, first, dv, nil
		}
	}
	return firstBundle, first, nil, nil
}

type kensaLoader struct {
	ctx context.Context
	s   BlobReader
	// definition is filled by evidence from the definition tree.
	definition attest.Definition
}

// maxEvidenceBlob bounds what replay reads into memory from one blob.
const maxEvidenceBlob = 1 << 30

func (l *kensaLoader) blob(desc store.Descriptor) ([]byte, error) {
	rc, _, err := l.s.OpenBlob(l.ctx, desc.Digest)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxEvidenceBlob))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", desc.Digest, err)
	}
	return b, nil
}

func (l *kensaLoader) text(o *store.Output) (string, error) {
	if o == nil {
		return "", nil
	}
	b, err := l.blob(o.Blob)
	return string(b), err
}

func (l *kensaLoader) json(desc *store.Descriptor) (pyvalue.Value, error) {
	if desc == nil {
		return pyvalue.Value{}, nil
	}
	b, err := l.blob(*desc)
	if err != nil {
		return pyvalue.Value{}, err
	}
	return pyvalue.Loads(desc.Digest.String(), b)
}

func (l *kensaLoader) evidence(run *store.KensaRun) (*ekensa.Evidence, error) {
	eb, err := l.s.GetObject(l.ctx, run.Evidence)
	if err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	var m store.KensaEvidence
	if err := store.Decode(eb, &m); err != nil {
		return nil, fmt.Errorf("evidence %s: %w", run.Evidence.Short(), err)
	}
	if m.Definition != run.DefinitionTree || m.ScenarioFile != run.ScenarioFile || m.Scenario != run.Scenario || m.Case != run.Case {
		return nil, fmt.Errorf("%w: the manifest names definition %s, %s, scenario %s case %d; its evidence %s names %s, %s, %s case %d",
			store.ErrCorrupt, run.DefinitionTree.Short(), run.ScenarioFile, run.Scenario, run.Case,
			run.Evidence.Short(), m.Definition.Short(), m.ScenarioFile, m.Scenario, m.Case)
	}
	tb, err := l.s.GetObject(l.ctx, m.Definition)
	if err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	tree, err := store.DecodeProfileTree(tb)
	if err != nil {
		return nil, err
	}
	l.definition = attest.Definition{Kind: string(store.KindProfileTree), ID: tree.ProfileID, Version: tree.Version, Digest: m.Definition}
	files := map[string]store.Descriptor{}
	for _, e := range tree.Entries {
		files[e.Path] = e.Blob
	}
	file := func(path string) ([]byte, error) {
		desc, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("definition has no %s", path)
		}
		return l.blob(desc)
	}
	data, err := file(m.ScenarioFile)
	if err != nil {
		return nil, err
	}
	sc, err := fkensa.ParseScenario(m.ScenarioFile, data)
	if err != nil {
		return nil, err
	}
	ev := &ekensa.Evidence{Scenario: sc, Case: m.Case, ExitCode: m.Exit.Code, RunError: m.Exit.Error}
	if sc.Judge != nil {
		jb, err := file("judges/" + *sc.Judge + ".yaml")
		if err != nil {
			return nil, err
		}
		if ev.JudgeSpec, err = fkensa.ParseJudgeSpec("judges/"+*sc.Judge+".yaml", jb); err != nil {
			return nil, err
		}
	}
	if ev.Input, err = l.json(m.Input); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	if ev.Row, err = l.json(m.DatasetRow); err != nil {
		return nil, fmt.Errorf("dataset row: %w", err)
	}
	if ev.Stdout, err = l.text(m.Stdout); err != nil {
		return nil, err
	}
	if ev.Stderr, err = l.text(m.Stderr); err != nil {
		return nil, err
	}
	ev.Stdout, ev.Stderr = fkensa.RunStdout(ev.Stdout), fkensa.RunStderr(ev.Stderr)
	ev.TracePath = m.TracePath
	if m.Trace != nil {
		ev.HasTrace = true
		raw, err := l.blob(*m.Trace)
		if err != nil {
			return nil, err
		}
		name := ev.TracePath
		if name == "" {
			name = "trace"
		}
		if ev.Spans, err = fkensa.ReadTrace(name, raw); err != nil {
			ev.TraceError = err.Error()
		}
	} else if ev.TracePath != "" {
		ev.HasTrace, ev.TraceError = true, "the trace file could not be read when the run was recorded"
	}
	if m.Judgement != nil {
		if ev.Judgement, err = l.judgement(*m.Judgement); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

func (l *kensaLoader) judgement(desc store.Descriptor) (*ekensa.Judgement, error) {
	b, err := l.s.GetObject(l.ctx, desc.Digest)
	if err != nil {
		return nil, fmt.Errorf("judgement: %w", err)
	}
	var j store.KensaJudgement
	if err := store.Decode(b, &j); err != nil {
		return nil, err
	}
	out := &ekensa.Judgement{Source: j.Source, Model: j.Model}
	if j.Exit.Code != 0 || j.Exit.TimedOut || j.Exit.Error != "" {
		out.Failed = j.Exit.Error
		if out.Failed == "" {
			out.Failed = fmt.Sprintf("judge command exited with code %d", j.Exit.Code)
		}
	}
	if j.Prompt != nil {
		p, err := l.blob(*j.Prompt)
		if err != nil {
			return nil, err
		}
		out.Prompt = string(p)
	}
	a, err := l.blob(j.Answer)
	if err != nil {
		return nil, err
	}
	out.Answer = string(a)
	return out, nil
}
