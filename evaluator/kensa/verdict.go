package kensa

import (
	"sync"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// Identity of this evaluator, named in every verdict. Version changes whenever a rule that
// can change a verdict does.
const (
	EvaluatorName    = "oasis-replay/kensa"
	EvaluatorVersion = "4 (Kensa v0.7.0 semantics)"
)

// Info identifies this evaluator in verdicts and receipts: its name, version and the digest of
// its rule tables (the check types with their parameters, the statuses), so a receipt names
// the exact rules.
func Info() store.EvaluatorInfo { return info() }

var info = sync.OnceValue(func() store.EvaluatorInfo {
	rules := struct {
		Semantics string              `json:"semantics"`
		Checks    map[string][]string `json:"checks"`
		Statuses  []string            `json:"statuses"`
	}{Semantics: "github.com/satyaborg/kensa v0.7.0 (31d9f3a)", Checks: kensa.CheckParams(),
		Statuses: []string{StatusPass, StatusFail, StatusError, StatusUncertain, StatusPending}}
	b, err := store.Marshal(rules)
	if err != nil {
		b = []byte(err.Error()) // a defect: the digest then names it, deterministically
	}
	return store.EvaluatorInfo{Name: EvaluatorName, Version: EvaluatorVersion, RulesDigest: store.Sum(b)}
})

// Verdict is the canonical form of a Result. Numbers Kensa keeps as floats are their Python
// text (repr) in strings, so the verdict holds no float (store.Marshal).
type Verdict struct {
	store.Header
	Evaluator store.EvaluatorInfo `json:"evaluator"`
	// Evidence is the digest of the evidence object evaluated (store.KensaEvidence), omitted
	// for evidence not yet stored. Runs with the same evidence have the same verdict.
	Evidence *store.Digest     `json:"evidence,omitempty"`
	Scenario string            `json:"scenario"`
	Case     int               `json:"case"`
	Status   string            `json:"status"`
	Input    any               `json:"input"`
	Expected *string           `json:"expected"`
	Checks   []VerdictCheck    `json:"checks"`
	Judge    *VerdictJudge     `json:"judge"`
	Trace    *VerdictTrace     `json:"trace"`
	Metrics  map[string]string `json:"metrics"`
	Error    *string           `json:"error"`
}

// VerdictCheck is one check of a verdict.
type VerdictCheck struct {
	Type        string            `json:"type"`
	Passed      bool              `json:"passed"`
	Detail      string            `json:"detail"`
	Scores      map[string]string `json:"scores"`
	Diagnostics any               `json:"diagnostics"`
	Unsupported bool              `json:"unsupported,omitempty"`
}

// VerdictJudge is the judge's part of a verdict.
type VerdictJudge struct {
	Status           string   `json:"status"`
	Passed           bool     `json:"passed"`
	Verdict          *string  `json:"verdict"`
	Reasoning        string   `json:"reasoning"`
	Evidence         []string `json:"evidence"`
	Source           string   `json:"source,omitempty"`
	Model            string   `json:"model,omitempty"`
	PromptReproduced *bool    `json:"prompt_reproduced,omitempty"`
}

// VerdictTrace is the trace summary of a verdict.
type VerdictTrace struct {
	Path            string `json:"path"`
	LLMCalls        int    `json:"llm_calls"`
	ToolCalls       int    `json:"tool_calls"`
	TotalTokens     int64  `json:"total_tokens"`
	CostUSD         string `json:"cost_usd"`
	DurationSeconds string `json:"duration_seconds"`
}

// Verdict renders r.
func (r *Result) Verdict() *Verdict {
	v := &Verdict{
		Header:    store.Header{Kind: store.KindVerdict, SchemaVersion: store.SchemaVersion},
		Evaluator: Info(),
		Scenario:  r.ScenarioID, Case: r.Case, Status: r.Status, Input: Canonical(r.Input), Expected: r.Expected,
		Checks: make([]VerdictCheck, len(r.CheckResults)), Metrics: r.Metrics(), Error: r.Error,
	}
	if !r.Evidence.IsZero() {
		v.Evidence = &r.Evidence
	}
	for i, c := range r.CheckResults {
		scores := map[string]string{}
		for _, s := range c.Scores {
			scores[s.Name] = pyvalue.FloatRepr(s.Value)
		}
		v.Checks[i] = VerdictCheck{Type: c.Check, Passed: c.Passed, Detail: c.Detail, Scores: scores,
			Diagnostics: Canonical(c.Diagnostics), Unsupported: c.Unsupported}
	}
	if j := r.Judge; j != nil {
		evidence := j.Evidence
		if evidence == nil {
			evidence = []string{}
		}
		v.Judge = &VerdictJudge{Status: j.Status, Passed: j.Passed, Verdict: j.Verdict, Reasoning: j.Reasoning,
			Evidence: evidence, Source: j.Source, Model: j.Model, PromptReproduced: j.PromptReproduced}
	}
	if t := r.Trace; t != nil {
		v.Trace = &VerdictTrace{Path: t.Path, LLMCalls: t.LLMCalls, ToolCalls: t.ToolCalls, TotalTokens: t.TotalTokens,
			CostUSD: pyvalue.FloatRepr(t.CostUSD), DurationSeconds: pyvalue.FloatRepr(t.DurationSeconds)}
	}
	return v
}

// Metrics is judge._extract_metrics: every check's scores, later ones overriding.
func (r *Result) Metrics() map[string]string {
	m := map[string]string{}
	for _, c := range r.CheckResults {
		for _, s := range c.Scores {
			m[s.Name] = pyvalue.FloatRepr(s.Value)
		}
	}
	return m
}

// Canonical turns a Python value into one the canonical encoder takes: floats (and integers
// beyond ±2^53) become their Python text, dicts maps (the last of duplicate keys).
func Canonical(v pyvalue.Value) any {
	switch v.Kind() {
	case pyvalue.KindBool:
		b, _ := v.AsBool()
		return b
	case pyvalue.KindInt:
		i, _ := v.AsInt()
		if i > 1<<53-1 || i < -(1<<53-1) {
			return pyvalue.Repr(v)
		}
		return i
	case pyvalue.KindFloat:
		return pyvalue.Repr(v)
	case pyvalue.KindStr:
		s, _ := v.AsStr()
		return s
	case pyvalue.KindList:
		items := make([]any, v.Len())
		for i, item := range v.Items() {
			items[i] = Canonical(item)
		}
		return items
	case pyvalue.KindDict:
		m := make(map[string]any, v.Len())
		v.Members(func(k string, item pyvalue.Value) { m[k] = Canonical(item) })
		return m
	}
	return nil
}

// Encode returns the canonical bytes of r's verdict and their digest: those store.Marshal
// gives, written directly (encodeVerdict) unless the verdict is one it leaves to Marshal.
func (r *Result) Encode() ([]byte, store.Digest, error) {
	v := r.Verdict()
	b, ok := encodeVerdict(v)
	if !ok {
		var err error
		if b, err = store.Marshal(v); err != nil {
			return nil, store.Digest{}, err
		}
	}
	return b, store.Sum(b), nil
}
