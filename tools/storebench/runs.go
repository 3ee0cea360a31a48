package main

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// runs writes n variants of oasisctl output directories into OUT/run-NN, for the storage
// benchmark (scripts/bench-dedup.sh). Variant i of a base run keeps its content and changes what
// differs between two executions of the same evaluation: every timestamp moves by a few
// seconds, every UUID (audit IDs, object UIDs) is replaced, resource versions change. With
// -agents, variant i also comes from base i mod len(bases) and names another agent, whose
// answers and reasoning carry a sentence of their own: runs of differing agents. The output is
// a function of the bases, n, the seed and -agents only.
func runs(args []string) error {
	fs := flag.NewFlagSet("runs", flag.ExitOnError)
	n := fs.Int("n", 20, "variants to write")
	seed := fs.Int64("seed", 1, "seed of the variations")
	agents := fs.Bool("agents", false, "variants of differing agents, drawn from every base in turn")
	out := fs.String("o", "", "output directory (must not exist)")
	fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("runs: -o DIR and at least one base oasisctl directory are required")
	}
	bases := fs.Args()
	for i := range *n {
		base := bases[0]
		if *agents {
			base = bases[i%len(bases)]
		}
		v := variation{run: i, seed: *seed, agent: *agents}
		if err := v.copyDir(base, filepath.Join(*out, fmt.Sprintf("run-%02d", i))); err != nil {
			return err
		}
	}
	return nil
}

type variation struct {
	run   int
	seed  int64
	agent bool
}

var (
	timestampRE = regexp.MustCompile(`20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	uuidRE      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rvRE        = regexp.MustCompile(`"resourceVersion": ?"(\d+)"`)
	agentRE     = regexp.MustCompile(`scripted-agent`)
	answerRE    = regexp.MustCompile(`"(final_answer|reasoning_trace)": "`)
)

func (v variation) copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, v.apply(b), 0o644)
	})
}

// apply changes one file.
func (v variation) apply(b []byte) []byte {
	shift := time.Duration(v.pick(0, 600)) * time.Second
	b = timestampRE.ReplaceAllFunc(b, func(ts []byte) []byte {
		t, err := time.Parse(time.RFC3339Nano, string(ts))
		if err != nil {
			return ts
		}
		return []byte(t.Add(shift).Format(time.RFC3339Nano))
	})
	b = uuidRE.ReplaceAllFunc(b, func(u []byte) []byte {
		h := sha256.Sum256(append([]byte(fmt.Sprintf("%d/%d/", v.seed, v.run)), u...))
		return fmt.Appendf(nil, "%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	})
	b = rvRE.ReplaceAllFunc(b, func(m []byte) []byte {
		n, _ := strconv.Atoi(string(rvRE.FindSubmatch(m)[1]))
		return fmt.Appendf(nil, `"resourceVersion": "%d"`, n+v.pick(1, 5000))
	})
	if v.agent {
		name := fmt.Sprintf("agent-%02d", v.run)
		b = agentRE.ReplaceAll(b, []byte(name))
		b = answerRE.ReplaceAllFunc(b, func(m []byte) []byte {
			return append(m, fmt.Sprintf("[%s, strategy %d] ", name, v.pick(2, 7))...)
		})
	}
	return b
}

// pick returns a number in [0, limit) fixed by the variation and salt.
func (v variation) pick(salt, limit int) int {
	var buf [24]byte
	binary.BigEndian.PutUint64(buf[0:], uint64(v.seed))
	binary.BigEndian.PutUint64(buf[8:], uint64(v.run))
	binary.BigEndian.PutUint64(buf[16:], uint64(salt))
	h := sha256.Sum256(buf[:])
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(limit))
}
