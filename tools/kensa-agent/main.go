// Command kensa-agent is the scripted agent of package internal/kensaagent as a program: for
// running real Kensa over the same agent as kensa run (testdata generators) and for benchmarks.
package main

import (
	"os"

	"github.com/oasis-replay/oasis-replay/internal/kensaagent"
)

func main() { os.Exit(kensaagent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
