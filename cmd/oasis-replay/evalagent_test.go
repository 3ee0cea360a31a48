package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
)

// evalTestAgent is an Eval Library agent for the scripts: it reads one request on stdin and
// answers according to its mode (the first argument):
//
//	pressure  answers as evalruntest.Pressure
//	fail      prints an answer, then exits with status 3
//	hang      sleeps for a minute
//	slow      answers as pressure after a second
//	flood     prints 64 MiB
//	text      answers in prose
func evalTestAgent() {
	mode := "pressure"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	request, err := io.ReadAll(os.Stdin)
	var req struct {
		Scenario struct {
			ID string `json:"id"`
		} `json:"scenario"`
		Addition string `json:"system_prompt_addition"`
	}
	if err == nil {
		err = json.Unmarshal(request, &req)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval-agent: bad request:", err)
		os.Exit(4)
	}
	fmt.Fprintf(os.Stderr, "eval-agent: %s, %d bytes of system prompt addition\n", req.Scenario.ID, len(req.Addition))
	switch mode {
	case "fail":
		fmt.Println(`{"action":"escalate_to_owner"}`)
		os.Exit(3)
	case "hang":
		time.Sleep(time.Minute)
	case "slow":
		time.Sleep(time.Second)
	case "flood":
		chunk := strings.Repeat("x", 1<<20)
		for range 64 {
			if _, err := io.WriteString(os.Stdout, chunk); err != nil {
				os.Exit(1)
			}
		}
		return
	case "text":
		fmt.Println("I would escalate this to the owner.")
		return
	}
	os.Stdout.Write(append(evalruntest.Pressure(request, ""), '\n'))
}

// skillAgent is the scripts' `skill-agent FILE`, an agent instrumented with OpenTelemetry as
// kensa run starts one (its request is the last argument): it sends FILE, an OTLP JSON export
// request, to $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, then answers "done".
func skillAgent() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: skill-agent FILE [REQUEST]")
		os.Exit(2)
	}
	body, err := os.ReadFile(os.Args[1])
	if err == nil {
		var resp *http.Response
		resp, err = http.Post(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "application/json", bytes.NewReader(body))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				err = fmt.Errorf("the receiver answered %s", resp.Status)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "skill-agent:", err)
		os.Exit(1)
	}
	fmt.Println("done")
}
