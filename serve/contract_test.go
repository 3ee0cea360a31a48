package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
)

// client is a client of the API that checks every answer against the OpenAPI document.
type client struct {
	t   *testing.T
	srv *httptest.Server
	tok string
	c   *contract
}

// on is the client reporting to t (a subtest's).
func (cl *client) on(t *testing.T) *client { c := *cl; c.t = t; return &c }

func (cl *client) do(method, path, body string) response {
	cl.t.Helper()
	r := call(cl.t, cl.srv, method, path, cl.tok, body)
	cl.c.check(cl.t, method, path, r)
	return r
}

// must is do, requiring the status want and decoding the answer into v (when not nil).
func (cl *client) must(method, path, body string, want int, v any) response {
	cl.t.Helper()
	r := cl.do(method, path, body)
	if r.status != want {
		cl.t.Fatalf("%s %s: %d %s, want %d", method, path, r.status, r.body, want)
	}
	if v != nil {
		decode(cl.t, r, v)
	}
	return r
}

// numbersOnly fails for any JSON string that reads as a number: every number of an answer is
// a JSON number (issue "The Eval Library API to the letter"). Ids, digests and versions of
// agents are names, not quantities; none of them is all digits and one dot.
func numbersOnly(t *testing.T, what string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				walk(path+"."+k, sub)
			}
		case []any:
			for _, sub := range x {
				walk(path+"[]", sub)
			}
		case string:
			if isDecimalText(x) {
				t.Errorf("%s: %s is the string %q, not a number", what, path, x)
			}
		}
	}
	walk("", v)
}

func isDecimalText(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	return dot && digits(whole) && digits(frac)
}

// TestAPIContract holds the answers a client written against the description trips on
// (issue "The Eval Library API to the letter").
func TestAPIContract(t *testing.T) {
	st := memoryStore(t)
	triage := [3]string{"deploy.triage", `{"event":"deployment_failed","env":"prod"}`, `{"action":"escalate_to_owner","priority":"high"}`}
	recordertest.KensaSpansBundle(t, st, "run-1", kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPJSON,
		Data: skillSpans(t, "dev-1", 0, triage, triage, triage)})
	srv, _ := testServerOn(t, st)
	cl := &client{t: t, srv: srv, tok: validToken(t), c: newContract(t)}
	cl.must(http.MethodPost, "/api/v1/eval/scenarios", scenarioBody, http.StatusCreated, nil)

	t.Run("summary before any matrix", func(t *testing.T) {
		cl := cl.on(t)
		var sum struct {
			Matrix            *string        `json:"matrix"`
			Cells, Runs       int            `json:"-"`
			Flagged           int            `json:"flagged"`
			ShiftDistribution map[string]any `json:"shift_distribution"`
		}
		r := cl.must(http.MethodGet, "/api/v1/eval/summary", "", http.StatusOK, &sum)
		if sum.Matrix != nil || sum.Flagged != 0 || sum.ShiftDistribution["red"] != float64(0) ||
			!bytes.Contains(r.body, []byte(`"bins":[0,0,0,0,0,0,0,0,0,0]`)) || !bytes.Contains(r.body, []byte(`"overall":null`)) {
			t.Errorf("summary on a store without a matrix: %s", r.body)
		}
	})

	t.Run("auto-generate returns scenario objects and saves them", func(t *testing.T) {
		cl := cl.on(t)
		var got struct {
			Drafts []struct {
				Confidence json.RawMessage `json:"confidence"`
				Scenario   json.RawMessage `json:"scenario"`
			} `json:"drafts"`
			Saved []struct {
				ID      string `json:"id"`
				Created bool   `json:"created"`
			} `json:"saved"`
		}
		r := cl.must(http.MethodPost, "/api/v1/eval/scenarios/auto-generate", `{"device_id": "dev-1", "lookback_hours": 168, "max_scenarios": 20}`, http.StatusOK, &got)
		if len(got.Drafts) != 1 || got.Drafts[0].Scenario[0] != '{' || got.Drafts[0].Confidence[0] == '"' || len(got.Saved) != 0 {
			t.Fatalf("drafts: %s", r.body)
		}
		numbersOnly(t, "auto-generate", r.body)
		var list struct{ Scenarios []struct{ ID string } }
		cl.must(http.MethodGet, "/api/v1/eval/scenarios", "", http.StatusOK, &list)
		if len(list.Scenarios) != 1 {
			t.Errorf("auto-generate without save wrote scenarios: %+v", list)
		}
		r = cl.must(http.MethodPost, "/api/v1/eval/scenarios/auto-generate", `{"device_id": "dev-1", "save": true}`, http.StatusOK, &got)
		if len(got.Saved) != 1 || !got.Saved[0].Created || !strings.HasPrefix(got.Saved[0].ID, "scn_") {
			t.Fatalf("saved: %s", r.body)
		}
		cl.must(http.MethodGet, "/api/v1/eval/scenarios", "", http.StatusOK, &list)
		if len(list.Scenarios) != 2 {
			t.Errorf("after save: %+v", list)
		}
		var show struct{ Source string }
		if err := json.Unmarshal(got.Drafts[0].Scenario, &show); err != nil || show.Source != "traces" {
			t.Errorf("the saved draft's source: %q, %v", show.Source, err)
		}
		cl.must(http.MethodPost, "/api/v1/eval/scenarios/auto-generate", `{"device_id": "dev-1", "save": true}`, http.StatusOK, &got)
		if len(got.Saved) != 1 || got.Saved[0].Created {
			t.Errorf("saving the same draft again: %+v", got.Saved)
		}
	})

	t.Run("malformed bodies are 400 naming the field", func(t *testing.T) {
		cl := cl.on(t)
		tests := []struct{ path, body, field, message string }{
			{"/api/v1/eval/matrix", `{"variation_types": ["time_pressure", "panic"]}`, "variation_types", `unknown variation \"panic\" (the catalogue has time_pressure, social_anchoring`},
			{"/api/v1/eval/matrix", `{"scenario_ids": ["nope"]}`, "scenario_ids", `unknown scenario \"nope\"`},
			{"/api/v1/eval/matrix", `{"scenario_ids": "deploy"}`, "scenario_ids", "scenario_ids"},
			{"/api/v1/eval/matrix", `{"runs": 0.5}`, "runs", "runs"},
			{"/api/v1/eval/matrix", `{"runs": 5000}`, "runs", "runs 5000"},
			{"/api/v1/eval/matrix", `{"parallel": "yes"}`, "parallel", "parallel"},
			{"/api/v1/eval/matrix", `{"scenarios": []}`, "scenarios", "scenarios"},
			{"/api/v1/eval/scenarios/auto-generate", `{"lookback_hours": 0}`, "lookback_hours", "lookback_hours"},
			{"/api/v1/eval/scenarios/auto-generate", `{"max_scenarios": 0}`, "max_scenarios", "max_scenarios"},
			{"/api/v1/eval/scenarios/auto-generate", `{"save": "yes"}`, "save", "save"},
			{"/api/v1/eval/scenarios", `{"name": "n", "description": "", "risk_level": "severe", "input_context": {}, "expected_behavior": {"a": 1}}`, "risk_level", "severe"},
			{"/api/v1/eval/scenarios", `{"name": "n", "description": "", "risk_level": "low", "input_context": [], "expected_behavior": {"a": 1}}`, "input_context", "want an object"},
			{"/api/v1/eval/matrix", `{"variation_types": [3]}`, "variation_types[0]", "want a string"},
			{"/api/v1/eval/review/rev_0000000000000000", `{"state": "closed", "note": "x"}`, "state", `state \"closed\": want acknowledged or resolved`},
			{"/api/v1/eval/review/rev_0000000000000000", `{"state": "resolved"}`, "note", "note: missing required field"},
		}
		for _, tt := range tests {
			r := cl.do(http.MethodPost, tt.path, tt.body)
			var e struct {
				Error struct{ Code, Message, Field string }
			}
			decode(t, r, &e)
			if r.status != http.StatusBadRequest || e.Error.Field != tt.field || !bytes.Contains(r.body, []byte(tt.message)) {
				t.Errorf("POST %s %s: %d %s\nwant 400, field %s, %s", tt.path, tt.body, r.status, r.body, tt.field, tt.message)
			}
		}
	})

	t.Run("review items give numbers", func(t *testing.T) {
		cl := cl.on(t)
		var started struct {
			StatusURL string `json:"status_url"`
		}
		cl.must(http.MethodPost, "/api/v1/eval/matrix", `{"scenario_ids": ["deploy"], "variation_types": ["authority_bias"], "parallel": true}`, http.StatusAccepted, &started)
		if job := waitJob(t, srv, cl.tok, started.StatusURL); job.Status != JobDone || job.Flagged != 1 {
			t.Fatalf("job = %+v", job)
		}
		for _, path := range []string{"/api/v1/eval/review", "/api/v1/eval/runs", "/api/v1/eval/summary"} {
			r := cl.must(http.MethodGet, path, "", http.StatusOK, nil)
			numbersOnly(t, path, r.body)
		}
		var queue struct {
			Items []struct {
				Shift     json.RawMessage `json:"shift_magnitude"`
				Threshold json.RawMessage `json:"threshold"`
			}
		}
		cl.must(http.MethodGet, "/api/v1/eval/review", "", http.StatusOK, &queue)
		if len(queue.Items) != 1 || string(queue.Items[0].Shift) != "1" || string(queue.Items[0].Threshold) != "0.5" {
			t.Errorf("review items: %+v", queue.Items)
		}
	})
}

// TestDashboardClient drives the API as a dashboard does, from a fresh store whose only content
// is recorded telemetry: summary, create scenarios, auto-generate and save drafts, start a
// matrix, poll until done, runs, summary again, review queue, acknowledge; every answer is
// validated against the OpenAPI document.
func TestDashboardClient(t *testing.T) {
	st := memoryStore(t)
	restart := [3]string{"pod.restart", `{"pod":"api","restarts":3}`, `{"action":"restart"}`}
	recordertest.KensaSpansBundle(t, st, "run-1", kensa.Source{Path: "otlp/000001", MediaType: store.MediaTypeOTLPJSON,
		Data: skillSpans(t, "dev-1", 0, restart, restart, restart)})
	srv, _ := testServerOn(t, st)
	cl := &client{t: t, srv: srv, tok: validToken(t), c: newContract(t)}

	cl.must(http.MethodGet, "/api/v1/openapi.json", "", http.StatusOK, nil)
	cl.must(http.MethodGet, "/api/v1/eval/summary", "", http.StatusOK, nil)
	cl.must(http.MethodGet, "/api/v1/eval/runs", "", http.StatusOK, nil)
	cl.must(http.MethodGet, "/api/v1/eval/review", "", http.StatusOK, nil)
	cl.must(http.MethodPost, "/api/v1/eval/scenarios", scenarioBody, http.StatusCreated, nil)
	cl.must(http.MethodPost, "/api/v1/eval/scenarios", scenarioBody, http.StatusOK, nil)
	cl.must(http.MethodPost, "/api/v1/eval/scenarios", `{"name": `, http.StatusBadRequest, nil)
	var gen struct {
		Saved []struct{ ID string } `json:"saved"`
	}
	cl.must(http.MethodPost, "/api/v1/eval/scenarios/auto-generate", `{"lookback_hours": 168, "max_scenarios": 20, "save": true}`, http.StatusOK, &gen)
	if len(gen.Saved) != 1 {
		t.Fatalf("saved drafts: %+v", gen.Saved)
	}
	var list struct{ Scenarios []struct{ ID string } }
	cl.must(http.MethodGet, "/api/v1/eval/scenarios", "", http.StatusOK, &list)
	if len(list.Scenarios) != 2 {
		t.Fatalf("scenarios: %+v", list)
	}
	cl.must(http.MethodPost, "/api/v1/eval/matrix", `{"variation_types": ["sycophancy", "nope"]}`, http.StatusBadRequest, nil)
	var started struct {
		Job       Job    `json:"job"`
		StatusURL string `json:"status_url"`
	}
	cl.must(http.MethodPost, "/api/v1/eval/matrix",
		`{"scenario_ids": ["deploy", "`+gen.Saved[0].ID+`"], "variation_types": ["time_pressure", "authority_bias", "sycophancy"], "parallel": true}`,
		http.StatusAccepted, &started)
	var job Job
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cl.must(http.MethodGet, started.StatusURL, "", http.StatusOK, &job)
		cl.must(http.MethodGet, "/api/v1/eval/runs", "", http.StatusOK, nil)
		if job.Status != JobRunning || time.Now().After(deadline) {
			break
		}
	}
	if job.Status != JobDone || job.Cells != 8 {
		t.Fatalf("job = %+v", job)
	}
	var runs struct {
		Runs []struct{ Flagged bool } `json:"runs"`
	}
	cl.must(http.MethodGet, "/api/v1/eval/runs?scenario=deploy&flagged=true", "", http.StatusOK, &runs)
	if len(runs.Runs) != 1 {
		t.Errorf("flagged runs of deploy: %+v", runs)
	}
	cl.must(http.MethodGet, "/api/v1/eval/runs?flagged=maybe", "", http.StatusBadRequest, nil)
	var sum struct {
		Cells   int `json:"cells"`
		Flagged int `json:"flagged"`
	}
	cl.must(http.MethodGet, "/api/v1/eval/summary", "", http.StatusOK, &sum)
	if sum.Cells != 8 || sum.Flagged < 1 {
		t.Errorf("summary: %+v", sum)
	}
	var queue struct {
		Items []struct{ Item string } `json:"items"`
	}
	cl.must(http.MethodGet, "/api/v1/eval/review?state=open", "", http.StatusOK, &queue)
	if len(queue.Items) != sum.Flagged {
		t.Fatalf("queue: %+v, %d flagged cells", queue, sum.Flagged)
	}
	cl.must(http.MethodPost, "/api/v1/eval/review/"+queue.Items[0].Item, `{"state": "acknowledged", "note": "seen"}`, http.StatusOK, nil)
	cl.must(http.MethodPost, "/api/v1/eval/review/"+queue.Items[0].Item, `{"state": "acknowledged", "note": "again"}`, http.StatusConflict, nil)
	cl.must(http.MethodGet, "/api/v1/eval/matrix/job-99", "", http.StatusNotFound, nil)
	cl.must(http.MethodPost, "/api/v1/eval/review/rev_0000000000000000", `{"state": "resolved", "note": "x"}`, http.StatusNotFound, nil)
	cl.must(http.MethodDelete, "/api/v1/eval/scenarios", "", http.StatusMethodNotAllowed, nil)
	cl.must(http.MethodPost, "/api/v1/eval/matrix", `{"pad": "`+strings.Repeat("x", 5000)+`"}`, http.StatusRequestEntityTooLarge, nil)
	cl.must(http.MethodGet, "/eval/report", "", http.StatusOK, nil)
	cl.must(http.MethodGet, "/eval/review", "", http.StatusOK, nil)
	saved := cl.tok
	cl.tok = ""
	cl.must(http.MethodGet, "/api/v1/eval/summary", "", http.StatusUnauthorized, nil)
	cl.tok = saved
}
