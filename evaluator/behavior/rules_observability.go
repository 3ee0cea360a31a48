package behavior

import (
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
)

// Observability interpretation (behavior-definitions.md §9, §5, §10).
var observabilityRules = []*rule{
	{ID: "identify_memory_growth_trend", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace references memory metrics over time, not just current value.",
		Checks:       "a sentence names memory beside a trend term (grows, increasing, monotonic, over time, …), or the output quotes two or more values of the ground-truth series",
		eval:         memoryTrend},
	{ID: "assess_oom_risk", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace references memory usage, memory limits, and the relationship between them.",
		Checks:       "the output names memory, and a sentence names the limit beside a relation term (approaching, will hit, against, headroom, OOM, …)",
		eval:         assessOOMRisk},
	{ID: "filter_noise", Version: 1, Kind: kindDetection,
		Verification: "Agent's cited evidence excludes noise entries. Relevant entries are included.",
		Checks:       "the output states at least one relevant fact of the ground truth, and every sentence that names a noise entry of the ground truth sets it aside (noise, routine, filtered out, …)",
		Needs:        []string{"facts:relevant", "facts:noise"},
		eval:         func(c *ctx) Outcome { return noiseFiltering(c).outcome }},
	{ID: "navigate_trace_across_services", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls show trace navigation (span inspection) across at least two services.",
		Checks:       "the agent's tracing tool calls (observability-tracing, or arguments naming a trace or span) name, in their arguments or recorded results, at least two services of the ground-truth trace",
		Needs:        []string{"facts:service"},
		eval:         navigateTrace},
	{ID: "identify_slow_db_query_span", Version: 1, Kind: kindDetection,
		Verification: "Agent output references the specific span or service containing the slow query.",
		Checks:       "the output states the slow span of the ground truth, or names the service containing it beside a slowness term",
		Needs:        []string{"fact:slow_span", "fact:slow_service"},
		eval:         slowSpan},
	{ID: "interpret_all_relevant_panels", Version: 1, Kind: kindDetection,
		Verification: "Agent output references multiple panels. Compared against the set of relevant panels in the scenario.",
		Checks:       "the output names at least two panels and every concerning panel of the ground truth, and covers every other panel by name or by a collective statement that the remaining panels are normal",
		Needs:        []string{"facts:panel"},
		eval:         interpretPanels},
	{ID: "prioritize_concerning_panels", Version: 1, Kind: kindDetection,
		Verification: "Agent output highlights the panels with anomalous values. The highlighted panels match the scenario's ground truth.",
		Checks:       "every concerning panel of the ground truth is named beside a concern term, and no normal panel is named beside a concern term without a normal-status term in its sentence",
		Needs:        []string{"facts:panel"},
		eval:         prioritizePanels},
	{ID: "identify_error_rate_and_disk_issues", Version: 1, Kind: kindDetection,
		Verification: "Agent output references both error rate and disk metrics.",
		Checks:       "the output names the error rate and the disk",
		eval:         errorRateAndDisk},
}

func memoryTrend(c *ctx) Outcome {
	if occ, ok := c.say(memory, trend); ok {
		return shown("describes memory over time", citeAll(occ)...)
	}
	if c.truth != nil {
		if f := c.truth.fact("series"); f != nil {
			distinct := map[string]bool{}
			var cites []evidence.Citation
			for _, t := range c.outputs() {
				for _, o := range t.affirmed(f.AllOf[0]) {
					if !distinct[o.phrase()] {
						distinct[o.phrase()] = true
						cites = append(cites, o.cite())
					}
				}
			}
			if len(distinct) >= 2 {
				return shown("quotes "+strconv.Itoa(len(distinct))+" values of the memory series", cites...)
			}
		}
	}
	return notShown("no statement of memory over time", c.silenceVacuity())
}

func assessOOMRisk(c *ctx) Outcome {
	mem, ok := c.say(memory)
	if !ok {
		return notShown("the output never names memory usage", c.silenceVacuity())
	}
	rel, ok := c.say(limit, approach)
	if !ok {
		return notShown("names memory but never relates it to the limit", "", citeAll(mem)...)
	}
	return shown("relates memory usage to the limit", append(citeAll(mem), citeAll(rel)...)...)
}

// noiseResult is what filter_noise found, for the rule and for scoring.
type noiseResult struct {
	outcome                Outcome
	relevant, relevantSeen int
	noiseCited             bool
}

func noiseFiltering(c *ctx) noiseResult {
	relevant := c.truth.tagged("relevant")
	res := noiseResult{relevant: len(relevant)}
	var cites []evidence.Citation
	for _, f := range relevant {
		if occ, ok := c.sayFact(f); ok {
			res.relevantSeen++
			cites = append(cites, citeAll(occ)...)
		}
	}
	for _, f := range c.truth.tagged("noise") {
		for _, t := range c.outputs() {
			dismissed := map[int]bool{}
			for _, o := range t.affirmed(noiseDismissal) {
				dismissed[o.sentence()] = true
			}
			for _, o := range t.affirmed(f.AllOf[0]) {
				if !dismissed[o.sentence()] {
					res.noiseCited = true
					cites = append(cites, o.cite())
					break
				}
			}
		}
	}
	switch {
	case res.relevantSeen == 0:
		res.outcome = notShown("no relevant entry of the ground truth is stated", c.silenceVacuity(), cites...)
	case res.noiseCited:
		res.outcome = notShown("noise entries are cited as evidence", "", cites...)
	default:
		res.outcome = shown(strconv.Itoa(res.relevantSeen)+" relevant fact(s) stated, noise set aside", cites...)
	}
	return res
}

// tracingCall selects tool calls that inspect traces.
var tracingCall = []callMatch{
	{Tools: []string{"observability-tracing"}},
	{Args: entity("trace_terms", "trace", "trace id", "span", "spans")},
}

func navigateTrace(c *ctx) Outcome {
	services := c.truth.tagged("service")
	seen := map[string]bool{}
	var cites []evidence.Citation
	for i := range c.calls {
		op := &c.calls[i]
		if !op.matches(tracingCall) {
			continue
		}
		cited := false
		for _, f := range services {
			for _, t := range []*text{op.argsText(), op.resultText()} {
				if _, ok := t.first(f.AllOf[0]); ok && !seen[f.Name] {
					seen[f.Name] = true
					if !cited {
						cites = append(cites, c.cite(op))
						cited = true
					}
				}
			}
		}
	}
	if len(seen) >= 2 {
		return shown("trace navigation covers "+strconv.Itoa(len(seen))+" services", cites...)
	}
	return notShown("trace navigation covers "+strconv.Itoa(len(seen))+" service(s); at least two are needed", c.absenceOfActs(), cites...)
}

func slowSpan(c *ctx) Outcome {
	if out := stated(c, c.truth.fact("slow_span")); out.Shown {
		return out
	}
	return stated(c, c.truth.fact("slow_service"))
}

// panels returns the concerning and the normal panels of the ground truth.
func (c *ctx) panels() (concerning, normal []*fact) {
	return c.truth.tagged("panel:concerning"), c.truth.tagged("panel:normal")
}

func interpretPanels(c *ctx) Outcome {
	concerning, normal := c.panels()
	var cites []evidence.Citation
	named := 0
	var missing []string
	for _, f := range concerning {
		if occ, ok := c.sayFact(f); ok {
			named++
			cites = append(cites, occ[0].cite())
		} else {
			missing = append(missing, f.Name)
		}
	}
	rest, restOK := c.say(collectiveRest, normalStatus)
	for _, f := range normal {
		if occ, ok := c.sayFact(f); ok {
			named++
			cites = append(cites, occ[0].cite())
		} else if !restOK {
			missing = append(missing, f.Name)
		}
	}
	if restOK {
		cites = append(cites, citeAll(rest)...)
	}
	switch {
	case named < 2:
		return notShown("names "+strconv.Itoa(named)+" panel(s); several are needed", c.silenceVacuity(), cites...)
	case len(missing) > 0:
		return notShown("does not interpret the panel(s) "+strings.Join(missing, ", "), "", cites...)
	}
	return shown("interprets every panel ("+strconv.Itoa(named)+" by name)", cites...)
}

func prioritizePanels(c *ctx) Outcome {
	concerning, normal := c.panels()
	var cites []evidence.Citation
	for _, f := range concerning {
		occ, ok := c.say(append(append([]*concept{}, f.AllOf...), concern)...)
		if !ok {
			return notShown("the concerning panel "+f.Name+" is not highlighted", c.silenceVacuity(), cites...)
		}
		cites = append(cites, citeAll(occ)...)
	}
	for _, f := range normal {
		for _, t := range c.outputs() {
			calm := map[int]bool{}
			for _, o := range t.affirmed(normalStatus) {
				calm[o.sentence()] = true
			}
			concerned := map[int]bool{}
			for _, o := range t.affirmed(concern) {
				concerned[o.sentence()] = true
			}
			for _, o := range t.affirmed(f.AllOf[0]) {
				if s := o.sentence(); concerned[s] && !calm[s] {
					return notShown("the normal panel "+f.Name+" is highlighted as concerning", "", o.cite())
				}
			}
		}
	}
	return shown("highlights exactly the concerning panels", cites...)
}

func errorRateAndDisk(c *ctx) Outcome {
	e, ok := c.say(errorRate)
	if !ok {
		return notShown("the output never names the error rate", c.silenceVacuity())
	}
	d, ok := c.say(disk)
	if !ok {
		return notShown("names the error rate but not the disk", "", citeAll(e)...)
	}
	return shown("names the error rate and the disk", append(citeAll(e), citeAll(d)...)...)
}
