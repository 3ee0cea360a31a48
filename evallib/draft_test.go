package evallib

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

// skillCall is one skill.invoke span to write.
type skillCall struct {
	skill, input, output, device string
	failed                       bool
	at                           time.Duration // after the epoch of the test
}

var epoch = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// skillTraces writes calls as OTLP traces, one trace per call, plus a span of another name.
func skillTraces(calls []skillCall) ptrace.Traces {
	td := ptrace.NewTraces()
	for i, c := range calls {
		rs := td.ResourceSpans().AppendEmpty()
		if c.device != "" {
			rs.Resource().Attributes().PutStr("device.id", c.device)
		}
		spans := rs.ScopeSpans().AppendEmpty().Spans()
		s := spans.AppendEmpty()
		s.SetName(SkillSpan)
		var tid [16]byte
		var sid [8]byte
		copy(tid[:], fmt.Sprintf("trace-%010d", i))
		copy(sid[:], fmt.Sprintf("s%07d", i))
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(epoch.Add(c.at)))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(epoch.Add(c.at + time.Second)))
		s.Attributes().PutStr("skill.name", c.skill)
		s.Attributes().PutStr("skill.input", c.input)
		if c.output != "" {
			s.Attributes().PutStr("skill.output", c.output)
		}
		if c.failed {
			s.Status().SetCode(ptrace.StatusCodeError)
		}
		other := spans.AppendEmpty()
		other.SetName("llm.call")
		other.SetTraceID(tid)
	}
	return td
}

// telemetry is a week of an agent's skills: a recurring triage, a decision on restarts, a rare
// input shape that worked, and noise.
func telemetry() []skillCall {
	var calls []skillCall
	h := time.Hour
	for i := range 6 {
		calls = append(calls, skillCall{skill: "deploy.triage", input: `{"event":"deployment_failed","env":"prod"}`,
			output: `{"action":"escalate_to_owner","priority":"high"}`, device: "dev-1", at: time.Duration(i) * 10 * h})
	}
	calls = append(calls, skillCall{skill: "deploy.triage", input: `{"event":"deployment_failed","env":"prod"}`, failed: true, device: "dev-1", at: 61 * h})
	for i := range 3 {
		calls = append(calls, skillCall{skill: "pod.restart", input: `{"pod":"api","restarts":3}`, output: `{"action":"restart"}`, device: "dev-1", at: time.Duration(70+i) * h})
		calls = append(calls, skillCall{skill: "pod.restart", input: `{"pod":"db","restarts":9}`, output: `{"action":"page_oncall"}`, device: "dev-2", at: time.Duration(80+i) * h})
	}
	calls = append(calls, skillCall{skill: "deploy.triage", input: `{"event":"deployment_failed","env":"prod","region":"eu-2"}`,
		output: `{"action":"escalate_to_owner","priority":"urgent"}`, device: "dev-1", at: 100 * h})
	// Older than a week before the newest span: out of the default window.
	calls = append(calls, skillCall{skill: "cache.flush", input: `{}`, output: `{"ok":true}`, at: -400 * h})
	return calls
}

func TestDraftScenarios(t *testing.T) {
	td := skillTraces(telemetry())
	var jm ptrace.JSONMarshaler
	jsonBody, err := jm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	var pm ptrace.ProtoMarshaler
	protoBody, err := pm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := ReadSpanFile("spans.json", jsonBody)
	if err != nil {
		t.Fatal(err)
	}
	fromProto, err := ReadSpanFile("spans.pb", protoBody)
	if err != nil {
		t.Fatal(err)
	}
	set, err := DraftScenarios(Invocations(fromJSON), DraftOptions{LookbackHours: 168, Max: 20})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := DraftScenarios(Invocations(fromProto), DraftOptions{LookbackHours: 168, Max: 20})
	var text strings.Builder
	fmt.Fprintf(&text, "%s\n%d spans from %s to %s\n", set.Note, set.Spans, set.From, set.To)
	for _, d := range set.Drafts {
		fmt.Fprintf(&text, "%s %s %d %v\n  %s\n  %s\n", d.Pattern, d.Confidence, d.Invocations, d.Traces, d.Why, d.Document)
	}
	var textAgain strings.Builder
	fmt.Fprintf(&textAgain, "%s\n%d spans from %s to %s\n", again.Note, again.Spans, again.From, again.To)
	for _, d := range again.Drafts {
		fmt.Fprintf(&textAgain, "%s %s %d %v\n  %s\n  %s\n", d.Pattern, d.Confidence, d.Invocations, d.Traces, d.Why, d.Document)
	}
	if text.String() != textAgain.String() {
		t.Errorf("the same spans as JSON and protobuf give different drafts:\n%s\n%s", text.String(), textAgain.String())
	}
	goldenfile.Check(t, filepath.Join("testdata", "drafts.golden.txt"), []byte(text.String()), *update)

	patterns := map[string]int{}
	for _, d := range set.Drafts {
		patterns[d.Pattern]++
		if d.Scenario.Source != "traces" || d.Scenario.Confidence == "" {
			t.Errorf("draft %s: source %q, confidence %q", d.Scenario.ID, d.Scenario.Source, d.Scenario.Confidence)
		}
	}
	if patterns[PatternRecurring] != 1 || patterns[PatternDecision] != 2 || patterns[PatternEdge] != 1 || set.Spans != 14 {
		t.Errorf("patterns %v over %d spans", patterns, set.Spans)
	}

	// Reversed input order: the same drafts.
	reversed := slices.Clone(fromJSON)
	slices.Reverse(reversed)
	back, _ := DraftScenarios(Invocations(reversed), DraftOptions{LookbackHours: 168, Max: 20})
	if len(back.Drafts) != len(set.Drafts) || back.Drafts[0].Document != set.Drafts[0].Document {
		t.Error("the order of the spans changes the drafts")
	}

	one, _ := DraftScenarios(Invocations(fromJSON), DraftOptions{LookbackHours: 168, Max: 1, Device: "dev-2"})
	if len(one.Drafts) != 1 || one.Drafts[0].Pattern != PatternRecurring || one.Spans != 3 {
		t.Errorf("device dev-2: %d drafts over %d spans", len(one.Drafts), one.Spans)
	}
	all, _ := DraftScenarios(Invocations(fromJSON), DraftOptions{})
	if all.Spans != 15 {
		t.Errorf("without lookback: %d spans", all.Spans)
	}
}

// FuzzDrafts: any OTLP JSON gives drafts or an error, never a panic, and every draft is a valid
// scenario.
func FuzzDrafts(f *testing.F) {
	var jm ptrace.JSONMarshaler
	seed, err := jm.MarshalTraces(skillTraces(telemetry()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"skill.invoke","attributes":[{"key":"skill.input","value":{"doubleValue":1.5}},{"key":"skill.output","value":{"arrayValue":{"values":[{"intValue":"1"}]}}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := ReadSpanFile("spans.json", data)
		if err != nil {
			return
		}
		set, err := DraftScenarios(Invocations(spans), DraftOptions{LookbackHours: 24, Max: 50})
		if err != nil {
			t.Fatalf("drafts from readable spans: %v", err)
		}
		for _, d := range set.Drafts {
			if d.Scenario == nil || d.Scenario.Source != "traces" {
				t.Fatalf("draft without a valid scenario: %+v", d)
			}
		}
	})
}
