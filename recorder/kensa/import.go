package kensa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrImport: a .kensa directory cannot be imported.
var ErrImport = errclass.New(errclass.Input, "kensa: import")

// ErrOutside: a file an import would read leads, through a symbolic link or its recorded path,
// outside the directory being imported.
var ErrOutside = errclass.New(errclass.Input, "kensa: outside the directory imported")

// Imported is one sealed run of an import.
type Imported struct {
	Bundle   store.Digest `json:"bundle"`
	Scenario string       `json:"scenario"`
	RunID    string       `json:"run_id"`
}

// maxFile bounds the files an import reads whole (scenarios, manifests, results, traces): the
// document model's limit (doc.DefaultLimits.MaxBytes), checked before a file is read, so that a
// larger one costs nothing to refuse.
const maxFile = 32 << 20

// KensaRoot returns the .kensa directory of dir: dir itself when it holds scenarios/ or runs/,
// else dir/.kensa.
func KensaRoot(dir string) (string, error) {
	for _, cand := range []string{dir, filepath.Join(dir, ".kensa")} {
		for _, sub := range []string{"scenarios", "runs"} {
			if st, err := os.Stat(filepath.Join(cand, sub)); err == nil && st.IsDir() {
				return cand, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s holds no .kensa directory (scenarios/ or runs/)", ErrImport, dir)
}

// PlanImport reads a .kensa directory and builds every run's record, validating everything
// before anything is written: an import either seals every run or fails with nothing written
// (the first problem of PlanImportAll is the error).
func PlanImport(dir string) ([]*Record, error) {
	p, err := PlanImportAll(dir, false)
	if err != nil {
		return nil, err
	}
	if len(p.Problems) > 0 {
		return nil, p.Problems[0]
	}
	return p.Records, nil
}

// ImportPlan is what an import of a .kensa directory will seal, and what it could not read.
type ImportPlan struct {
	Records []*Record
	// Problems are the files that could not be read or used, each with its path and reason;
	// the runs they hold (or, for a trace, the run it belongs to, recorded as Kensa records a
	// run whose trace it could not read) are left out or marked, every other run is planned.
	Problems []*Problem
	// Warnings are what Kensa accepts and a strict reader refuses (fkensa.Scenario.Warnings).
	Warnings []error
	// Relocated counts traces not found at the path Kensa recorded but inside the directory
	// imported (a .kensa directory renamed or moved, e.g. a CI artifact unpacked elsewhere).
	Relocated int
	// Planned counts the records planned (handed to ImportStream's seal).
	Planned int
}

// Problem is a file an import could not read or use.
type Problem struct {
	// File is its path, Runs how many runs it held that are not imported (0 when the runs are
	// imported anyway, as for a trace that is missing).
	File string
	Runs int
	Err  error
}

func (p *Problem) Error() string {
	if p.Runs > 0 {
		return fmt.Sprintf("%s: %v (%d run(s) not imported)", p.File, p.Err, p.Runs)
	}
	return fmt.Sprintf("%s: %v", p.File, p.Err)
}

func (p *Problem) Unwrap() error { return p.Err }

// PlanImportAll reads a .kensa directory and builds the record of every run it can read. One
// file that cannot be read (a manifest, a scenario, a results file, a trace) never loses the
// others: it is a Problem naming it, and every other run is planned. With strict, a scenario
// with warnings is a problem too. Only a directory with no .kensa directory, or with no run
// at all, is an error.
func PlanImportAll(dir string, strict bool) (*ImportPlan, error) {
	var records []*Record
	p, err := ImportStream(context.Background(), dir, strict, 1<<30, func(batch []*Record) error {
		records = append(records, batch...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.Records = records
	return p, nil
}

// ImportStream is PlanImportAll for directories of any size: it hands the records to seal in
// batches of at most batch, in plan order, as it reads them (manifests and results files a run
// at a time, a trace per run), so that only one batch is held in memory; an error seal
// returns stops it. The plan it returns has the problems and warnings, not the records.
// Every file is read under the input policy (inputs.go): from inside the .kensa directory
// only, regular files only, each within MaxInputFile, reads ending with ctx.
func ImportStream(ctx context.Context, dir string, strict bool, batch int, seal func([]*Record) error) (*ImportPlan, error) {
	root, err := KensaRoot(dir)
	if err != nil {
		return nil, err
	}
	in, err := openRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	base := filepath.Dir(root) // Kensa's paths (trace_path) are relative to where it ran
	l := &loader{root: root, in: in, defs: map[string]*Definition{}, defErr: map[string]error{}, strict: strict, plan: &ImportPlan{}}
	manifests, err := l.manifestNames()
	if err != nil {
		return nil, err
	}
	var pending []*Record
	planned := 0
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := seal(pending)
		pending = nil
		return err
	}
	emit := func(r *Record) error {
		planned++
		if pending = append(pending, r); len(pending) >= batch {
			return flush()
		}
		return nil
	}
	for _, name := range manifests {
		mp := in.Path(name)
		if err := l.manifest(base, mp, emit); err != nil {
			var stop sealError
			if errors.As(err, &stop) {
				return nil, stop.err
			}
			l.problem(mp, 0, err)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if planned == 0 && len(l.plan.Problems) == 0 {
		return nil, fmt.Errorf("%w: %s: no recorded runs in runs/", ErrImport, root)
	}
	l.plan.Planned = planned
	return l.plan, nil
}

// sealError carries an error of ImportStream's seal through the manifest reader, which stops.
type sealError struct{ err error }

func (e sealError) Error() string { return e.err.Error() }

// problem records a file that could not be used; runs is how many runs it cost.
func (l *loader) problem(file string, runs int, err error) {
	l.plan.Problems = append(l.plan.Problems, &Problem{File: file, Runs: runs, Err: err})
}

// Import seals every record of PlanImport at once (SealAll: one sync, the bundle refs in one
// write), tagging the last with each tag.
func Import(ctx context.Context, s Writer, records []*Record, version string, tags ...string) ([]Imported, error) {
	var tagOf func(*Record) []string
	if len(tags) > 0 {
		tagOf = func(*Record) []string { return tags }
	}
	digests, err := SealAll(ctx, s, records, version, tagOf)
	if err != nil {
		return nil, err
	}
	out := make([]Imported, len(records))
	for i, r := range records {
		out[i] = Imported{Bundle: digests[i], Scenario: r.Definition.Scenario.ID, RunID: r.RunID}
	}
	return out, nil
}

type loader struct {
	root string
	in   *inputfile.Root // root, read under the input policy (inputs.go)
	defs map[string]*Definition
	// defErr is why a scenario's definition could not be loaded, by scenario id.
	defErr map[string]error
	strict bool
	plan   *ImportPlan
	// runIDs is the manifest that brought each run id; conflicts the manifests refused for
	// bringing one already seen (runids.go).
	runIDs    map[string]string
	conflicts map[string]*Problem
}

// definition loads scenarios/<id>.yaml (Kensa's judge finds a scenario by its file name),
// its judge spec and dataset; nil when there is no such file.
func (l *loader) definition(id string) (*Definition, error) {
	if d, ok := l.defs[id]; ok {
		return d, l.defErr[id]
	}
	def, err := l.loadDefinition(id)
	if err != nil {
		def = nil
	}
	l.defs[id], l.defErr[id] = def, err
	return def, err
}

func (l *loader) loadDefinition(id string) (*Definition, error) {
	var def *Definition
	for _, ext := range []string{".yaml", ".yml"} {
		rel := "scenarios/" + id + ext
		data, err := l.read(rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc, err := fkensa.ParseScenario(filepath.Join(l.root, filepath.FromSlash(rel)), data)
		if err != nil {
			return nil, err
		}
		if l.plan != nil {
			l.plan.Warnings = append(l.plan.Warnings, sc.Warnings...)
		}
		if l.strict {
			if err := sc.StrictError(); err != nil {
				return nil, err
			}
		}
		def = &Definition{Scenario: sc, ScenarioPath: rel, Files: map[string][]byte{rel: data}}
		if err := l.addJudgeAndDataset(def); err != nil {
			return nil, err
		}
		break
	}
	return def, nil
}

func (l *loader) addJudgeAndDataset(def *Definition) error {
	sc := def.Scenario
	if sc.Judge != nil {
		rel := "judges/" + *sc.Judge + ".yaml"
		data, err := l.read(rel)
		if err != nil {
			return fmt.Errorf("%w: %s: judge %q: %v", ErrImport, sc.File, *sc.Judge, err)
		}
		if _, err := fkensa.ParseJudgeSpec(rel, data); err != nil {
			return err
		}
		def.Files[rel] = data
	}
	if sc.Dataset != "" {
		rel := path.Join("scenarios", sc.Dataset)
		data, err := l.readDataset(sc.Dataset)
		if err != nil {
			return fmt.Errorf("%w: %s: dataset: %v", ErrImport, sc.File, err)
		}
		def.Files[rel] = data
	}
	return nil
}

// manifest builds the records of one run manifest, a run at a time, pairing each run with its
// result in the order Kensa's judge wrote them (manifest order, skipping scenarios it could not
// find), and hands each to emit.
func (l *loader) manifest(base, mp string, emit func(*Record) error) error {
	runs, f, err := l.openStream("runs/" + filepath.Base(mp))
	if err != nil {
		return err
	}
	defer f.Close()
	// Kensa names a manifest and its results file by the run id.
	results, rp, err := l.results(strings.TrimSuffix(filepath.Base(mp), ".json"))
	if err != nil {
		// The runs are imported without the results Kensa recorded: nothing to audit them by.
		l.problem(rp, 0, fmt.Errorf("%w: the runs of %s are imported without Kensa's results", err, filepath.Base(mp)))
		results = nil
	}
	if results != nil {
		defer results.close()
	}
	lost := map[string]*Problem{}
	index := map[string]int{}
	paired := 0
	m, err := fkensa.StreamRunManifest(mp, runs, func(m *fkensa.RunManifest, id string, run fkensa.ScenarioRun) error {
		runs.reset()
		if l.claimed(m, mp) {
			return nil // another manifest's run id (runids.go)
		}
		i := index[id]
		index[id]++
		if m.Kind != "eval" {
			return nil
		}
		def, err := l.definition(id)
		switch {
		case err != nil && lost[id] == nil:
			lost[id] = &Problem{File: filepath.Join(l.root, "scenarios", id+".yaml"), Err: err}
			l.plan.Problems = append(l.plan.Problems, lost[id])
		case err == nil && def == nil && lost[id] == nil:
			// Kensa's judge skips a scenario without a file, and records no result for it.
			lost[id] = &Problem{File: mp, Err: fmt.Errorf("%w: scenario %q has no file scenarios/%s.yaml", ErrImport, id, id)}
			l.plan.Problems = append(l.plan.Problems, lost[id])
		}
		if def == nil && err == nil {
			lost[id].Runs++
			return nil
		}
		res, rerr := results.next(id)
		if rerr != nil {
			l.problem(rp, 0, fmt.Errorf("%w: imported without Kensa's results from here on", rerr))
			results.close()
			results = nil
		}
		if res != nil {
			paired++
		} else if results != nil && def != nil {
			l.problem(rp, 0, fmt.Errorf("%w: no result for scenario %s, run %d of the manifest: imported without Kensa's result", ErrImport, id, i+1))
		}
		if def == nil {
			lost[id].Runs++
			return nil
		}
		r, err := l.record(base, m, def, i, run)
		if err != nil {
			return err
		}
		if res != nil {
			r.Claimed = res.Text
			if err := attachJudgeResult(r, res.Value); err != nil {
				return fmt.Errorf("%w: %s: result %d: %v", ErrImport, rp, paired-1, err)
			}
		}
		if err := emit(r); err != nil {
			return sealError{err}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if l.refused(mp) {
		return nil
	}
	if results != nil {
		if extra, err := results.rest(); err != nil || extra > 0 {
			l.problem(rp, 0, fmt.Errorf("%w: %d results for %d runs of %s: the others are not paired (%v)", ErrImport, paired+extra, paired, filepath.Base(mp), err))
		}
	}
	if m.Kind == "eval" && m.RunID != strings.TrimSuffix(filepath.Base(mp), ".json") && results != nil {
		l.problem(mp, 0, fmt.Errorf("%w: run id %s is not the file's name: its results were looked for by the name", ErrImport, m.RunID))
	}
	return nil
}

// resultReader reads a results file a result at a time, looking one ahead.
type resultReader struct {
	f       io.Closer
	w       *window
	s       *fkensa.ResultStream
	pending *fkensa.Result
}

// next returns the next result when it is for scenario id (nil otherwise: Kensa recorded none
// for this run), consuming it.
func (r *resultReader) next(id string) (*fkensa.Result, error) {
	if r == nil {
		return nil, nil
	}
	if r.pending == nil {
		r.w.reset()
		res, err := r.s.Next()
		if err != nil || res == nil {
			return nil, err
		}
		r.pending = res
	}
	if r.pending.ScenarioID != id {
		return nil, nil
	}
	res := r.pending
	r.pending = nil
	return res, nil
}

// rest counts the results left.
func (r *resultReader) rest() (int, error) {
	n := 0
	if r.pending != nil {
		n++
	}
	for {
		r.w.reset()
		res, err := r.s.Next()
		if err != nil || res == nil {
			return n, err
		}
		n++
	}
}

func (r *resultReader) close() {
	if r != nil {
		r.f.Close()
	}
}

// results opens results/<run id>.json: nil when there is none (Kensa's judge has not run).
func (l *loader) results(runID string) (*resultReader, string, error) {
	rp := filepath.Join(l.root, "results", runID+".json")
	w, f, err := l.openStream("results/" + runID + ".json")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, rp, nil
	case err != nil:
		return nil, rp, err
	}
	return &resultReader{f: f, w: w, s: fkensa.NewResultStream(rp, w)}, rp, nil
}

func (l *loader) record(base string, m *fkensa.RunManifest, def *Definition, i int, run fkensa.ScenarioRun) (*Record, error) {
	r := &Record{
		Definition: def, RunID: m.RunID, Input: run.Input, HasInput: !run.Input.IsNull(),
		Exit:      store.KensaExit{Code: int(run.ExitCode)},
		Stdout:    Captured{Data: []byte(run.Stdout), Total: int64(len(run.Stdout))},
		Stderr:    Captured{Data: []byte(run.Stderr), Total: int64(len(run.Stderr))},
		TracePath: run.TracePath, ClaimedRun: []byte(pyvalue.DumpsCompact(run.Raw)),
		NonScoring: map[string]string{"timestamp": m.Timestamp, "duration_seconds": pyvalue.FloatRepr(run.DurationSeconds)},
	}
	if def.Scenario.Dataset != "" {
		r.Case = i + 1
		if run.DatasetRow.Kind() == pyvalue.KindDict {
			r.Row = &fkensa.Row{Number: i + 1, Value: run.DatasetRow}
		}
	}
	if run.TracePath == "" {
		r.Exit.Error = run.Stderr
		return r, nil
	}
	tp := run.TracePath
	if !filepath.IsAbs(tp) {
		tp = filepath.Join(base, filepath.FromSlash(tp))
	}
	data, err := l.readTrace(tp)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrOutside) {
		if moved := l.relocate(run.TracePath); moved != "" {
			if data, err = l.readTrace(moved); err == nil {
				l.plan.Relocated++
			}
		}
	}
	if err != nil {
		// Kensa records this run as an error ("Failed to read trace"); so does the evidence,
		// and the import says so.
		r.Findings = append(r.Findings, store.Finding{Code: "trace_unreadable", Severity: store.SeverityError,
			Scenario: def.Scenario.ID, File: run.TracePath, Message: err.Error()})
		l.problem(tp, 0, fmt.Errorf("%w: the trace of run %d of scenario %s (run %s) cannot be read: %v; imported as Kensa records such a run, an error", ErrImport, i+1, def.Scenario.ID, m.RunID, err))
		return r, nil
	}
	r.Trace = data
	return r, nil
}

// relocate is where, inside the directory imported, the trace Kensa recorded at recorded is
// when that path does not exist (the directory was renamed or moved): the part of the path
// after its last ".kensa" element, else traces/<file name>; "" when neither is a file.
func (l *loader) relocate(recorded string) string {
	parts := strings.Split(filepath.ToSlash(recorded), "/")
	var cands []string
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".kensa" {
			cands = append(cands, path.Join(parts[i+1:]...))
			break
		}
	}
	cands = append(cands, path.Join("traces", parts[len(parts)-1]))
	for _, c := range cands {
		if c == "" || c == "." || !filepath.IsLocal(filepath.FromSlash(c)) {
			continue
		}
		p := filepath.Join(l.root, filepath.FromSlash(c))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// attachJudgeResult records the judge_result of a Kensa result as a judgement.
func attachJudgeResult(r *Record, result pyvalue.Value) error {
	jr, ok := result.Get("judge_result")
	if !ok || jr.IsNull() {
		return nil
	}
	if jr.Kind() != pyvalue.KindDict {
		return errors.New("judge_result is not an object")
	}
	label := "fail"
	if v, ok := jr.Get("verdict"); ok && !v.IsNull() {
		label = pyvalue.Str(v)
	} else if p, _ := jr.Get("passed"); func() bool { b, _ := p.AsBool(); return b }() {
		label = "pass"
	}
	if label != "pass" && label != "fail" && label != "uncertain" {
		label = "fail"
	}
	r.Judgement = &store.KensaJudgement{Source: "kensa", Label: label}
	r.JudgeAnswer = []byte(pyvalue.DumpsCompact(jr))
	r.JudgeAnswerType = store.MediaTypeKensaJudgeResult
	return nil
}

// ScenarioFiles lists scenario files of a scenarios directory, sorted as Kensa sorts them.
func ScenarioFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}
