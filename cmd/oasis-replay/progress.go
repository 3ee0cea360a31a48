package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws a progress bar on stderr for long transfers, only when stderr is a terminal:
// scripts and CI logs get no control characters.
type progress struct {
	bar  *progressbar.ProgressBar
	last int64
}

// newProgress returns a progress bar over total bytes (-1 when unknown), or nil when stderr
// is not a terminal. A nil *progress is valid and draws nothing.
func newProgress(stderr io.Writer, total int64, description string) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100_000_000), // 100 ms
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar}
}

// set moves the bar to done bytes.
func (p *progress) set(done int64) {
	if p == nil || done == p.last {
		return
	}
	p.last = done
	_ = p.bar.Set64(done)
}

// finish removes the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	_ = p.bar.Finish()
}
