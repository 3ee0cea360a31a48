package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "ingest":
		err = ingest(os.Args[2:])
	case "verify":
		err = verify(os.Args[2:])
	case "bundles":
		err = bundles(os.Args[2:])
	case "runs":
		err = runs(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storebench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: storebench gen|ingest|verify|bundles|runs [flags] (see the package documentation)")
	os.Exit(2)
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	size := fs.Int64("size", 1<<30, "bytes of audit log to write")
	seed := fs.Int64("seed", 1, "generator seed")
	out := fs.String("o", "", "output file")
	fs.Parse(args)
	if *out == "" {
		return errors.New("gen: -o is required")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := auditgen.Write(f, *seed, *size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ingest(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	dir := fs.String("store", "", "store directory (must not exist)")
	chunkSize := fs.Int("chunk-size", 0, "chunk size in bytes (default: the store's default)")
	threshold := fs.Int64("value-threshold", 0, "Badger value threshold in bytes (default: the store's default)")
	workers := fs.Int("workers", 0, "compression goroutines (default: GOMAXPROCS)")
	profile := fs.String("cpuprofile", "", "write a CPU profile")
	fs.Parse(args)
	if *dir == "" || fs.NArg() != 1 {
		return errors.New("ingest: -store DIR and one FILE are required")
	}
	opts := badgerstore.Options{ChunkSize: *chunkSize, ValueThreshold: *threshold, Workers: *workers}
	stop, err := startProfile(*profile)
	if err != nil {
		return err
	}
	defer stop()

	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	s, err := badgerstore.Open(*dir, opts)
	if err != nil {
		return err
	}
	ctx := context.Background()
	opened := time.Now()
	d, n, err := s.PutBlob(ctx, f)
	put := time.Now()
	if err == nil {
		err = s.Sync(ctx)
	}
	elapsed := time.Since(start)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Printf("ingest_digest=%s\n", d)
	fmt.Printf("ingest_open_seconds=%.3f\ningest_put_seconds=%.3f\ningest_sync_seconds=%.3f\n",
		opened.Sub(start).Seconds(), put.Sub(opened).Seconds(), (elapsed - put.Sub(start)).Seconds())
	report("ingest", n, elapsed)
	return nil
}

func verify(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ExitOnError)
	dir := fs.String("store", "", "store directory")
	profile := fs.String("cpuprofile", "", "write a CPU profile")
	fs.Parse(args)
	if *dir == "" {
		return errors.New("verify: -store DIR is required")
	}
	stop, err := startProfile(*profile)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	s, err := badgerstore.Open(*dir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer s.Close()
	r, err := store.Check(context.Background(), s, store.CheckOptions{})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if !r.OK() {
		return fmt.Errorf("verify: %d problems, first: %s", len(r.Problems), r.Problems[0])
	}
	report("verify", r.BytesChecked, elapsed)
	return nil
}

// report prints a phase's figures. Throughput is in MB/s (10^6 bytes), as zstd and dd print it.
func report(phase string, n int64, elapsed time.Duration) {
	fmt.Printf("%s_bytes=%d\n", phase, n)
	fmt.Printf("%s_seconds=%.3f\n", phase, elapsed.Seconds())
	fmt.Printf("%s_mbps=%.1f\n", phase, float64(n)/elapsed.Seconds()/1e6)
	for _, field := range []string{"VmHWM", "RssAnon", "RssFile"} {
		kib, err := procStatus(field)
		if err != nil {
			fmt.Fprintf(os.Stderr, "storebench: %v\n", err)
			continue
		}
		fmt.Printf("%s_%s_kib=%d\n", phase, strings.ToLower(field), kib)
	}
}

// procStatus reads one "Field: N kB" line of /proc/self/status.
func procStatus(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		var kib int64
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kib); err != nil {
			return 0, fmt.Errorf("parse %s: %w", field, err)
		}
		return kib, nil
	}
	return 0, fmt.Errorf("%s not in /proc/self/status", field)
}

func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
