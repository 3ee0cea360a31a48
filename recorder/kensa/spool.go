package kensa

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// A kensa run spool (see doc.go, "Crash safety") is a directory holding:
//
//	kensa-spool        the marker, locked (flock) by the kensa run writing the spool
//	defs/<sha256>.json the definitions of the runs (scenario, judge, dataset, prices)
//	run-NNNNNN/        one run: its captured streams, span sources and trace, and, once the
//	                   run finished, record.json, what sealing it needs
//
// A finished run is sealed from its record and its files, and its directory removed; a run
// directory without record.json was in flight and cannot be recorded.
const (
	SpoolMarker  = "kensa-spool"
	SpoolPrefix  = "kensa-" // spools kensa run makes under the store's journals directory
	recordFile   = "record.json"
	spoolDefsDir = "defs"
	// spoolVersion is the format of record.json and the definitions; a spool of another
	// version is not recovered.
	spoolVersion = 1
)

// Errors of spools.
var (
	// ErrSpoolInUse: a running kensa run holds the spool.
	ErrSpoolInUse = errclass.New(errclass.InUse, "kensa: spool in use by a running kensa run")
	// ErrSpool: a spool cannot be read or recovered.
	ErrSpool = errclass.New(errclass.Input, "kensa: spool")
)

// NewSpoolDir names a new spool directory under root: the UTC time, the process id and random
// digits, so spools sort in the order they were started and two never share a name.
func NewSpoolDir(root string) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(root, fmt.Sprintf("%s%s-%d-%s", SpoolPrefix, time.Now().UTC().Format("20060102T150405Z"), os.Getpid(), hex.EncodeToString(b[:])))
}

// spoolLock is the lock of a spool held by the kensa run writing it.
type spoolLock struct{ f *os.File }

// lockSpool creates dir and its marker if needed and locks the marker: ErrSpoolInUse while
// another process holds it. The lock dies with its process.
func lockSpool(dir string) (*spoolLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	marker := filepath.Join(dir, SpoolMarker)
	f, err := os.OpenFile(marker, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		// A new spool: the marker appears already locked (locked under another name, then
		// renamed), so a recovery listing spools meanwhile never takes it for a dead one.
		if f, err = os.CreateTemp(dir, SpoolMarker+".tmp-*"); err != nil {
			return nil, err
		}
		if err = flock(f); err == nil {
			if err = os.Rename(f.Name(), marker); err == nil {
				return &spoolLock{f: f}, nil
			}
		}
		_ = os.Remove(f.Name())
		f.Close()
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%w: %s", ErrSpoolInUse, dir)
		}
		return nil, err
	}
	return &spoolLock{f: f}, nil
}

func (l *spoolLock) unlock() {
	if l != nil {
		_ = l.f.Close()
	}
}

// spooledDefinition is a definition as a spool keeps it.
type spooledDefinition struct {
	Version      int               `json:"version"`
	ScenarioFile string            `json:"scenario_file"` // where the scenario was read, for messages
	ScenarioPath string            `json:"scenario_path"`
	Files        map[string][]byte `json:"files"`
}

// spooledRecord is a finished run as a spool keeps it: everything sealing needs but the
// definition (by name) and the input and dataset row (derived again from the definition and
// the case, as Execute derives them); files are named relative to the run's directory.
type spooledRecord struct {
	Version         int                   `json:"version"`
	Definition      string                `json:"definition"`
	RunID           string                `json:"run_id"`
	Case            int                   `json:"case,omitempty"`
	Argv            []string              `json:"argv"`
	Exit            store.KensaExit       `json:"exit"`
	Stdout          spooledStream         `json:"stdout"`
	Stderr          spooledStream         `json:"stderr"`
	Trace           string                `json:"trace,omitempty"`
	SpanSources     []spooledSource       `json:"span_sources,omitempty"`
	Judgement       *store.KensaJudgement `json:"judgement,omitempty"`
	JudgePrompt     []byte                `json:"judge_prompt,omitempty"`
	JudgeAnswer     []byte                `json:"judge_answer,omitempty"`
	JudgeAnswerType string                `json:"judge_answer_type,omitempty"`
	NonScoring      map[string]string     `json:"non_scoring,omitempty"`
	Findings        []store.Finding       `json:"findings,omitempty"`
	Annotations     map[string]string     `json:"annotations,omitempty"`
	Status          string                `json:"status"`
}

type spooledStream struct {
	File      string `json:"file,omitempty"`
	Data      []byte `json:"data,omitempty"`
	Total     int64  `json:"total"`
	Truncated bool   `json:"truncated,omitempty"`
}

type spooledSource struct {
	Path      string `json:"path"`
	MediaType string `json:"media_type"`
	File      string `json:"file"`
}

// keepRecord writes what sealing rec needs into its run directory (record.json, and its
// definition once under defs/), so that a kensa run killed before it sealed rec leaves it to be
// recovered. Writes are atomic (a file renamed into place) and synced: a record that exists is
// whole.
func keepRecord(spool string, rec *Record) error {
	def, err := keepDefinition(spool, rec.Definition)
	if err != nil {
		return err
	}
	rel := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		r, err := filepath.Rel(rec.spool, p)
		if err != nil || strings.HasPrefix(r, "..") {
			return "", fmt.Errorf("%w: %s is outside the run's directory %s", ErrSpool, p, rec.spool)
		}
		return filepath.ToSlash(r), nil
	}
	sr := spooledRecord{Version: spoolVersion, Definition: def, RunID: rec.RunID, Case: rec.Case, Argv: rec.Argv, Exit: rec.Exit,
		Judgement: rec.Judgement, JudgePrompt: rec.JudgePrompt, JudgeAnswer: rec.JudgeAnswer, JudgeAnswerType: rec.JudgeAnswerType,
		NonScoring: rec.NonScoring, Findings: rec.Findings, Annotations: rec.Annotations, Status: rec.Status}
	for _, s := range []struct {
		c   Captured
		dst *spooledStream
	}{{rec.Stdout, &sr.Stdout}, {rec.Stderr, &sr.Stderr}} {
		if s.dst.File, err = rel(s.c.Path); err != nil {
			return err
		}
		s.dst.Data, s.dst.Total, s.dst.Truncated = s.c.Data, s.c.Total, s.c.Truncated
	}
	if rec.Trace != nil && rec.TraceFile == "" {
		return fmt.Errorf("%w: a trace held in memory is not spooled", ErrSpool)
	}
	if sr.Trace, err = rel(rec.TraceFile); err != nil {
		return err
	}
	for _, src := range rec.SpanSources {
		f, err := rel(src.File)
		if err != nil || f == "" {
			return cmpErr(err, fmt.Errorf("%w: span source %s is not a spool file", ErrSpool, src.Path))
		}
		sr.SpanSources = append(sr.SpanSources, spooledSource{Path: src.Path, MediaType: src.MediaType, File: f})
	}
	b, err := json.Marshal(&sr)
	if err != nil {
		return err
	}
	return writeSynced(filepath.Join(rec.spool, recordFile), b)
}

// keepDefinition writes def under the spool's defs/ (once: its name is its digest) and returns
// its name.
func keepDefinition(spool string, def *Definition) (string, error) {
	b, err := json.Marshal(&spooledDefinition{Version: spoolVersion, ScenarioFile: def.Scenario.File, ScenarioPath: def.ScenarioPath, Files: def.Files})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	name := hex.EncodeToString(sum[:]) + ".json"
	p := filepath.Join(spool, spoolDefsDir, name)
	if _, err := os.Stat(p); err == nil {
		return name, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	return name, writeSynced(p, b)
}

// writeSynced writes b to path through a temporary file, synced, renamed into place.
func writeSynced(path string, b []byte) error {
	// A name of its own: runs finishing at once may write the same definition.
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// ListSpools returns the spool directories under root (those holding a SpoolMarker), oldest
// first. A missing root holds none.
func ListSpools(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpool, err)
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if e.IsDir() && IsSpool(dir) {
			out = append(out, dir)
		}
	}
	return out, nil
}

// IsSpool reports whether dir is a kensa run spool.
func IsSpool(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, SpoolMarker))
	return err == nil && st.Mode().IsRegular()
}

// Recovered is what RecoverSpool did with one spool.
type Recovered struct {
	Spool string
	// Records are the runs sealed, Bundles their bundle ids, in the order the runs were
	// started.
	Records []*Record
	Bundles []store.Digest
	// InFlight counts the runs that had not finished: not recorded, their files removed.
	InFlight int
}

// RecoverSpool seals the finished runs a kensa run left in the spool dir (killed, or unable to
// seal them), as it would have sealed them: the same bundles, tagged with their --tag. The
// spool is removed once they are sealed, so recovering twice seals them once. ErrSpoolInUse
// while a running kensa run holds the spool.
func RecoverSpool(ctx context.Context, dir string, version string, open OpenStore) (*Recovered, error) {
	lock, err := lockSpool(dir)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	out := &Recovered{Spool: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpool, err)
	}
	defs := map[string]*Definition{}
	var runDirs []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "run-") {
			continue
		}
		runDir := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(filepath.Join(runDir, recordFile))
		if errors.Is(err, fs.ErrNotExist) {
			out.InFlight++
			runDirs = append(runDirs, runDir)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSpool, err)
		}
		rec, err := readRecord(dir, runDir, b, defs)
		if err != nil {
			return nil, err
		}
		out.Records = append(out.Records, rec)
		runDirs = append(runDirs, runDir)
	}
	if len(out.Records) > 0 {
		err := open(func(s Writer) error {
			var err error
			out.Bundles, err = SealAll(context.WithoutCancel(ctx), s, out.Records, version, func(r *Record) []string {
				if t := r.Annotations[AnnotationTag]; t != "" {
					return []string{ScenarioTag(t, r)}
				}
				return nil
			})
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	for _, d := range runDirs {
		_ = os.RemoveAll(d)
	}
	// The marker goes last: a spool interrupted while it is removed is still found again.
	for _, e := range entries {
		if e.Name() != SpoolMarker {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	if err := os.Remove(filepath.Join(dir, SpoolMarker)); err != nil {
		return out, fmt.Errorf("%w: %v", ErrSpool, err)
	}
	if strings.HasPrefix(filepath.Base(dir), SpoolPrefix) {
		_ = os.Remove(dir) // a spool kensa run named; a --spool directory stays
	}
	return out, nil
}

// readRecord rebuilds the record kept in runDir (b, its record.json), its definition read once
// per spool (defs).
func readRecord(spool, runDir string, b []byte, defs map[string]*Definition) (*Record, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrSpool, filepath.Join(runDir, recordFile), fmt.Sprintf(format, args...))
	}
	var sr spooledRecord
	if err := json.Unmarshal(b, &sr); err != nil {
		return nil, bad("%v", err)
	}
	if sr.Version != spoolVersion {
		return nil, bad("version %d, want %d", sr.Version, spoolVersion)
	}
	def, ok := defs[sr.Definition]
	if !ok {
		var err error
		if def, err = readDefinition(spool, sr.Definition); err != nil {
			return nil, err
		}
		defs[sr.Definition] = def
	}
	file := func(name string) (string, error) {
		if name == "" {
			return "", nil
		}
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return "", bad("file %q is not inside the run's directory", name)
		}
		return filepath.Join(runDir, filepath.FromSlash(name)), nil
	}
	rec := &Record{Definition: def, RunID: sr.RunID, Case: sr.Case, Argv: sr.Argv, Exit: sr.Exit, Judgement: sr.Judgement,
		JudgePrompt: sr.JudgePrompt, JudgeAnswer: sr.JudgeAnswer, JudgeAnswerType: sr.JudgeAnswerType, NonScoring: sr.NonScoring,
		Findings: sr.Findings, Annotations: sr.Annotations, Status: sr.Status, spool: runDir}
	var err error
	for _, s := range []struct {
		src spooledStream
		dst *Captured
	}{{sr.Stdout, &rec.Stdout}, {sr.Stderr, &rec.Stderr}} {
		if s.dst.Path, err = file(s.src.File); err != nil {
			return nil, err
		}
		s.dst.Data, s.dst.Total, s.dst.Truncated = s.src.Data, s.src.Total, s.src.Truncated
		if s.dst.Path == "" && s.dst.Data == nil {
			s.dst.Data = []byte{}
		}
	}
	if rec.TraceFile, err = file(sr.Trace); err != nil {
		return nil, err
	}
	for _, src := range sr.SpanSources {
		f, err := file(src.File)
		if err != nil {
			return nil, err
		}
		rec.SpanSources = append(rec.SpanSources, Source{Path: src.Path, MediaType: src.MediaType, File: f})
	}
	sc := def.Scenario
	if sr.Case > 0 {
		row, err := datasetRow(def, sr.Case)
		if err != nil {
			return nil, bad("%v", err)
		}
		rec.Row = row
	}
	rec.Input, rec.HasInput = inputOf(sc, rec.Row)
	return rec, nil
}

// readDefinition reads the definition name of the spool and parses its scenario again.
func readDefinition(spool, name string) (*Definition, error) {
	p := filepath.Join(spool, spoolDefsDir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpool, err)
	}
	var sd spooledDefinition
	if err := json.Unmarshal(b, &sd); err != nil || sd.Version != spoolVersion {
		return nil, fmt.Errorf("%w: %s: not a definition of version %d (%v)", ErrSpool, p, spoolVersion, err)
	}
	sc, err := fkensa.ParseScenario(sd.ScenarioFile, sd.Files[sd.ScenarioPath])
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSpool, p, err)
	}
	return &Definition{Scenario: sc, ScenarioPath: sd.ScenarioPath, Files: sd.Files}, nil
}

// datasetRow is row number n of def's dataset, read as planScenario reads it.
func datasetRow(def *Definition, n int) (*fkensa.Row, error) {
	sc := def.Scenario
	if sc.Dataset == "" {
		return nil, fmt.Errorf("case %d of a scenario without a dataset", n)
	}
	dpath := path.Join("scenarios", sc.Dataset)
	rows, err := fkensa.ReadDataset(dpath, def.Files[dpath], sc.InputField)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(rows, func(r fkensa.Row) bool { return r.Number == n })
	if i < 0 {
		return nil, fmt.Errorf("no row %s in the dataset", strconv.Itoa(n))
	}
	return &rows[i], nil
}

// inputOf is a run's input: the dataset row's input field when it has one, else the
// scenario's.
func inputOf(sc *fkensa.Scenario, row *fkensa.Row) (pyvalue.Value, bool) {
	input, has := sc.Input, !sc.Input.IsNull()
	if row != nil {
		if v, _ := row.Value.Get(sc.InputField); !v.IsNull() {
			input, has = v, true
		}
	}
	return input, has
}

// releaseSpool ends a kensa run's use of its spool: when every run was sealed, the spool's own
// files go (definitions, the marker); the lock is let go either way.
func releaseSpool(dir string, lock *spoolLock, clean bool) {
	if clean {
		_ = os.RemoveAll(filepath.Join(dir, spoolDefsDir))
		_ = os.Remove(filepath.Join(dir, SpoolMarker))
	}
	lock.unlock()
}
