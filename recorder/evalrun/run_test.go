package evalrun

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// echoAgent answers every request with {"echo": <request size>}, taking a fixed duration, or
// blocks until the context ends once block runs have started.
type echoAgent struct {
	started atomic.Int32
	block   int32 // runs from this number on wait for the context; 0: never
	delay   time.Duration
}

func (*echoAgent) Endpoint() store.EvalAgent {
	return store.EvalAgent{Kind: store.EvalAgentCommand, Argv: []string{"echo-agent"}}
}
func (*echoAgent) Identity() store.AgentIdentity { return store.AgentIdentity{Name: "echo-agent"} }

func (a *echoAgent) Ask(ctx context.Context, request []byte, dir string) (*Reply, error) {
	n := a.started.Add(1)
	if a.block > 0 && n >= a.block {
		<-ctx.Done()
		return nil, ErrInterrupted
	}
	time.Sleep(a.delay)
	answer := fmt.Appendf(nil, `{"echo":%d}`, len(request))
	return &Reply{Outcome: store.EvalOutcome{Status: store.EvalRunOK, AnswerTotal: int64(len(answer))},
		Answer: Spooled{Data: answer, Size: int64(len(answer)), SHA256: sha256.Sum256(answer)}, Duration: 42 * time.Millisecond}, nil
}

func memStore(t *testing.T) store.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// opener hands out st, failing the first fail opens as a store in use would.
func opener(st store.Store, fail int) Opener {
	var opens atomic.Int32
	return func(context.Context) (store.Store, func() error, error) {
		if int(opens.Add(1)) <= fail {
			return nil, nil, errors.New("store is in use by another process")
		}
		return st, func() error { return nil }, nil
	}
}

func testJobs(cells, runs int) []*Job {
	var jobs []*Job
	for c := range cells {
		key := store.Sum(fmt.Appendf(nil, "cell %d", c))
		for r := 1; r <= runs; r++ {
			jobs = append(jobs, &Job{Key: key, Run: r,
				Scenario:   store.EvalScenarioRef{ID: fmt.Sprintf("s%d", c), Name: "n", RiskLevel: "low", Content: store.Sum([]byte("content"))},
				Variation:  store.EvalVariationRef{ID: store.EvalBaseline},
				Request:    fmt.Appendf(nil, `{"cell":%d}`, c),
				Definition: Definition{ID: fmt.Sprintf("s%d", c), Version: store.EvalBaseline, Files: []File{{Path: "scenario.json", MediaType: store.MediaTypeEvalScenarioContent, Content: []byte("content")}}},
			})
		}
	}
	return jobs
}

func execute(t *testing.T, st store.Store, jobs []*Job, parallel int, agent Agent, ctx context.Context, failOpens int) ([]Recorded, error) {
	t.Helper()
	return Execute(ctx, jobs, Options{Agent: agent, Parallel: parallel, Recorder: store.RecorderInfo{Name: "test", Version: "1", Source: "test"},
		Open: opener(st, failOpens), FlushEvery: 10 * time.Millisecond, FlushSize: 4, SpoolDir: t.TempDir()})
}

// The bundles of a run do not depend on how many runs go at once, nor on when they are sealed.
func TestExecuteParallelIsDeterministic(t *testing.T) {
	var digests [][]store.Digest
	for _, parallel := range []int{1, 4} {
		st := memStore(t)
		recorded, err := execute(t, st, testJobs(3, 5), parallel, &echoAgent{}, t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		var ds []store.Digest
		for _, r := range recorded {
			ds = append(ds, r.Bundle)
		}
		digests = append(digests, ds)
		cell, err := LoadCell(t.Context(), st, testJobs(3, 5)[0].Key)
		if err != nil || cell == nil || len(cell.Runs) != 5 || cell.Runs[4].Run != 5 {
			t.Fatalf("cell index = %+v, %v", cell, err)
		}
		if rep, err := store.Check(t.Context(), st, store.CheckOptions{}); err != nil || len(rep.Problems) > 0 {
			t.Fatalf("store check: %+v, %v", rep, err)
		}
	}
	if fmt.Sprint(digests[0]) != fmt.Sprint(digests[1]) || len(digests[0]) != 15 {
		t.Errorf("--parallel 1 and 4 give different bundles:\n%v\n%v", digests[0], digests[1])
	}
}

// An interrupted execution seals every finished run and reports ErrInterrupted.
func TestExecuteInterrupted(t *testing.T) {
	st := memStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	agent := &echoAgent{block: 6}
	time.AfterFunc(300*time.Millisecond, cancel)
	recorded, err := execute(t, st, testJobs(2, 5), 1, agent, ctx, 0)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if len(recorded) != 5 {
		t.Fatalf("%d runs sealed, want the 5 that finished", len(recorded))
	}
	sealed, _ := store.SealedBundles(t.Context(), st)
	if len(sealed) != 5 {
		t.Errorf("%d sealed bundles in the store", len(sealed))
	}
}

// A store in use when runs finish is tried again; the runs are sealed once it is free.
func TestExecuteStoreBusy(t *testing.T) {
	st := memStore(t)
	recorded, err := execute(t, st, testJobs(1, 3), 1, &echoAgent{}, t.Context(), 2)
	if err != nil || len(recorded) != 3 {
		t.Fatalf("recorded %d, err %v", len(recorded), err)
	}
	_, err = execute(t, memStore(t), testJobs(1, 2), 1, &echoAgent{}, t.Context(), 100)
	if err == nil || !strings.Contains(err.Error(), "2 finished runs could not be sealed: store is in use") {
		t.Fatalf("a store that never opens: err = %v", err)
	}
}
