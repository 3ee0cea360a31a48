package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// progressRefresh is how often the progress line is drawn again whether or not anything
// changed: the bar draws at most every 100 ms and drops a change that comes sooner (a run
// started just after another change), which would otherwise stay unseen while the agent runs.
const progressRefresh = 250 * time.Millisecond

// cellProgress draws the progress of a run or matrix on stderr when it is a terminal: cells
// done, running and reused, and runs sealed. Off a terminal it draws nothing.
type cellProgress struct {
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	stop    chan struct{}        // closed by finish
	stopped chan struct{}        // closed when refresh has returned
	left    map[store.Digest]int // runs still to seal, per cell key
	running map[store.Digest]int // runs in flight, per cell key
	cells   int
	reused  int
	done    int
	runs    int
	sealed  int
}

func newCellProgress(stderr io.Writer, p *evallib.Plan) *cellProgress {
	cp := &cellProgress{left: map[store.Digest]int{}, running: map[store.Digest]int{}, cells: len(p.Cells),
		reused: p.ReusedCells, done: p.ReusedCells, runs: len(p.Jobs)}
	for _, j := range p.Jobs {
		cp.left[j.Key]++
	}
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || len(p.Jobs) == 0 {
		return cp
	}
	cp.bar = progressbar.NewOptions(cp.cells,
		progressbar.OptionSetWriter(f),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionShowCount(),
	)
	cp.redraw()
	cp.stop, cp.stopped = make(chan struct{}), make(chan struct{})
	go cp.refresh()
	return cp
}

// refresh draws the line every progressRefresh until finish.
func (cp *cellProgress) refresh() {
	defer close(cp.stopped)
	tick := time.NewTicker(progressRefresh)
	defer tick.Stop()
	for {
		select {
		case <-cp.stop:
			return
		case <-tick.C:
			cp.mu.Lock()
			cp.redraw()
			cp.mu.Unlock()
		}
	}
}

// redraw updates the bar; the caller holds mu.
func (cp *cellProgress) redraw() {
	if cp.bar == nil {
		return
	}
	running := 0
	for _, n := range cp.running {
		if n > 0 {
			running++
		}
	}
	cp.bar.Describe(fmt.Sprintf("cells: %d done (%d reused), %d running; runs: %d/%d sealed", cp.done, cp.reused, running, cp.sealed, cp.runs))
	_ = cp.bar.Set(cp.done)
}

func (cp *cellProgress) Started(j *evalrun.Job) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.running[j.Key]++
	cp.redraw()
}

func (cp *cellProgress) Finished(j *evalrun.Job, _ *evalrun.Reply) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.running[j.Key]--
	cp.redraw()
}

func (cp *cellProgress) Sealed(jobs []*evalrun.Job) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for _, j := range jobs {
		cp.sealed++
		if cp.left[j.Key]--; cp.left[j.Key] == 0 {
			cp.done++
		}
	}
	cp.redraw()
}

func (cp *cellProgress) finish() {
	if cp.bar != nil {
		close(cp.stop)
		<-cp.stopped
		_ = cp.bar.Finish()
	}
}
