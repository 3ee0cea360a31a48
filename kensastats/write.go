package kensastats

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/textout"
)

// WriteJSON writes the report as indented JSON (numbers with their fixed places).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// tracedNote says, when only some runs carry a trace, that cost and duration are over those.
func (s *Scenario) tracedNote() string {
	if s.Traced == s.Runs {
		return ""
	}
	return fmt.Sprintf(" (over the %d of %d runs with a trace)", s.Traced, s.Runs)
}

// WriteText writes one block per scenario.
func (r *Report) WriteText(w io.Writer) error {
	p := textout.New(w)
	// An empty store prints nothing: the command says on stderr that there are no runs yet.
	if sel := r.Selection; sel != nil && sel.Recorded > 0 {
		p.Line("%s", sel.Summary())
		for _, line := range sel.notCounted() {
			p.Line("  %s", line)
		}
	}
	for _, s := range r.Scenarios {
		p.Line("%s: %d runs, pass rate %s (95%% Wilson %s–%s)", s.ID, s.Runs, s.PassRate, s.Wilson95[0], s.Wilson95[1])
		p.Line("  pass^k estimated (pass rate^k): %s; observed (k runs of one case all passing): %s", s.estimatedPassK(), s.observedPassK())
		p.Line("  flaky: %s; Kensa's rule: %s; variance from: %s", yesNo(s.Flaky), yesNo(s.KensaFlaky), s.VarianceSource)
		if s.KensaFlaky && !s.Flaky && s.VarianceSource == "rows" {
			p.Line("  note: Kensa pools dataset rows; every row is stable, some always fail — a row effect, not flakiness")
		}
		if len(s.Cases) > 1 {
			var parts []string
			for _, c := range s.Cases {
				parts = append(parts, fmt.Sprintf("row %d %d/%d", c.Case, c.Passes, c.Runs))
			}
			p.Line("  rows: %s", strings.Join(parts, ", "))
		}
		p.Line("  evaluator variance: %d (%s)", s.EvaluatorVariance, evaluatorNote(s.EvaluatorVariance))
		var checks []string
		for _, c := range s.Checks {
			checks = append(checks, fmt.Sprintf("%s %s", c.Type, c.PassRate))
		}
		p.Line("  checks: %s", strings.Join(checks, ", "))
		switch {
		case s.Traced == 0:
			p.Line("  cost USD, duration s: none measured (no run has a trace: the agent emitted no spans)")
		default:
			p.Line("  cost USD mean %s sd %s min %s max %s; duration s mean %s sd %s min %s max %s%s",
				s.Cost.Mean, s.Cost.Stddev, s.Cost.Min, s.Cost.Max, s.Duration.Mean, s.Duration.Stddev, s.Duration.Min, s.Duration.Max, s.tracedNote())
		}
		for _, f := range s.Flags {
			p.Line("  flag %s %s: %s", f.Flag, f.RunID, f.Detail)
		}
		if d := s.Divergence; d != nil {
			if d.Kind == "none" {
				p.Line("  divergence (row %d): none (the evidence the checks read is the same in both runs)", d.Case)
			} else {
				p.Line("  divergence (row %d): %s%s — passing %s, failing %s", d.Case, d.Kind, d.Where(), d.PassingSide, d.FailingSide)
			}
		}
		for _, l := range s.Listed {
			p.Line("  run %s", l.column())
		}
	}
	return p.Err()
}

// passKs are the k of pass^k, in the order printed.
var passKs = []string{"1", "3", "5"}

// estimatedPassK is "1 x, 3 y, 5 z".
func (s *Scenario) estimatedPassK() string {
	parts := make([]string, len(passKs))
	for i, k := range passKs {
		parts[i] = k + " " + s.PassK[k].String()
	}
	return strings.Join(parts, ", ")
}

// observedPassK is "1 x, 3 y, 5 n/a", n/a where no case has k runs.
func (s *Scenario) observedPassK() string {
	parts := make([]string, len(passKs))
	for i, k := range passKs {
		v := "n/a"
		if o := s.PassKObserved[k]; o != nil {
			v = o.String()
		}
		parts[i] = k + " " + v
	}
	return strings.Join(parts, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func evaluatorNote(n int) string {
	if n == 0 {
		return "every run replayed to the same verdict: all variance is the agent's"
	}
	return "some runs replayed to different verdicts"
}

// WriteHTML writes a self-contained page: inline CSS and SVG, no external asset.
func (r *Report) WriteHTML(w io.Writer) error {
	return page.Execute(w, r)
}

var page = template.Must(template.New("stats").Funcs(template.FuncMap{
	"pct": func(f Fixed) string { return fmt.Sprintf("%.1f", f.V*100) },
	"x":   func(f Fixed) string { return fmt.Sprintf("%.1f", 20+f.V*300) },
	"w": func(a, b Fixed) string {
		return fmt.Sprintf("%.1f", (b.V-a.V)*300)
	},
	"yesNo":     yesNo,
	"estimated": (*Scenario).estimatedPassK,
	"label":     Listed.label,
	"observed":  (*Scenario).observedPassK,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Kensa variance report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f3f3f3}.flaky{color:#b45309;font-weight:bold}.ok{color:#15803d}
h2{margin-top:2em}code{background:#f6f6f6;padding:1px 3px}
</style></head><body>
<h1>Kensa variance report</h1>
<p>Pass rates with 95% Wilson intervals. Every run was replayed twice: an evaluator variance of 0 means all variance is the agent's.</p>
{{with .Selection}}<p>{{.Summary}}</p>{{with .NotCounted}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Scenarios}}
<h2>{{.ID}}</h2>
<svg width="340" height="40" role="img" aria-label="pass rate {{pct .PassRate}}%">
<rect x="20" y="14" width="300" height="12" fill="#eee"/>
<rect x="{{x (index .Wilson95 0)}}" y="14" width="{{w (index .Wilson95 0) (index .Wilson95 1)}}" height="12" fill="#93c5fd"/>
<rect x="{{x .PassRate}}" y="8" width="2" height="24" fill="#1d4ed8"/>
<text x="20" y="10" font-size="9">0</text><text x="312" y="10" font-size="9">1</text>
</svg>
<table>
<tr><th>runs</th><td>{{.Runs}}</td><th>pass rate</th><td>{{.PassRate}} [{{index .Wilson95 0}}, {{index .Wilson95 1}}]</td></tr>
<tr><th>pass^k (estimated)</th><td>{{estimated .}}</td>
<th>pass^k (observed)</th><td>{{observed .}}</td></tr>
<tr><th>flaky</th><td class="{{if .Flaky}}flaky{{else}}ok{{end}}" colspan="3">{{yesNo .Flaky}} (Kensa's rule: {{yesNo .KensaFlaky}}; variance from {{.VarianceSource}})</td></tr>
<tr><th>evaluator variance</th><td>{{.EvaluatorVariance}}</td><th>cost USD</th><td>mean {{.Cost.Mean}} sd {{.Cost.Stddev}} [{{.Cost.Min}}, {{.Cost.Max}}]</td></tr>
<tr><th>duration s</th><td colspan="3">mean {{.Duration.Mean}} sd {{.Duration.Stddev}} [{{.Duration.Min}}, {{.Duration.Max}}]</td></tr>
</table>
{{if gt (len .Cases) 1}}<table><tr><th>dataset row</th><th>runs</th><th>passes</th><th>flaky</th></tr>
{{range .Cases}}<tr><td>{{.Case}}</td><td>{{.Runs}}</td><td>{{.Passes}}</td><td>{{yesNo .Flaky}}</td></tr>{{end}}</table>{{end}}
<table><tr><th>check</th><th>pass rate</th><th>passes / total</th></tr>
{{range .Checks}}<tr><td>{{.Type}}</td><td>{{.PassRate}}</td><td>{{.Passes}} / {{.Total}}</td></tr>{{end}}</table>
{{if .Flags}}<table><tr><th>run</th><th>flag</th><th>detail</th></tr>
{{range .Flags}}<tr><td><code>{{.RunID}}</code></td><td>{{.Flag}}</td><td>{{.Detail}}</td></tr>{{end}}</table>{{end}}
<table><tr><th>run</th><th>bundle</th><th>status</th><th>reason</th></tr>
{{range .Listed}}<tr><td><code>{{label .}}</code></td><td><code>{{.Bundle.Short}}</code></td><td>{{.Status}}</td><td>{{.Reason}}</td></tr>{{end}}</table>
{{with .Divergence}}<p>First divergence in row {{.Case}}: <b>{{.Kind}}</b>{{.Where}} — passing <code>{{.PassingSide}}</code>, failing <code>{{.FailingSide}}</code>.</p>{{end}}
{{end}}
</body></html>
`))
