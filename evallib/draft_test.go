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
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
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

// bodies are calls as OTLP export requests: JSON and protobuf.
func bodies(t *testing.T, calls []skillCall) (jsonBody, protoBody []byte) {
	t.Helper()
	td := skillTraces(calls)
	var jm ptrace.JSONMarshaler
	jsonBody, err := jm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	var pm ptrace.ProtoMarshaler
	protoBody, err = pm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return jsonBody, protoBody
}

func TestDraftScenarios(t *testing.T) {
	jsonBody, protoBody := bodies(t, telemetry())
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
	text, textAgain := draftText(set), draftText(again)
	if text != textAgain {
		t.Errorf("the same spans as JSON and protobuf give different drafts:\n%s\n%s", text, textAgain)
	}
	goldenfile.Check(t, filepath.Join("testdata", "drafts.golden.txt"), []byte(text), *update)

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

// draftText prints a set of drafts, for comparing two sets.
func draftText(set *DraftSet) string {
	var text strings.Builder
	fmt.Fprintf(&text, "%s\n%d spans from %s to %s\n", set.Note, set.Spans, set.From, set.To)
	for _, d := range set.Drafts {
		fmt.Fprintf(&text, "%s %s %d %v\n  %s\n  %s\n", d.Pattern, d.Confidence, d.Invocations, d.Traces, d.Why, d.Document)
	}
	return text.String()
}

// Drafts from the spans kensa run recorded (the OTLP bodies its receiver took, kept as span
// sources) are the drafts of the same spans read from a file: a body that two runs share is
// read once, and a span recorded twice (in a JSON body and a protobuf body) counts once.
func TestDraftsFromStore(t *testing.T) {
	jsonBody, protoBody := bodies(t, telemetry())
	fromFile, err := ReadSpanFile("spans.json", jsonBody)
	if err != nil {
		t.Fatal(err)
	}
	opts := DraftOptions{LookbackHours: 168, Max: 20}
	want, err := DraftScenarios(Invocations(fromFile), opts)
	if err != nil {
		t.Fatal(err)
	}

	st := newTestStore(t)
	if empty, err := DraftFromStore(t.Context(), st, opts); err != nil || empty.Spans != 0 || len(empty.Drafts) != 0 {
		t.Fatalf("an empty store: %+v, %v", empty, err)
	}
	addScenarios(t, st)
	if _, _, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 1, parallel: 1}); err != nil {
		t.Fatal(err) // Eval Library bundles beside the Kensa runs: they hold no spans
	}
	jsonSource := kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPJSON, Data: jsonBody}
	recordertest.KensaSpansBundle(t, st, "run-1", jsonSource)
	recordertest.KensaSpansBundle(t, st, "run-2", jsonSource)
	recordertest.KensaSpansBundle(t, st, "run-3", kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPProtobuf, Data: protoBody})
	got, err := DraftFromStore(t.Context(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if draftText(got) != draftText(want) {
		t.Errorf("drafts from the store:\n%s\nfrom the file:\n%s", draftText(got), draftText(want))
	}
	spans, err := StoreSpans(t.Context(), st)
	if err != nil || len(spans) != 2*2*len(telemetry()) { // each body read once: a skill span and another per call
		t.Errorf("%d spans read from the store (%v), want the JSON and protobuf bodies once each", len(spans), err)
	}
}

// One input shape's invocations, on either side of the line between a recurring pattern (one
// successful output in at least 80% of at least three invocations: "consistent outcome") and a
// decision point (different outputs otherwise, each seen twice or more drafted).
func TestDraftRecurringOrDecision(t *testing.T) {
	repeat := func(output string, n int) []string { return slices.Repeat([]string{output}, n) }
	const fail = "failed"
	tests := []struct {
		name     string
		outputs  []string
		patterns []string
		// confidence of the first draft: agreement × n/(n+1)
		confidence string
	}{
		{"5 of 6, another output once", append(repeat("escalate", 5), "ignore"), []string{PatternRecurring}, "0.714"},
		{"4 of 5, exactly 80%", append(repeat("escalate", 4), "ignore"), []string{PatternRecurring}, "0.667"},
		{"8 of 10, another output twice", append(repeat("escalate", 8), "ignore", "ignore"), []string{PatternRecurring}, "0.727"},
		{"4 of 5, one failure", append(repeat("escalate", 4), fail), []string{PatternRecurring}, "0.667"},
		{"3 of 3", repeat("escalate", 3), []string{PatternRecurring}, "0.750"},
		{"3 of 4, another output once", append(repeat("escalate", 3), "ignore"), []string{PatternDecision}, "0.600"},
		{"7 of 10, another output 3 times", append(repeat("escalate", 7), repeat("ignore", 3)...), []string{PatternDecision, PatternDecision}, "0.636"},
		{"3 and 3", append(repeat("escalate", 3), repeat("ignore", 3)...), []string{PatternDecision, PatternDecision}, "0.429"},
		{"3 of 4, one failure", append(repeat("escalate", 3), fail), nil, ""},
		{"2 of 2: too few", repeat("escalate", 2), nil, ""},
	}
	for _, tt := range tests {
		var calls []skillCall
		for i, o := range tt.outputs {
			c := skillCall{skill: "deploy.triage", input: `{"event":"deployment_failed"}`, at: time.Duration(i) * time.Hour}
			if o == fail {
				c.failed = true
			} else {
				c.output = `{"action":"` + o + `"}`
			}
			calls = append(calls, c)
		}
		body, _ := bodies(t, calls)
		spans, err := ReadSpanFile("spans.json", body)
		if err != nil {
			t.Fatal(err)
		}
		set, err := DraftScenarios(Invocations(spans), DraftOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var patterns []string
		for _, d := range set.Drafts {
			patterns = append(patterns, d.Pattern)
		}
		if !slices.Equal(patterns, tt.patterns) || len(set.Drafts) > 0 && set.Drafts[0].Confidence != tt.confidence {
			t.Errorf("%s: drafts %v, want %v with confidence %s: %+v", tt.name, patterns, tt.patterns, tt.confidence, set.Drafts)
		}
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
