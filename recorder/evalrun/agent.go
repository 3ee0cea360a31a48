package evalrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/freespace"
	"github.com/oasis-replay/oasis-replay/recorder/command"
	"github.com/oasis-replay/oasis-replay/store"
)

// Errors of the package.
var (
	// ErrAgent: the agent is not usable as given (an empty or malformed command, a bad URL).
	ErrAgent = errclass.New(errclass.Input, "evalrun: bad agent")
	// ErrInterrupted: the run was interrupted (the context ended) before the agent answered;
	// nothing of it is recorded.
	ErrInterrupted = errclass.New(errclass.Environment, "evalrun: interrupted")
)

// Limits bound one run of the agent.
type Limits struct {
	// Timeout bounds a run; the agent's process group is killed, or the HTTP request
	// abandoned, when it passes. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxAnswer caps the answer kept, in bytes; an agent that says more fails the run, and the
	// first MaxAnswer bytes are kept as evidence. Zero means DefaultMaxAnswer.
	MaxAnswer int64
	// MaxStderr caps the command's stderr kept; more is counted and dropped (not a failure).
	// Zero means DefaultMaxStderr.
	MaxStderr int64
}

// Defaults of Limits.
const (
	DefaultTimeout   = 5 * time.Minute
	DefaultMaxAnswer = 16 << 20
	DefaultMaxStderr = 1 << 20
)

func (l Limits) resolve() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxAnswer <= 0 {
		l.MaxAnswer = DefaultMaxAnswer
	}
	if l.MaxStderr <= 0 {
		l.MaxStderr = DefaultMaxStderr
	}
	return l
}

// Settings are the limits as a run manifest records them.
func (l Limits) Settings() map[string]string {
	l = l.resolve()
	return map[string]string{
		"timeout":    l.Timeout.String(),
		"max_answer": fmt.Sprint(l.MaxAnswer),
		"max_stderr": fmt.Sprint(l.MaxStderr),
	}
}

// Reusable reports whether run m, recorded under the limits its manifest names, would have
// ended the same way under l, so that a later run or matrix may take it instead of asking the
// agent again (docs/decisions.md, "Runs are bundles; reuse"). A run that ran into a limit
// (timed out, or answered past the cap) is reusable only under that same limit: a looser one
// may let the agent answer, a tighter one would keep other bytes. Any other run is reusable
// while its recorded duration is under the timeout and its answer within the cap. The stderr cap
// decides nothing about a run and is not compared.
func (l Limits) Reusable(m *store.EvalRun) bool {
	now := l.Settings()
	l = l.resolve()
	if m.Outcome.TimedOut {
		if m.Settings["timeout"] != now["timeout"] {
			return false
		}
	} else if ms, err := strconv.ParseInt(m.NonScoring[durationKey], 10, 64); err != nil || ms >= l.Timeout.Milliseconds() {
		return false
	}
	if m.Outcome.AnswerTruncated {
		return m.Settings["max_answer"] == now["max_answer"]
	}
	return m.Answer.Size <= l.MaxAnswer
}

// Spooled is a captured stream: in memory (Data) when it is short, else in a file (Path).
type Spooled struct {
	Path   string
	Data   []byte
	Size   int64
	SHA256 [sha256.Size]byte
}

// remove deletes the stream's file, if it has one.
func (sp Spooled) remove() {
	if sp.Path != "" {
		_ = os.Remove(sp.Path)
	}
}

// InMemory is how much of each stream a run keeps in memory before spooling it to a file: an
// answer of a usual size never touches the disk before it is stored.
const InMemory = 256 << 10

// Reply is what one run of the agent gave.
type Reply struct {
	Outcome store.EvalOutcome
	Answer  Spooled
	// Stderr is the command's standard error; nil for HTTP agents.
	Stderr   *Spooled
	Duration time.Duration
}

// Agent answers one request per run: a command (argv, request on stdin, answer on stdout) or
// an HTTP endpoint (request as the POST body, answer as the response body).
type Agent interface {
	// Endpoint is how the agent is reached, as run manifests record it.
	Endpoint() store.EvalAgent
	// Identity names the agent in listings and cell keys.
	Identity() store.AgentIdentity
	// Ask sends one request and waits for the answer, keeping what it says in memory or, when it
	// is long, in files of their own in dir (which must exist). A run that fails (non-zero exit, timeout, HTTP error, answer over the
	// cap) is a Reply with Outcome.Status "failed"; the error is for runs that cannot be
	// recorded: ErrInterrupted when ctx ended, or a spool failure.
	Ask(ctx context.Context, request []byte, dir string) (*Reply, error)
}

// NewAgent returns the agent named by spec: an http:// or https:// URL, or a command line
// split by SplitCommand. version labels the agent (--agent-version), so that runs of an updated
// agent whose command did not change are not taken for runs of the old one.
func NewAgent(spec, version string, limits Limits) (Agent, error) {
	limits = limits.resolve()
	trimmed := strings.TrimSpace(spec)
	if strings.HasPrefix(trimmed, "http://") || strings.HasPrefix(trimmed, "https://") {
		u, err := url.Parse(trimmed)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("%w: %q is not a usable URL", ErrAgent, spec)
		}
		return &httpAgent{url: u.String(), host: u.Host, version: version, limits: limits,
			client: &http.Client{
				// A redirect would re-send the request elsewhere; the endpoint is the URL given.
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			}}, nil
	}
	argv, err := SplitCommand(spec)
	if err != nil {
		return nil, err
	}
	return &commandAgent{argv: argv, version: version, limits: limits}, nil
}

type commandAgent struct {
	argv    []string
	version string
	limits  Limits
	// patterns are the --agent-files patterns naming the agent's files (agentfiles.go).
	patterns []string
}

func (a *commandAgent) Endpoint() store.EvalAgent {
	return store.EvalAgent{Kind: store.EvalAgentCommand, Argv: a.argv}
}

func (a *commandAgent) Identity() store.AgentIdentity {
	return store.AgentIdentity{Name: filepath.Base(a.argv[0]), Version: a.version}
}

// Ask runs the command once. The agent inherits the environment of oasis-replay (it is the
// user's own program, which may need its API keys); the environment is not recorded.
func (a *commandAgent) Ask(ctx context.Context, request []byte, dir string) (*Reply, error) {
	res, err := command.Run(ctx, command.Spec{
		Argv:      a.argv,
		Env:       os.Environ(),
		Stdin:     bytes.NewReader(request),
		Timeout:   a.limits.Timeout,
		MaxOutput: max(a.limits.MaxAnswer, a.limits.MaxStderr),
		SpoolDir:  dir,
		InMemory:  InMemory,
	})
	if err != nil {
		return nil, fmt.Errorf("evalrun: %w", err)
	}
	if res.Cancelled {
		spooledOf(res.Stdout).remove()
		spooledOf(res.Stderr).remove()
		return nil, ErrInterrupted
	}
	answer, err := capSpooled(res.Stdout, a.limits.MaxAnswer)
	if err != nil {
		return nil, err
	}
	stderr, err := capSpooled(res.Stderr, a.limits.MaxStderr)
	if err != nil {
		return nil, err
	}
	out := store.EvalOutcome{Status: store.EvalRunOK, AnswerTotal: res.Stdout.Total,
		AnswerTruncated: res.Stdout.Total > a.limits.MaxAnswer, TimedOut: res.TimedOut, Signal: res.Signal}
	if res.StartError == "" {
		code := res.ExitCode
		out.ExitCode = &code
	}
	switch {
	case !res.OK():
		out.Status, out.Reason = store.EvalRunFailed, "the agent "+res.Describe()
	case out.AnswerTruncated:
		out.Status, out.Reason = store.EvalRunFailed, fmt.Sprintf("the answer is larger than %d bytes (%d bytes written)", a.limits.MaxAnswer, res.Stdout.Total)
	}
	return &Reply{Outcome: out, Answer: answer, Stderr: &stderr, Duration: res.Duration}, nil
}

func spooledOf(o command.Output) Spooled {
	return Spooled{Path: o.Path, Data: o.Data, Size: o.Size, SHA256: o.SHA256}
}

// capSpooled cuts a captured stream to limit bytes (the capture's cap is the larger of the two
// limits), rehashing what is kept when it was cut.
func capSpooled(o command.Output, limit int64) (Spooled, error) {
	sp := spooledOf(o)
	if sp.Size <= limit {
		return sp, nil
	}
	if sp.Path == "" {
		sp.Data, sp.Size = sp.Data[:limit], limit
		sp.SHA256 = sha256.Sum256(sp.Data)
		return sp, nil
	}
	if err := os.Truncate(sp.Path, limit); err != nil {
		return Spooled{}, fmt.Errorf("%w: %v", command.ErrSpool, err)
	}
	return hashFile(sp.Path)
}

func hashFile(path string) (Spooled, error) {
	f, err := os.Open(path)
	if err != nil {
		return Spooled{}, fmt.Errorf("%w: %v", command.ErrSpool, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Spooled{}, fmt.Errorf("%w: %v", command.ErrSpool, err)
	}
	s := Spooled{Path: path, Size: n}
	copy(s.SHA256[:], h.Sum(nil))
	return s, nil
}

type httpAgent struct {
	url      string
	host     string
	version  string
	limits   Limits
	client   *http.Client
	patterns []string // --agent-files (agentfiles.go)
}

func (a *httpAgent) Endpoint() store.EvalAgent {
	return store.EvalAgent{Kind: store.EvalAgentHTTP, URL: a.url}
}

func (a *httpAgent) Identity() store.AgentIdentity {
	return store.AgentIdentity{Name: a.host, Version: a.version}
}

// Ask POSTs the request and keeps the response body up to the cap, in memory when it is short.
// A transport error, a timeout, a status outside 2xx or a body over the cap fails the run.
func (a *httpAgent) Ask(ctx context.Context, request []byte, dir string) (*Reply, error) {
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, a.limits.Timeout)
	defer cancel()
	out := store.EvalOutcome{Status: store.EvalRunOK}
	answer, err := a.post(runCtx, request, dir, &out)
	if err != nil {
		answer.remove()
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		if errors.Is(err, command.ErrSpool) {
			return nil, err
		}
		out.Status, out.Reason = store.EvalRunFailed, "the endpoint "+describeHTTPError(runCtx, err, a.limits.Timeout)
		out.TimedOut = runCtx.Err() == context.DeadlineExceeded
		answer = Spooled{Data: []byte{}, SHA256: sha256.Sum256(nil)}
	}
	return &Reply{Outcome: out, Answer: answer, Duration: time.Since(start)}, nil
}

// post sends the request and reads the body up to the cap: in memory up to InMemory bytes,
// in a file of its own in dir beyond.
func (a *httpAgent) post(ctx context.Context, request []byte, dir string, out *store.EvalOutcome) (Spooled, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(request))
	if err != nil {
		return Spooled{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return Spooled{}, err
	}
	defer resp.Body.Close()
	out.HTTPStatus = resp.StatusCode
	body := io.LimitReader(resp.Body, a.limits.MaxAnswer+1)
	head, err := io.ReadAll(io.LimitReader(body, InMemory+1))
	if err != nil {
		return Spooled{}, fmt.Errorf("reading the response: %w", err)
	}
	answer := Spooled{Data: head, Size: int64(len(head))}
	if len(head) > InMemory {
		if answer, err = spoolBody(dir, head, body); err != nil {
			return answer, err
		}
	}
	out.AnswerTotal = answer.Size
	if answer.Size > a.limits.MaxAnswer {
		// Keep the first MaxAnswer bytes; the rest is not read (AnswerTotal is then a lower bound).
		if answer, err = capSpooled(command.Output{Path: answer.Path, Data: answer.Data, Size: answer.Size}, a.limits.MaxAnswer); err != nil {
			return answer, err
		}
		out.AnswerTruncated = true
		out.Status, out.Reason = store.EvalRunFailed, fmt.Sprintf("the endpoint answered more than %d bytes", a.limits.MaxAnswer)
		return answer, nil
	}
	if answer.Path == "" {
		answer.SHA256 = sha256.Sum256(answer.Data)
	} else if answer, err = hashFile(answer.Path); err != nil {
		return answer, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		out.Status, out.Reason = store.EvalRunFailed, "the endpoint answered HTTP "+resp.Status
	}
	return answer, nil
}

// freeSpace measures the free space of the spool's file system (nil: statfs); tests replace it.
var freeSpace freespace.Func

// spoolBody writes head and the rest of body to a file of its own in dir, keeping the free
// space the store keeps (freespace.Margin), as command's captured streams do: an endpoint
// answering without end must not fill the file system the store is on.
func spoolBody(dir string, head []byte, body io.Reader) (Spooled, error) {
	f, err := os.CreateTemp(dir, "answer-*")
	if err != nil {
		return Spooled{}, fmt.Errorf("%w: %v", command.ErrSpool, err)
	}
	defer f.Close()
	sp := Spooled{Path: f.Name()}
	w := freespace.New(dir, freeSpace).Writer(f)
	if _, err := w.Write(head); err != nil {
		return sp, fmt.Errorf("%w: %w", command.ErrSpool, err)
	}
	n, err := io.Copy(w, body)
	switch {
	case errors.Is(err, freespace.ErrNoSpace):
		return sp, fmt.Errorf("%w: %w", command.ErrSpool, err)
	case err != nil:
		return sp, fmt.Errorf("reading the response: %w", err)
	}
	sp.Size = int64(len(head)) + n
	return sp, nil
}

func describeHTTPError(ctx context.Context, err error, timeout time.Duration) string {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Sprintf("did not answer within %s", timeout)
	}
	return "failed: " + err.Error()
}
