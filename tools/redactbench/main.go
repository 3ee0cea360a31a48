package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/redact"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "redactbench:", err)
		os.Exit(1)
	}
}

func run() error {
	values := flag.String("values", "", "file of values to redact, one per line")
	keyFile := flag.String("key", "", "redaction key file")
	flag.Parse()
	if flag.NArg() != 1 || *values == "" || *keyFile == "" {
		return errors.New("usage: redactbench -values FILE -key FILE INPUT")
	}
	vals, err := redact.LoadValues(*values)
	if err != nil {
		return err
	}
	key, err := redact.LoadKey(*keyFile)
	if err != nil {
		return err
	}
	r, err := redact.New(key, vals)
	if err != nil {
		return err
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	n, err := io.Copy(io.Discard, r.Reader(f))
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("bytes=%d\nseconds=%.3f\nmbps=%.1f\nvmhwm_kib=%s\n", n, secs, float64(n)/secs/1e6, vmHWM())
	return nil
}

// vmHWM is the process's peak resident set size in KiB, from /proc/self/status.
func vmHWM() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "0"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSuffix(strings.TrimSpace(v), " kB")
		}
	}
	return "0"
}
