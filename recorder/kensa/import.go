package kensa

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrImport: a .kensa directory cannot be imported.
var ErrImport = errclass.New(errclass.Input, "kensa: import")

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
// before anything is written: an import either seals every run or fails with nothing written.
func PlanImport(dir string) ([]*Record, error) {
	root, err := KensaRoot(dir)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(root) // Kensa's paths (trace_path) are relative to where it ran
	l := &loader{root: root, defs: map[string]*Definition{}}
	manifests, err := filepath.Glob(filepath.Join(root, "runs", "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(manifests)
	var records []*Record
	for _, mp := range manifests {
		recs, err := l.manifest(base, mp)
		if err != nil {
			return nil, err
		}
		records = append(records, recs...)
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%w: %s: no recorded runs in runs/", ErrImport, root)
	}
	return records, nil
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
	defs map[string]*Definition
}

func readFile(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxFile {
		return nil, fmt.Errorf("%w: %s: %d bytes, more than the %d an import reads", ErrImport, p, st.Size(), maxFile)
	}
	return os.ReadFile(p)
}

// definition loads scenarios/<id>.yaml (Kensa's judge finds a scenario by its file name),
// its judge spec and dataset; nil when there is no such file.
func (l *loader) definition(id string) (*Definition, error) {
	if d, ok := l.defs[id]; ok {
		return d, nil
	}
	var def *Definition
	for _, ext := range []string{".yaml", ".yml"} {
		rel := "scenarios/" + id + ext
		data, err := readFile(filepath.Join(l.root, filepath.FromSlash(rel)))
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
		def = &Definition{Scenario: sc, ScenarioPath: rel, Files: map[string][]byte{rel: data}}
		if err := l.addJudgeAndDataset(def); err != nil {
			return nil, err
		}
		break
	}
	l.defs[id] = def
	return def, nil
}

func (l *loader) addJudgeAndDataset(def *Definition) error {
	sc := def.Scenario
	if sc.Judge != nil {
		rel := "judges/" + *sc.Judge + ".yaml"
		data, err := readFile(filepath.Join(l.root, filepath.FromSlash(rel)))
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
		data, err := readFile(filepath.Join(l.root, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("%w: %s: dataset: %v", ErrImport, sc.File, err)
		}
		def.Files[rel] = data
	}
	return nil
}

// manifest builds the records of one run manifest, pairing each run with its result in the
// order Kensa's judge wrote them (manifest order, skipping scenarios it could not find).
func (l *loader) manifest(base, mp string) ([]*Record, error) {
	data, err := readFile(mp)
	if err != nil {
		return nil, err
	}
	m, err := fkensa.ParseRunManifest(mp, data)
	if err != nil {
		return nil, err
	}
	if m.Kind != "eval" {
		return nil, nil
	}
	var results []fkensa.Result
	rp := filepath.Join(l.root, "results", m.RunID+".json")
	if rd, err := readFile(rp); err == nil {
		if results, err = fkensa.ParseResults(rp, rd); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var records []*Record
	next := 0
	for _, sr := range m.Scenarios {
		def, err := l.definition(sr.ScenarioID)
		if err != nil {
			return nil, err
		}
		if def == nil {
			return nil, fmt.Errorf("%w: %s: scenario %q has no file scenarios/%s.yaml", ErrImport, mp, sr.ScenarioID, sr.ScenarioID)
		}
		for i, run := range sr.Runs {
			r, err := l.record(base, m, def, i, run)
			if err != nil {
				return nil, err
			}
			if results != nil {
				if next >= len(results) || results[next].ScenarioID != sr.ScenarioID {
					return nil, fmt.Errorf("%w: %s: result %d is not for scenario %s, run %d of the manifest", ErrImport, rp, next, sr.ScenarioID, i+1)
				}
				res := results[next]
				r.Claimed = res.Text
				if err := attachJudgeResult(r, res.Value); err != nil {
					return nil, fmt.Errorf("%w: %s: result %d: %v", ErrImport, rp, next, err)
				}
				next++
			}
			records = append(records, r)
		}
	}
	if results != nil && next != len(results) {
		return nil, fmt.Errorf("%w: %s: %d results for %d runs", ErrImport, rp, len(results), next)
	}
	return records, nil
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
	data, err := readFile(tp)
	if err != nil {
		// Kensa records this run as an error ("Failed to read trace"); so does the evidence.
		r.Findings = append(r.Findings, store.Finding{Code: "trace_unreadable", Severity: store.SeverityError,
			Scenario: def.Scenario.ID, File: run.TracePath, Message: err.Error()})
		return r, nil
	}
	r.Trace = data
	return r, nil
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
