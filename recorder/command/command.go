package command

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// ErrSpool: the output of a command could not be captured (the spool directory is unusable).
var ErrSpool = errclass.New(errclass.Environment, "command: cannot capture output")

// DefaultMaxOutput caps each captured stream when Spec.MaxOutput is zero.
const DefaultMaxOutput = 64 << 20

// DefaultGrace is how long a process group has between SIGTERM and SIGKILL.
const DefaultGrace = 2 * time.Second

// Spec describes one run of a command.
type Spec struct {
	// Argv is the program and its arguments; Argv[0] is looked up in PATH. No shell is involved.
	Argv []string
	// Env is the complete environment of the process ("KEY=value"); nil gives it none.
	Env []string
	// Dir is the working directory; "" is the caller's.
	Dir string
	// Stdin is read to EOF as the process's standard input; nil gives it an empty one.
	Stdin io.Reader
	// Timeout bounds the run; zero means no bound other than the context.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means DefaultGrace.
	Grace time.Duration
	// MaxOutput caps each of stdout and stderr, in bytes; zero means DefaultMaxOutput.
	MaxOutput int64
	// SpoolDir receives the captured streams as files (stdout, stderr); it must exist.
	SpoolDir string
	// InMemory keeps up to this many bytes of each stream in memory (Output.Data) instead of a
	// file; a stream that goes past it is spooled from its first byte to a file created in
	// SpoolDir then, under a name of its own (stdout-*, stderr-*), so runs may share SpoolDir.
	// Zero spools every stream to SpoolDir/stdout and SpoolDir/stderr.
	InMemory int64
	// Space admits every byte written to SpoolDir; nil measures SpoolDir's file system, so a
	// captured stream stops before it takes the free space the store keeps (freespace.Margin).
	Space *freespace.Guard
}

// Output is one captured stream.
type Output struct {
	// Path is the spooled file holding the first Size bytes of the stream; "" when the stream
	// stayed in memory (Spec.InMemory), its bytes then in Data.
	Path string
	Data []byte
	// Size is how many bytes were kept; Truncated says the stream went on past MaxOutput.
	Size      int64
	Truncated bool
	// Total is how many bytes the process wrote, kept or not.
	Total int64
	// SHA256 is the digest of the kept bytes.
	SHA256 [sha256.Size]byte
}

// Result is what one run did.
type Result struct {
	// StartError is why the process could not start (no such program, not executable); the other
	// fields but Start and Duration are then zero.
	StartError string
	// ExitCode is the exit status, or -1 when the process was killed by a signal.
	ExitCode int
	// Signal names the signal that ended the process ("killed", "terminated"), if one did.
	Signal string
	// TimedOut is set when Spec.Timeout passed; Cancelled when the context was cancelled first.
	TimedOut  bool
	Cancelled bool
	Stdout    Output
	Stderr    Output
	// Start and Duration are wall-clock facts about the run (non-scoring metadata).
	Start    time.Time
	Duration time.Duration
}

// OK reports whether the command started and exited with status 0 on its own.
func (r *Result) OK() bool {
	return r.StartError == "" && r.ExitCode == 0 && r.Signal == "" && !r.TimedOut && !r.Cancelled
}

// Describe says in a few words how the run ended, for error messages and reports.
func (r *Result) Describe() string {
	switch {
	case r.StartError != "":
		return "did not start: " + r.StartError
	case r.TimedOut:
		return "timed out and was killed"
	case r.Cancelled:
		return "was interrupted"
	case r.Signal != "":
		return "was killed by signal " + r.Signal
	case r.ExitCode != 0:
		return fmt.Sprintf("exited with status %d", r.ExitCode)
	}
	return "exited with status 0"
}

// Run runs the command described by spec and waits for it and its output to end.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, fmt.Errorf("command: empty argv")
	}
	if spec.Space == nil {
		spec.Space = freespace.New(spec.SpoolDir, nil)
	}
	stdout, err := newCapture(spec, "stdout")
	if err != nil {
		return nil, err
	}
	defer stdout.close()
	stderr, err := newCapture(spec, "stderr")
	if err != nil {
		return nil, err
	}
	defer stderr.close()

	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = spec.Env, spec.Dir, spec.Stdin
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that left the group could hold the pipes open after the process ended: stop
	// waiting for them after the grace period.
	cmd.WaitDelay = spec.grace()

	res := &Result{Start: time.Now()}
	if err := cmd.Start(); err != nil {
		res.StartError = startError(err)
		res.Duration = time.Since(res.Start)
		return res, finish(res, stdout, stderr)
	}
	res.TimedOut, res.Cancelled = supervise(ctx, cmd, spec)
	res.Duration = time.Since(res.Start)
	res.ExitCode, res.Signal = exitStatus(cmd.ProcessState)
	return res, finish(res, stdout, stderr)
}

// supervise waits for cmd and ends its process group however the run ends: when the timeout
// passes, when ctx ends, and when the command exits on its own, so that no background child
// of the agent outlives the run (a child left running would go on spending, writing and
// holding the pipes after the run was recorded).
func supervise(ctx context.Context, cmd *exec.Cmd, spec Spec) (timedOut, cancelled bool) {
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is read from ProcessState
		close(done)
	}()
	// exited is closed as soon as the leader exits, before it is reaped: cmd.Wait also waits for
	// the pipes, which a background child holds open until the group is ended.
	exited := make(chan struct{})
	go func() {
		waitExited(cmd.Process.Pid, done)
		close(exited)
	}()
	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-exited:
	case <-timeout:
		timedOut = true
	case <-ctx.Done():
		cancelled = true
	}
	stopGroup(cmd.Process.Pid, spec.grace(), done)
	return timedOut, cancelled
}

// stopGroup sends SIGTERM to the process group, then SIGKILL if it is still there after grace,
// and waits for the leader to be reaped. The leader's pid names the group for as long as any
// member lives (even the leader as a zombie, which cmd.Wait reaps), so the signals cannot reach
// another program's group; an empty group makes them fail with ESRCH, which is ignored.
func stopGroup(pid int, grace time.Duration, done <-chan struct{}) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		_ = syscall.Kill(-pid, syscall.SIGKILL) // children that ignored SIGTERM
	case <-t.C:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
}

func exitStatus(ps *os.ProcessState) (code int, signal string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return ps.ExitCode(), ""
}

func startError(err error) string {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Sprintf("%s: %v", pathErr.Path, pathErr.Err)
	}
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		return fmt.Sprintf("%s: %v", execErr.Name, execErr.Err)
	}
	return err.Error()
}

func finish(res *Result, stdout, stderr *capture) error {
	var err error
	res.Stdout, err = stdout.result()
	if err != nil {
		return err
	}
	res.Stderr, err = stderr.result()
	return err
}

func (s Spec) maxOutput() int64 {
	if s.MaxOutput > 0 {
		return s.MaxOutput
	}
	return DefaultMaxOutput
}

func (s Spec) grace() time.Duration {
	if s.Grace > 0 {
		return s.Grace
	}
	return DefaultGrace
}

// capture is an io.Writer that keeps the first max bytes of a stream, in memory up to memMax
// bytes and in a file beyond, hashing them, and counts (and discards) the rest.
type capture struct {
	dir, name string
	memMax    int64
	mem       []byte
	f         *os.File
	space     *freespace.Guard
	h         hash.Hash
	max       int64
	kept      int64
	total     int64
	err       error
}

// newCapture prepares the capture of one stream. Without an in-memory allowance its file is
// created at once, so an unusable spool directory is reported before the command starts.
func newCapture(spec Spec, name string) (*capture, error) {
	c := &capture{dir: spec.SpoolDir, name: name, memMax: spec.InMemory, h: sha256.New(), max: spec.maxOutput(), space: spec.Space}
	if c.memMax <= 0 {
		if err := c.spill(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// spill creates the stream's file and moves what memory holds into it.
func (c *capture) spill() error {
	var err error
	if c.memMax <= 0 {
		c.f, err = os.OpenFile(filepath.Join(c.dir, c.name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	} else {
		c.f, err = os.CreateTemp(c.dir, c.name+"-*")
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSpool, err)
	}
	if err := c.space.Admit(int64(len(c.mem))); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrSpool, c.f.Name(), err)
	}
	if _, err := c.f.Write(c.mem); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrSpool, c.f.Name(), err)
	}
	c.mem = nil
	return nil
}

// Write never fails towards the process: a spool write error is kept and reported by result,
// and the rest of the stream is discarded, so the agent does not block or die of EPIPE.
func (c *capture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	keep := p
	if room := c.max - c.kept; int64(len(keep)) > room {
		keep = keep[:max(room, 0)]
	}
	if len(keep) == 0 || c.err != nil {
		return len(p), nil
	}
	if c.f == nil && c.kept+int64(len(keep)) > c.memMax {
		if c.err = c.spill(); c.err != nil {
			return len(p), nil
		}
	}
	if c.f == nil {
		c.mem = append(c.mem, keep...)
	} else if err := c.space.Admit(int64(len(keep))); err != nil {
		c.err = err
		return len(p), nil
	} else if _, err := c.f.Write(keep); err != nil {
		c.err = err
		return len(p), nil
	}
	c.h.Write(keep)
	c.kept += int64(len(keep))
	return len(p), nil
}

// result describes the captured stream. The spool file is not synced: it lives only until the
// caller stores its bytes (checked against SHA256), and a crash loses the run either way, so an
// fsync per stream would only slow every run down.
func (c *capture) result() (Output, error) {
	if c.err != nil {
		return Output{}, fmt.Errorf("%w: %s: %v", ErrSpool, c.name, c.err)
	}
	out := Output{Size: c.kept, Truncated: c.total > c.kept, Total: c.total}
	if c.f != nil {
		out.Path = c.f.Name()
	} else {
		out.Data = c.mem
		if out.Data == nil {
			out.Data = []byte{}
		}
	}
	copy(out.SHA256[:], c.h.Sum(nil))
	return out, nil
}

func (c *capture) close() {
	if c.f != nil {
		_ = c.f.Close()
	}
}
