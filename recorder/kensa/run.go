package kensa

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/formats/otlp"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/freespace"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/recorder/command"
	"github.com/oasis-replay/oasis-replay/recorder/otlpreceiver"
	"github.com/oasis-replay/oasis-replay/store"
)

// Options configure kensa run.
type Options struct {
	Runs     int
	Timeout  time.Duration
	Tag      string
	RunID    string
	Prices   []byte // the price table file, pinned when given
	JudgeCmd []string
	// JudgeModel is recorded with each judgement (the judge command chooses its model).
	JudgeModel string
	// MaxOutput caps each captured stream (command.DefaultMaxOutput when zero).
	MaxOutput int64
	// Version is the recorder's version, recorded in each bundle.
	Version string
	// Strict refuses a scenario with warnings (fkensa.Scenario.Warnings: what Kensa accepts
	// and a strict reader would not); Warn, when set, hears each warning otherwise.
	Strict bool
	Warn   func(error)

	// spanLimits are the limits of each run's spans (zero: otlpreceiver's defaults); freeSpace
	// measures the spool's file system (nil: freespace.Statfs). Tests set them.
	spanLimits otlpreceiver.Limits
	freeSpace  freespace.Func
}

// Job is one run to execute: a scenario, a dataset row (or none) and a repeat.
type Job struct {
	Definition *Definition
	Dir        string // the project directory: the parent of .kensa, where the command runs
	Row        *fkensa.Row
	Repeat     int
}

// protectedEnv are variables env_overrides may not set (runner._PROTECTED_ENV_VARS).
var protectedEnv = []string{"KENSA_TRACE_DIR", "PATH", "HOME", "USER", "SHELL", "PYTHONPATH", "LD_PRELOAD",
	"LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH"}

// Plan reads the scenarios at paths (a .kensa directory, a scenarios directory, or scenario
// files) and lists the jobs: for each scenario, each dataset row (or once), runs times.
func Plan(paths []string, opts Options) ([]Job, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrImport, err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		dir := p
		if root, err := KensaRoot(p); err == nil {
			dir = filepath.Join(root, "scenarios")
		}
		more, err := ScenarioFiles(dir)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no scenario files in %s", ErrImport, strings.Join(paths, ", "))
	}
	var jobs []Job
	for _, f := range files {
		more, err := planScenario(f, opts)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, more...)
	}
	return jobs, nil
}

func planScenario(file string, opts Options) ([]Job, error) {
	data, err := readScenario(file) // under the input policy (inputs.go)
	if err != nil {
		return nil, err
	}
	sc, err := fkensa.ParseScenario(file, data)
	if err != nil {
		return nil, err
	}
	if opts.Strict {
		if err := sc.StrictError(); err != nil {
			return nil, err
		}
	}
	if opts.Warn != nil {
		for _, w := range sc.Warnings {
			opts.Warn(w)
		}
	}
	scenDir := filepath.Dir(file)
	root := filepath.Dir(scenDir)
	rel := "scenarios/" + filepath.Base(file)
	def := &Definition{Scenario: sc, ScenarioPath: rel, Files: map[string][]byte{rel: data}}
	if opts.Prices != nil {
		def.Files[PricesPath] = opts.Prices
	}
	l, err := planLoader(root)
	if err != nil {
		return nil, err
	}
	defer l.in.Close()
	if err := l.addJudgeAndDataset(def); err != nil {
		return nil, err
	}
	var rows []*fkensa.Row
	if sc.Dataset != "" {
		dpath := path.Join("scenarios", sc.Dataset)
		parsed, err := fkensa.ReadDataset(filepath.Join(root, filepath.FromSlash(dpath)), def.Files[dpath], sc.InputField)
		if err != nil {
			return nil, err
		}
		for i := range parsed {
			rows = append(rows, &parsed[i])
		}
	} else {
		rows = []*fkensa.Row{nil}
	}
	var jobs []Job
	for _, row := range rows {
		for rep := 1; rep <= max(opts.Runs, 1); rep++ {
			jobs = append(jobs, Job{Definition: def, Dir: filepath.Dir(root), Row: row, Repeat: rep})
		}
	}
	return jobs, nil
}

// Execute runs one job, spooling into spool (which must exist), and returns its record; it
// never touches the store.
func Execute(ctx context.Context, job Job, opts Options, spool string) (*Record, error) {
	sc := job.Definition.Scenario
	r := &Record{Definition: job.Definition, RunID: opts.RunID, Row: job.Row, spool: spool,
		Annotations: map[string]string{AnnotationRepeat: strconv.Itoa(job.Repeat)}}
	if opts.Tag != "" {
		r.Annotations[AnnotationTag] = opts.Tag
	}
	r.Input, r.HasInput = inputOf(sc, job.Row)
	if job.Row != nil {
		r.Case = job.Row.Number
	}
	r.Argv = buildArgv(sc.RunCommand, sc.RunCommandText != "", r.Input, r.HasInput)
	dot := loadDotenv(job.Dir)
	if dot.Path != "" {
		r.Findings = append(r.Findings, dotenvFinding(sc.ID, job.Dir, dot))
	}
	if dot.Err != "" {
		// Kensa's runner raises reading it, before the agent starts: an error run.
		r.Exit = store.KensaExit{Code: -1, Error: dot.Err}
		return r, nil
	}
	if len(sc.RunCommand) == 0 {
		r.Exit = store.KensaExit{Code: -1, Error: fkensa.ErrNoRunCommand.Error()}
		return r, nil
	}
	traceDir := filepath.Join(spool, "trace")
	otlpDir := filepath.Join(spool, "otlp")
	for _, d := range []string{traceDir, otlpDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	// One guard for every spool write of the run, one budget for all its span sources.
	space := freespace.New(spool, opts.freeSpace)
	budget := otlpreceiver.NewBudget(opts.spanLimits)
	recv, err := otlpreceiver.Start(otlpDir, otlpreceiver.Config{Budget: budget, Space: space})
	if err != nil {
		return nil, err
	}
	env := runEnv(sc, dot.Vars, traceDir, recv.Endpoint())
	argv := slices.Clone(r.Argv)
	argv[0] = programIn(argv[0], dot.Vars, job.Dir)
	res, err := command.Run(ctx, command.Spec{Argv: argv, Env: env, Dir: job.Dir, Timeout: opts.Timeout, MaxOutput: opts.MaxOutput, SpoolDir: spool, Space: space})
	received := recv.Close()
	if err != nil {
		return nil, err
	}
	if received.SpoolErr != nil {
		return nil, fmt.Errorf("%w: OTLP body: %w", command.ErrSpool, received.SpoolErr)
	}
	bodies, rejected := received.Bodies, received.Rejected
	r.NonScoring = map[string]string{"started": res.Start.UTC().Format(time.RFC3339Nano), "duration_ns": strconv.FormatInt(int64(res.Duration), 10)}
	r.Stdout, r.Stderr = captured(res.Stdout), captured(res.Stderr)
	r.Exit = store.KensaExit{Code: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut}
	r.Interrupted = res.Cancelled
	if res.StartError != "" || res.TimedOut || res.Cancelled || res.Signal != "" {
		r.Exit.Code = -1
	}
	undecodable, err := outputError(res)
	if err != nil {
		return nil, err
	}
	spans, findings, kensaErr, err := collectSpans(r, filepath.Join(traceDir, "spans.jsonl"), bodies, budget, opts)
	if err != nil {
		return nil, err
	}
	limitErr := budget.Err()
	if limitErr != nil {
		findings = append(findings, store.Finding{Code: "spans_limit", Severity: store.SeverityError, Scenario: sc.ID,
			Message: fmt.Sprintf("the agent's spans were not decoded: %v", limitErr)})
	}
	if rejected > 0 {
		findings = append(findings, store.Finding{Code: "otlp_rejected", Severity: store.SeverityWarning, Scenario: sc.ID,
			Message: fmt.Sprintf("%d OTLP requests were refused (wrong path, method, type or size)", rejected)})
	}
	r.Findings = append(r.Findings, findings...)
	switch malformed := firstError(findings); {
	case limitErr != nil:
		// Past a limit nothing was decoded: the run is an error naming the limit, whatever
		// else happened (the span sources received within it are kept).
		r.Exit.Code, r.Exit.Error = -1, fmt.Sprintf("Scenario %s: the agent's spans passed a limit of the run: %v", pyvalue.StrRepr(sc.ID), limitErr)
	case undecodable != "":
		// subprocess.run(text=True) raises decoding the output: Kensa's run is an error whose
		// stderr is the decoder's message, whatever the spans.
		r.Exit.Code, r.Exit.Error = -1, undecodable
	case kensaErr != "":
		// Kensa's runner fails the run with its own error's text (a span time it cannot read).
		r.Exit.Code, r.Exit.Error = -1, kensaErr
	case malformed != "":
		// Kensa's runner fails a run whose span file does not parse; so does the recording,
		// which keeps every span source as it came, for anyone to look at.
		r.Exit.Code, r.Exit.Error = -1, fmt.Sprintf("Scenario %s: the agent's spans could not be read: %s", pyvalue.StrRepr(sc.ID), malformed)
	case len(spans) == 0:
		stderr, err := r.Stderr.tail(500)
		if err != nil {
			return nil, err
		}
		r.Exit.Code, r.Exit.Error = -1, noSpansMessage(sc.ID, res, opts.Timeout, stderr)
	default:
		if r.TraceFile, err = writeTrace(filepath.Join(spool, "trace.kensa"), spans, space); errors.Is(err, errTraceTooLarge) {
			r.TraceFile = ""
			r.Exit.Code, r.Exit.Error = -1, fmt.Sprintf("Scenario %s: the agent's spans passed a limit of the run: %v", pyvalue.StrRepr(sc.ID), err)
		} else if err != nil {
			return nil, err
		}
	}
	if len(opts.JudgeCmd) > 0 && sc.NeedsJudge() {
		if err := judgeRun(ctx, r, job, opts, spool); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// buildArgv is runner._build_command: the input (a dict as json.dumps writes it, anything else
// as str) appended last, every element of a list-form run_command left as it is, a literal
// "{{input}}" included. A run_command written as a string (which Kensa v0.7.0 refuses; the
// scenario format's description writes one) is the format's: where an argument holds
// {{input}}, the input goes there instead of last.
func buildArgv(command []string, fromText bool, input pyvalue.Value, has bool) []string {
	argv := slices.Clone(command)
	if !has {
		return argv
	}
	text := pyvalue.Str(input)
	if input.Kind() == pyvalue.KindDict {
		text = pyvalue.Dumps(input)
	}
	placed := false
	for i, a := range argv {
		if fromText && strings.Contains(a, "{{input}}") {
			argv[i], placed = strings.ReplaceAll(a, "{{input}}", text), true
		}
	}
	if !placed {
		argv = append(argv, text)
	}
	return argv
}

// protocolEnv are the variables that choose an OTLP exporter's protocol (OpenTelemetry SDK
// configuration: the traces one first, then the general one).
var protocolEnv = []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"}

// runEnv is the agent's environment, in Kensa's order (runner.run_scenario): kensa run's, the
// nearest .env's variables (which win over it, the protected ones included, as in Kensa), the
// scenario's env_overrides (but the protected variables), Kensa's trace directory and the
// OTLP receiver's endpoint. The receiver speaks OTLP/HTTP only, so the protocol variables say
// http/protobuf (an SDK's default may be gRPC) unless env_overrides choose one.
func runEnv(sc *fkensa.Scenario, dotenv []EnvPair, traceDir, endpoint string) []string {
	env := os.Environ()
	for _, kv := range dotenv {
		env = append(env, kv.Name+"="+kv.Value)
	}
	chosen := false
	for _, kv := range sc.EnvOverrides {
		if !slices.Contains(protectedEnv, kv.Name) {
			env = append(env, kv.Name+"="+kv.Value)
			chosen = chosen || slices.Contains(protocolEnv, kv.Name)
		}
	}
	env = append(env, "KENSA_TRACE_DIR="+traceDir, "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+endpoint+"/v1/traces")
	if !chosen {
		for _, name := range protocolEnv {
			env = append(env, name+"=http/protobuf")
		}
	}
	return env
}

// dotenvFinding says which .env the agent's environment took variables from, by their names
// (never their values, which are often credentials).
func dotenvFinding(id, dir string, d dotenv) store.Finding {
	rel, err := filepath.Rel(dir, d.Path)
	if err != nil {
		rel = ".env"
	}
	names := make([]string, 0, len(d.Vars))
	for _, kv := range d.Vars {
		if !slices.Contains(names, kv.Name) {
			names = append(names, kv.Name)
		}
	}
	msg := fmt.Sprintf("the agent's environment has the variables of %s, loaded as Kensa's runner loads the nearest .env: %s", rel, strings.Join(names, ", "))
	if d.Err != "" {
		msg = fmt.Sprintf("%s is not UTF-8 (%s): Kensa's runner fails the run reading it", rel, d.Err)
	}
	return store.Finding{Code: "dotenv", Severity: store.SeverityInfo, Scenario: id, File: filepath.ToSlash(rel), Message: msg}
}

// outputError is Python's error decoding the agent's stdout, then its stderr, as
// subprocess.run(text=True) decodes them (communicate: stdout first), "" when both decode or
// the run timed out or did not start (Kensa's runner fails those first).
func outputError(res *command.Result) (string, error) {
	if res.TimedOut || res.StartError != "" || res.Cancelled {
		return "", nil
	}
	for _, o := range []command.Output{res.Stdout, res.Stderr} {
		if o.Path == "" {
			continue
		}
		f, err := os.Open(o.Path)
		if err != nil {
			return "", err
		}
		msg, err := pyUTF8ErrorOf(f, o.Truncated)
		f.Close()
		if err != nil || msg != "" {
			return msg, err
		}
	}
	return "", nil
}

// captured refers to a captured stream where command.Run spooled it: it is read when sealed,
// never held in memory whole.
func captured(o command.Output) Captured {
	return Captured{Path: o.Path, Total: o.Total, Truncated: o.Truncated}
}

// firstError is the message of the first error finding, "" when there is none.
func firstError(findings []store.Finding) string {
	for _, f := range findings {
		if f.Severity == store.SeverityError {
			return f.Message
		}
	}
	return ""
}

// noSpansMessage is the error Kensa's runner raises for a run without spans; stderr is the
// stripped tail of the run's stderr (500 characters).
func noSpansMessage(id string, res *command.Result, timeout time.Duration, stderr string) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("Scenario %s timed out after %s.", pyvalue.StrRepr(id), timeout)
	case res.StartError != "":
		return fmt.Sprintf("Scenario %s could not start: %s", pyvalue.StrRepr(id), res.StartError)
	case !res.OK():
		t := stderr
		if t == "" {
			t = "(no stderr)"
		}
		return fmt.Sprintf("Scenario %s subprocess crashed (exit=%d).\nstderr:\n%s", pyvalue.StrRepr(id), res.ExitCode, t)
	}
	msg := fmt.Sprintf("Scenario %s ran successfully but produced no traces.", pyvalue.StrRepr(id))
	if stderr != "" {
		msg += "\nstderr:\n" + stderr
	}
	return msg
}

// collectSpans counts the exporter's JSONL file against the run's budget, then, unless the
// run passed one of its limits, reads it and the OTLP bodies one at a time, keeps each as a
// span source (a spool file, read again when sealed), and converts the spans to Kensa's model.
// Malformed sources are findings; kensaErr is the text of the error Kensa's runner raises
// reading the JSONL file, when this reader knows it (a span time translate._parse_timestamp
// refuses). Decoding is done by one run at a time (decoding), so that --parallel does not
// multiply its memory.
func collectSpans(r *Record, jsonl string, bodies []otlpreceiver.Body, budget *otlpreceiver.Budget, opts Options) (spans []fkensa.Span, findings []store.Finding, kensaErr string, err error) {
	var prices fkensa.Prices
	if opts.Prices != nil {
		prices, _ = fkensa.ParsePrices(PricesPath, opts.Prices)
	}
	bad := func(src string, err error) {
		findings = append(findings, store.Finding{Code: "spans_malformed", Severity: store.SeverityError,
			Scenario: r.Definition.Scenario.ID, File: src, Message: err.Error()})
	}
	haveJSONL := false
	// Lstat: the exporter writes a regular file; a link or a pipe the agent left there is not
	// followed (a pipe would never end).
	switch st, err := os.Lstat(jsonl); {
	case err == nil && st.Mode().IsRegular():
		haveJSONL = true
		r.SpanSources = append(r.SpanSources, Source{Path: "KENSA_TRACE_DIR/spans.jsonl", MediaType: store.MediaTypeOpenInferenceJSONL, File: jsonl})
		if err := budget.AddFile(jsonl, otlpreceiver.FormatJSONL); err != nil && !errors.Is(err, otlpreceiver.ErrLimit) {
			return nil, nil, "", err
		}
	case err == nil:
		bad("spans.jsonl", fmt.Errorf("not a regular file (%s)", st.Mode().Type()))
	case !errors.Is(err, os.ErrNotExist):
		bad("spans.jsonl", err)
	}
	for i, b := range bodies {
		mt := store.MediaTypeOTLPProtobuf
		if b.MediaType == otlpreceiver.JSON {
			mt = store.MediaTypeOTLPJSON
		}
		r.SpanSources = append(r.SpanSources, Source{Path: fmt.Sprintf("otlp/%06d", i+1), MediaType: mt, File: b.Path})
	}
	if budget.Err() != nil {
		return nil, findings, "", nil
	}
	decoding.Lock()
	defer decoding.Unlock()
	if haveJSONL {
		data, err := os.ReadFile(jsonl)
		if err != nil {
			return nil, nil, "", err
		}
		// Kensa reads the span times its own way (translate._parse_timestamp).
		got, err := otlp.ReadJSONLWith("spans.jsonl", data, fkensa.SpanTimestamp)
		if err != nil {
			bad("spans.jsonl", err)
			if te := (*fkensa.TimestampError)(nil); errors.As(err, &te) {
				kensaErr = te.Msg
			}
		}
		// Kensa's translate.py reads this file as OpenInference only.
		spans = append(spans, toKensa(got, prices, otlp.InterpretOpenInference)...)
	}
	for i, b := range bodies {
		name := fmt.Sprintf("otlp/%06d", i+1)
		data, err := os.ReadFile(b.Path)
		if err != nil {
			return nil, nil, "", err
		}
		decode := otlp.DecodeProtobuf
		if b.MediaType == otlpreceiver.JSON {
			decode = otlp.DecodeJSON
		}
		got, err := decode(data)
		if err != nil {
			bad(name, err)
			continue
		}
		spans = append(spans, ToKensa(got, prices)...)
	}
	return spans, findings, kensaErr, nil
}

// decoding is held by the run decoding its spans or evaluating its trace: one at a time.
var decoding sync.Mutex

// errTraceTooLarge: the trace in Kensa's model would pass fkensa.MaxTraceBytes.
var errTraceTooLarge = errclass.New(errclass.Input, "kensa: trace too large")

// writeTrace writes spans as Kensa's trace to path, a span at a time, each write admitted by
// space, and returns path; errTraceTooLarge when the trace would pass fkensa.MaxTraceBytes
// (Kensa's model writes every string JSON-escaped: a trace may be larger than the sources).
func writeTrace(path string, spans []fkensa.Span, space *freespace.Guard) (_ string, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("%w: %v", command.ErrSpool, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%w: %v", command.ErrSpool, cerr)
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	w := bufio.NewWriterSize(space.Writer(f), 64<<10)
	var n int64
	for i := range spans {
		line := fkensa.WriteTrace(spans[i : i+1])
		if n += int64(len(line)); n > fkensa.MaxTraceBytes {
			return "", fmt.Errorf("%w: the trace in Kensa's model is more than %d bytes (%d MiB, MaxTraceBytes) at span %d of %d", errTraceTooLarge, int64(fkensa.MaxTraceBytes), fkensa.MaxTraceBytes>>20, i+1, len(spans))
		}
		if _, err := w.Write(line); err != nil {
			return "", fmt.Errorf("%w: %w", command.ErrSpool, err)
		}
	}
	if err := w.Flush(); err != nil {
		return "", fmt.Errorf("%w: %w", command.ErrSpool, err)
	}
	return path, nil
}

// ToKensa converts spans to Kensa's model as translate.span_to_kensa does, costing spans that
// state no cost with prices. Spans are read by the convention they declare (OpenInference or
// GenAI, otlp.Interpret): the OTLP receiver's spans, which Kensa never sees.
func ToKensa(spans []otlp.Span, prices fkensa.Prices) []fkensa.Span {
	return toKensa(spans, prices, otlp.Interpret)
}

func toKensa(spans []otlp.Span, prices fkensa.Prices, interpret func(*otlp.Span) otlp.Semantics) []fkensa.Span {
	out := make([]fkensa.Span, 0, len(spans))
	for i := range spans {
		s := &spans[i]
		sem := interpret(s)
		ks := fkensa.Span{TraceID: s.TraceID, SpanID: s.SpanID, Name: s.Name, Kind: sem.Kind, Status: "ok",
			Start: fkensa.MicrosFromNanos(s.Start), End: fkensa.MicrosFromNanos(s.End),
			Model: sem.Model, Provider: sem.Provider, Input: sem.Input, Output: sem.Output, Metadata: otlp.AttributesValue(sem.Metadata)}
		if s.ParentSpanID != "" {
			p := s.ParentSpanID
			ks.ParentSpanID = &p
		}
		if sem.Error {
			ks.Status = "error"
		}
		if sem.Tokens != nil {
			t := fkensa.Tokens(*sem.Tokens)
			ks.Tokens = &t
		}
		if sem.DeclaredCost != nil {
			c := fkensa.Cost(*sem.DeclaredCost)
			ks.Cost = &c
		} else {
			ks.Cost = prices.Cost(ks.Model, ks.Tokens)
		}
		for _, t := range sem.Tools {
			ks.Tools = append(ks.Tools, fkensa.Tool{Name: t.Name, Args: t.Args})
		}
		out = append(out, ks)
	}
	return out
}

// judgeRun evaluates the checks; when they pass, it sends Kensa's judge prompt to the judge
// command and records its answer.
func judgeRun(ctx context.Context, r *Record, job Job, opts Options, spool string) error {
	prompt, pending, err := judgePrompt(r)
	if err != nil || !pending {
		return err // failed checks skip the judge (fail-fast), errors never reach it
	}
	dir := filepath.Join(spool, "judge")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	out, err := command.Run(ctx, command.Spec{Argv: opts.JudgeCmd, Env: os.Environ(), Dir: job.Dir, Stdin: strings.NewReader(prompt), Timeout: opts.Timeout, SpoolDir: dir})
	if err != nil {
		return err
	}
	answer, err := os.ReadFile(out.Stdout.Path)
	if err != nil {
		return err
	}
	j := &store.KensaJudgement{Source: "judge-cmd", Command: opts.JudgeCmd, Model: opts.JudgeModel, Label: "fail"}
	if !out.OK() {
		j.Exit = store.KensaExit{Code: out.ExitCode, TimedOut: out.TimedOut, Error: "judge command " + out.Describe()}
		if j.Exit.Code == 0 {
			j.Exit.Code = -1
		}
	} else if v := ekensa.ParseJudgeAnswer(string(answer), false).Verdict; v != nil && (*v == "pass" || *v == "uncertain") {
		j.Label = *v
	}
	r.Judgement, r.JudgePrompt, r.JudgeAnswer, r.JudgeAnswerType = j, []byte(prompt), answer, store.MediaTypeText
	return nil
}

// judgePrompt evaluates r's checks and, when they pass, returns Kensa's judge prompt; the
// spans are decoded under decoding and let go before the judge runs.
func judgePrompt(r *Record) (prompt string, pending bool, err error) {
	decoding.Lock()
	defer decoding.Unlock()
	ev, err := EvidenceOf(r)
	if err != nil {
		return "", false, err
	}
	if ekensa.Evaluate(ev).Status != ekensa.StatusPending {
		return "", false, nil
	}
	return ekensa.BuildJudgePrompt(ev), true, nil
}

// EvidenceOf is the evidence of a record not yet sealed, as replay will load it: a run,
// its recorded judgement included, evaluates to one result before and after it is sealed.
// Only the tails of the captured streams that Kensa keeps are read.
func EvidenceOf(r *Record) (*ekensa.Evidence, error) {
	stdout, err := r.Stdout.tail(fkensa.RunStdoutRunes)
	if err != nil {
		return nil, err
	}
	stderr, err := r.Stderr.tail(fkensa.RunStderrRunes)
	if err != nil {
		return nil, err
	}
	ev := &ekensa.Evidence{Scenario: r.Definition.Scenario, Case: r.Case, ExitCode: r.Exit.Code, RunError: r.Exit.Error,
		Stdout: stdout, Stderr: stderr, TracePath: r.TracePath}
	if r.HasInput {
		ev.Input = r.Input
	}
	if r.Row != nil {
		ev.Row = r.Row.Value
	}
	trace := r.Trace
	if r.TraceFile != "" {
		var err error
		if trace, err = os.ReadFile(r.TraceFile); err != nil {
			return nil, err
		}
	}
	if trace != nil {
		ev.HasTrace = true
		var err error
		if ev.Spans, err = fkensa.ReadTrace("trace", trace); err != nil {
			ev.TraceError = err.Error()
		}
	}
	if r.Judgement != nil {
		ev.Judgement = ekensa.RecordedJudgement(r.Judgement, r.JudgePrompt, r.JudgeAnswer)
	}
	if spec, ok := r.Definition.Files[judgePath(r.Definition.Scenario)]; ok {
		ev.JudgeSpec, _ = fkensa.ParseJudgeSpec("judge", spec)
	}
	return ev, nil
}

func judgePath(sc *fkensa.Scenario) string {
	if sc.Judge == nil {
		return ""
	}
	return "judges/" + *sc.Judge + ".yaml"
}
