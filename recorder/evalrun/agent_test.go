package evalrun

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "agent", want: []string{"agent"}},
		{in: "  python3   agent.py --mode  fast ", want: []string{"python3", "agent.py", "--mode", "fast"}},
		{in: `agent 'two words' "and \"three\" words"`, want: []string{"agent", "two words", `and "three" words`}},
		{in: `agent $HOME *.py | tee x > y`, want: []string{"agent", "$HOME", "*.py", "|", "tee", "x", ">", "y"}},
		{in: `agent a\ b 'it'\''s'`, want: []string{"agent", "a b", "it's"}},
		{in: `agent "back\slash" ''`, want: []string{"agent", `back\slash`, ""}},
		{in: "agent 'open", err: true},
		{in: `agent "open`, err: true},
		{in: `agent \`, err: true},
		{in: "   ", err: true},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if tt.err {
			if !errors.Is(err, ErrAgent) {
				t.Errorf("SplitCommand(%q) = %q, %v; want ErrAgent", tt.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func ask(t *testing.T, a Agent, request string) *Reply {
	t.Helper()
	r, err := a.Ask(t.Context(), []byte(request), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func spooled(t *testing.T, s Spooled) string {
	t.Helper()
	b := s.Data
	if s.Path != "" {
		var err error
		if b, err = os.ReadFile(s.Path); err != nil {
			t.Fatal(err)
		}
	}
	if int64(len(b)) != s.Size || store.Sum(b) != store.Digest(s.SHA256) {
		t.Fatalf("spooled %s: size or digest does not match its content", s.Path)
	}
	return string(b)
}

func TestCommandAgent(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		limits Limits
		status string
		reason string
		answer string
		check  func(t *testing.T, r *Reply)
	}{
		{name: "answers on stdout, request on stdin", cmd: `sh -c 'cat; echo " done" >&2'`, status: store.EvalRunOK, answer: `{"q":1}`,
			check: func(t *testing.T, r *Reply) {
				if got := spooled(t, *r.Stderr); got != " done\n" || *r.Outcome.ExitCode != 0 {
					t.Errorf("stderr %q, exit %v", got, r.Outcome.ExitCode)
				}
			}},
		{name: "non-zero exit", cmd: `sh -c 'echo "{}"; exit 3'`, status: store.EvalRunFailed, reason: "exited with status 3", answer: "{}\n"},
		{name: "hangs", cmd: "sleep 30", limits: Limits{Timeout: 200 * time.Millisecond}, status: store.EvalRunFailed, reason: "timed out",
			check: func(t *testing.T, r *Reply) {
				if !r.Outcome.TimedOut {
					t.Error("TimedOut not set")
				}
			}},
		{name: "prints too much", cmd: "head -c 5000000 /dev/zero", limits: Limits{MaxAnswer: 1000}, status: store.EvalRunFailed, reason: "larger than 1000 bytes",
			check: func(t *testing.T, r *Reply) {
				if r.Answer.Size != 1000 || !r.Outcome.AnswerTruncated || r.Outcome.AnswerTotal != 5000000 {
					t.Errorf("answer %d bytes kept of %d, truncated %v", r.Answer.Size, r.Outcome.AnswerTotal, r.Outcome.AnswerTruncated)
				}
				spooled(t, r.Answer)
			}},
		{name: "no such program", cmd: "/nonexistent/agent", status: store.EvalRunFailed, reason: "did not start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAgent(tt.cmd, "v1", tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			r := ask(t, a, `{"q":1}`)
			if r.Outcome.Status != tt.status || !strings.Contains(r.Outcome.Reason, tt.reason) {
				t.Errorf("outcome = %+v, want %s with %q", r.Outcome, tt.status, tt.reason)
			}
			if tt.answer != "" {
				if got := spooled(t, r.Answer); got != tt.answer {
					t.Errorf("answer %q, want %q", got, tt.answer)
				}
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
	a, _ := NewAgent("/bin/echo hi", "v2", Limits{})
	if ep, id := a.Endpoint(), a.Identity(); ep.Kind != store.EvalAgentCommand || !slices.Equal(ep.Argv, []string{"/bin/echo", "hi"}) || id.Name != "echo" || id.Version != "v2" {
		t.Errorf("endpoint %+v, identity %+v", ep, id)
	}
}

func TestHTTPAgent(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON POST", http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"echo":` + string(body) + `}`))
	})
	mux.HandleFunc("/error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<16)
		for range 100 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, InMemory+10)) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)

	tests := []struct {
		path   string
		limits Limits
		status string
		reason string
		answer string
	}{
		{path: "/ok", status: store.EvalRunOK, answer: `{"echo":{"q":1}}`},
		{path: "/error", status: store.EvalRunFailed, reason: "HTTP 500", answer: "boom\n"},
		{path: "/slow", limits: Limits{Timeout: 200 * time.Millisecond}, status: store.EvalRunFailed, reason: "did not answer within 200ms"},
		{path: "/huge", limits: Limits{MaxAnswer: 1000}, status: store.EvalRunFailed, reason: "more than 1000 bytes"},
		{path: "/redirect", status: store.EvalRunFailed, reason: "HTTP 307"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			a, err := NewAgent(srv.URL+tt.path, "", tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			r := ask(t, a, `{"q":1}`)
			if r.Outcome.Status != tt.status || !strings.Contains(r.Outcome.Reason, tt.reason) {
				t.Errorf("outcome = %+v, want %s with %q", r.Outcome, tt.status, tt.reason)
			}
			got := spooled(t, r.Answer)
			if tt.answer != "" && got != tt.answer {
				t.Errorf("answer %q, want %q", got, tt.answer)
			}
			if tt.limits.MaxAnswer > 0 && r.Answer.Size != tt.limits.MaxAnswer {
				t.Errorf("kept %d bytes, want the cap %d", r.Answer.Size, tt.limits.MaxAnswer)
			}
		})
	}
	big, _ := NewAgent(srv.URL+"/big", "", Limits{})
	r := ask(t, big, `{}`)
	if r.Outcome.Status != store.EvalRunOK || r.Answer.Path == "" || len(spooled(t, r.Answer)) != InMemory+10 {
		t.Errorf("an answer longer than InMemory: %+v, spooled to %q", r.Outcome, r.Answer.Path)
	}
	if _, err := NewAgent("http://", "", Limits{}); !errors.Is(err, ErrAgent) {
		t.Errorf("NewAgent(http://) = %v", err)
	}
}

// A recorded run is reusable under other limits only when they would not have changed its
// outcome; the boundaries are the run's duration against the timeout and its answer's size
// against the cap.
func TestLimitsReusable(t *testing.T) {
	recorded := Limits{Timeout: time.Second, MaxAnswer: 100}
	run := func(durationMS string, answer int64, outcome store.EvalOutcome) *store.EvalRun {
		return &store.EvalRun{Outcome: outcome, Settings: recorded.Settings(),
			Answer: store.Descriptor{Size: answer}, NonScoring: map[string]string{durationKey: durationMS}}
	}
	ok := store.EvalOutcome{Status: store.EvalRunOK}
	exited := store.EvalOutcome{Status: store.EvalRunFailed, Reason: "the agent exited with status 3"}
	timedOut := store.EvalOutcome{Status: store.EvalRunFailed, TimedOut: true}
	truncated := store.EvalOutcome{Status: store.EvalRunFailed, AnswerTruncated: true, AnswerTotal: 500}
	tests := []struct {
		name string
		run  *store.EvalRun
		now  Limits
		want bool
	}{
		{"the same limits", run("400", 60, ok), recorded, true},
		{"a longer timeout", run("400", 60, ok), Limits{Timeout: time.Minute, MaxAnswer: 100}, true},
		{"a timeout just above the duration", run("400", 60, ok), Limits{Timeout: 401 * time.Millisecond, MaxAnswer: 100}, true},
		{"a timeout equal to the duration", run("400", 60, ok), Limits{Timeout: 400 * time.Millisecond, MaxAnswer: 100}, false},
		{"a cap equal to the answer", run("400", 60, ok), Limits{Timeout: time.Second, MaxAnswer: 60}, true},
		{"a cap below the answer", run("400", 60, ok), Limits{Timeout: time.Second, MaxAnswer: 59}, false},
		{"a failure of the agent's own, longer timeout", run("400", 10, exited), Limits{Timeout: time.Hour, MaxAnswer: 100}, true},
		{"a failure of the agent's own, timeout below its duration", run("400", 10, exited), Limits{Timeout: 300 * time.Millisecond, MaxAnswer: 100}, false},
		{"timed out, the same timeout", run("1000", 0, timedOut), recorded, true},
		{"timed out, a longer timeout", run("1000", 0, timedOut), Limits{Timeout: 2 * time.Second, MaxAnswer: 100}, false},
		{"timed out, a shorter timeout", run("1000", 0, timedOut), Limits{Timeout: time.Second / 2, MaxAnswer: 100}, false},
		{"timed out, another cap", run("1000", 0, timedOut), Limits{Timeout: time.Second, MaxAnswer: 1 << 20}, true},
		{"answer past the cap, the same cap", run("5", 100, truncated), recorded, true},
		{"answer past the cap, a larger cap", run("5", 100, truncated), Limits{Timeout: time.Second, MaxAnswer: 500}, false},
		{"answer past the cap, a smaller cap", run("5", 100, truncated), Limits{Timeout: time.Second, MaxAnswer: 50}, false},
		{"no recorded duration", run("", 60, ok), recorded, false},
		{"defaults against defaults", &store.EvalRun{Outcome: timedOut, Settings: Limits{}.Settings()}, Limits{}, true},
	}
	for _, tt := range tests {
		if got := tt.now.Reusable(tt.run); got != tt.want {
			t.Errorf("%s: Reusable = %v, want %v", tt.name, got, tt.want)
		}
	}
}
