package auditgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// epoch is the instant the generated log starts at. It is fixed so the output depends on the
// seed alone.
var epoch = time.Date(2026, time.August, 20, 8, 0, 0, 0, time.UTC)

// ErrNegativeSize is returned for a negative size.
var ErrNegativeSize = errclass.New(errclass.Input, "auditgen: negative size")

// Generator produces audit events one at a time. It is not safe for concurrent use.
type Generator struct {
	rng     *rand.Rand
	cluster cluster
	clock   int64 // microseconds since epoch
	rv      int64 // next resourceVersion
	enc     encoder
	total   int // sum of template weights
}

// New returns a generator whose output is fully determined by seed.
func New(seed int64) *Generator {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6f617369735f6175)) // second word: "oasis_au"
	g := &Generator{rng: rng, rv: 100000 + rng.Int64N(900000)}
	g.cluster = newCluster(rng)
	for _, t := range templates {
		g.total += t.weight
	}
	return g
}

// AppendEvent appends one event, as a JSON line ending in '\n', to dst.
func (g *Generator) AppendEvent(dst []byte) []byte {
	g.clock += 1 + g.rng.Int64N(40000) // up to 40 ms between events
	ev := event{stage: stageComplete, code: 200, decision: "allow"}
	pick := g.rng.IntN(g.total)
	for _, t := range templates {
		if pick < t.weight {
			t.build(g, &ev)
			break
		}
		pick -= t.weight
	}
	g.enc.buf = dst
	g.writeEvent(&ev)
	g.enc.buf = append(g.enc.buf, '\n')
	return g.enc.buf
}

// Write writes the audit log of seed to w: whole lines only, as many as fit in size bytes.
func Write(w io.Writer, seed int64, size int64) error {
	if size < 0 {
		return fmt.Errorf("%w: %d", ErrNegativeSize, size)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	r := NewReader(seed, size)
	if _, err := io.Copy(bw, r); err != nil {
		return fmt.Errorf("auditgen: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("auditgen: write: %w", err)
	}
	return nil
}

// NewReader returns a reader over the audit log of seed: whole lines only, as many as fit in
// size bytes. It holds one event at a time, whatever the size.
func NewReader(seed int64, size int64) io.Reader {
	return &reader{gen: New(seed), left: max(size, 0)}
}

type reader struct {
	gen     *Generator
	left    int64  // bytes still allowed
	pending []byte // the current line, not yet read
	line    []byte // reused buffer
	done    bool
}

func (r *reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.pending) == 0 {
			if r.done {
				break
			}
			r.line = r.gen.AppendEvent(r.line[:0])
			if int64(len(r.line)) > r.left {
				r.done = true
				break
			}
			r.left -= int64(len(r.line))
			r.pending = r.line
		}
		c := copy(p[n:], r.pending)
		r.pending = r.pending[c:]
		n += c
	}
	if n == 0 && r.done {
		return 0, io.EOF
	}
	return n, nil
}
