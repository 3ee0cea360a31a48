// Package kensaagent is a scripted agent for testing and benchmarking Kensa runs: no model, a
// customer-support script (the shape of the shared fixture's support_agent.py) that emits
// OpenTelemetry spans the ways instrumented agents do, and misbehaves on demand. Tests run it as
// a command (their own binary re-executed, or a testscript command); tools/kensa-agent is the
// same program for real Kensa and the benchmarks.
//
// # Script
//
// The request is the last argument: "VERB ORDER". VERB where looks the order up and says it
// shipped; refund looks it up and refunds it; angry looks it up twice and escalates; maybe is
// where or refund, alternating with a counter kept in the file --flaky names (refund on odd
// runs), so that a scenario is flaky in a way a test can predict. Spans: an AGENT root, an LLM
// call, the tool calls, a final LLM call whose output is the answer; the answer is printed.
//
// # Spans
//
// --emit jsonl writes them as Kensa's JSONLSpanExporter does, to $KENSA_TRACE_DIR/spans.jsonl
// (OpenInference attributes); --emit otlp-proto and otlp-json POST one OTLP/HTTP export
// request to $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (else $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces),
// with --semconv openinference, genai (the current GenAI names) or genai-old (gen_ai.system,
// gen_ai.usage.prompt_tokens); --gzip compresses the OTLP bodies (Content-Encoding: gzip, as
// many exporters send them by default); --emit none sends nothing. Times start at a fixed instant and
// ids are derived from the request, so two runs of one request emit the same spans, unless
// --clock wall is given.
//
// # Misbehaviour
//
// --malformed sends a span source that does not parse (a JSONL line that is not JSON, an OTLP
// body that is not protobuf or JSON) beside the good spans; --truncate cuts the JSONL file in
// the middle of its last line; --exit N exits with N after emitting; --hang sleeps for ever
// after emitting, with a child of its own that sleeps too and writes its pid to --pidfile (the
// process group must be killed for the child to die); --flood N writes N bytes to stdout;
// --stderr TEXT writes TEXT to stderr; --echo-env NAME writes NAME=value to stderr;
// --stdout-hex HEX writes the bytes HEX spells to stdout (UTF-8 or not); --times FORM writes
// the JSONL span times in another form Kensa reads (us, ms, s, iso, iso-offset, iso-naive, null).
//
// # Judge
//
// --judge VERDICT makes it a judge command (kensa run --judge-cmd) instead: it reads the prompt
// on stdin and answers Kensa's JSON verdict with VERDICT (pass, fail, uncertain), then exits
// with --exit; it runs no script and sends no spans.
package kensaagent

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// options are the command line of the agent.
type options struct {
	emit, semconv, flaky, clock, pidfile, stderr, echoEnv, judge, stdoutHex, times string
	exit                                                                           int
	flood                                                                          int64
	malformed, truncate, hang, gzip                                                bool
	request                                                                        string
}

// Main runs the agent with args (without the program name) and returns its exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parse(args)
	switch {
	case err == nil && o.judge != "":
		err = o.answer(stdin, stdout)
	case err == nil:
		err = o.run(stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kensa-agent:", err)
		return 3
	}
	return o.exit
}

func parse(args []string) (*options, error) {
	fs := flag.NewFlagSet("kensa-agent", flag.ContinueOnError)
	o := &options{}
	fs.StringVar(&o.emit, "emit", "jsonl", "jsonl, otlp-proto, otlp-json or none")
	fs.StringVar(&o.semconv, "semconv", "openinference", "openinference, genai or genai-old")
	fs.StringVar(&o.flaky, "flaky", "", "counter `FILE` for the maybe verb")
	fs.StringVar(&o.clock, "clock", "fixed", "fixed or wall")
	fs.StringVar(&o.pidfile, "pidfile", "", "with --hang, write the child's pid to `FILE`")
	fs.StringVar(&o.stderr, "stderr", "", "write `TEXT` to stderr")
	fs.StringVar(&o.times, "times", "ns", "span times in the JSONL file as `FORM`: ns, us, ms, s, iso, iso-offset, iso-naive or null")
	fs.StringVar(&o.stdoutHex, "stdout-hex", "", "write the bytes of `HEX` to stdout before the answer (any bytes, UTF-8 or not)")
	fs.StringVar(&o.echoEnv, "echo-env", "", "write NAME=value of the environment variable `NAME` to stderr")
	fs.IntVar(&o.exit, "exit", 0, "exit status")
	fs.Int64Var(&o.flood, "flood", 0, "write `N` bytes to stdout")
	fs.BoolVar(&o.malformed, "malformed", false, "also send a span source that does not parse")
	fs.BoolVar(&o.truncate, "truncate", false, "cut the JSONL trace in the middle of its last line")
	fs.BoolVar(&o.hang, "hang", false, "sleep for ever after emitting, with a sleeping child")
	fs.BoolVar(&o.gzip, "gzip", false, "compress OTLP bodies with gzip")
	fs.StringVar(&o.judge, "judge", "", "be a judge command answering `VERDICT`")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		o.request = fs.Arg(fs.NArg() - 1)
	}
	return o, nil
}

func (o *options) run(stdout, stderr io.Writer) error {
	if o.stderr != "" {
		fmt.Fprintln(stderr, o.stderr)
	}
	if o.echoEnv != "" {
		fmt.Fprintf(stderr, "%s=%s\n", o.echoEnv, os.Getenv(o.echoEnv))
	}
	if o.stdoutHex != "" {
		b, err := hex.DecodeString(o.stdoutHex)
		if err != nil {
			return err
		}
		if _, err := stdout.Write(b); err != nil {
			return err
		}
	}
	verb, order, err := o.verb()
	if err != nil {
		return err
	}
	spans, answer := script(verb, order, o.start(), idSeed(o.request))
	if err := o.send(spans); err != nil {
		return err
	}
	fmt.Fprintln(stdout, answer)
	if o.flood > 0 {
		if err := flood(stdout, o.flood); err != nil {
			return err
		}
	}
	if o.hang {
		return o.hangForever()
	}
	return nil
}

// answer is the judge: it reads the whole prompt and answers Kensa's JSON verdict.
func (o *options) answer(stdin io.Reader, stdout io.Writer) error {
	prompt, err := io.ReadAll(stdin)
	if err != nil {
		return err
	}
	if len(prompt) == 0 {
		return errors.New("--judge: no prompt on stdin")
	}
	_, err = fmt.Fprintf(stdout, "{\"verdict\": %q, \"reasoning\": \"scripted judge\", \"evidence\": [\"%d bytes of prompt read\"]}\n", o.judge, len(prompt))
	return err
}

// verb reads the request, resolving maybe with the --flaky counter.
func (o *options) verb() (verb, order string, err error) {
	words := append(strings.Fields(o.request), "", "")
	verb, order = words[0], words[1]
	if verb != "maybe" {
		return verb, order, nil
	}
	if o.flaky == "" {
		return "", "", errors.New("the maybe verb needs --flaky FILE")
	}
	n := 0
	if b, err := os.ReadFile(o.flaky); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if err := os.WriteFile(o.flaky, []byte(strconv.Itoa(n+1)), 0o600); err != nil {
		return "", "", err
	}
	if n%2 == 1 {
		return "refund", order, nil
	}
	return "where", order, nil
}

// fixedStart is where the spans of a fixed clock start: 2026-11-24T22:20:03Z.
const fixedStart = 1795558803_000_000_000

func (o *options) start() int64 {
	if o.clock == "wall" {
		return time.Now().UnixNano()
	}
	return fixedStart
}

// idSeed derives span ids from the request, so that one request always gives the same ids.
func idSeed(request string) uint64 {
	sum := sha256.Sum256([]byte(request))
	return binary.BigEndian.Uint64(sum[:8])
}

func (o *options) send(spans []span) error {
	switch o.emit {
	case "none":
		return nil
	case "jsonl":
		return o.writeJSONL(spans)
	case "otlp-proto", "otlp-json":
		return o.post(spans)
	}
	return fmt.Errorf("--emit %q: want jsonl, otlp-proto, otlp-json or none", o.emit)
}

func (o *options) writeJSONL(spans []span) error {
	dir := os.Getenv("KENSA_TRACE_DIR")
	if dir == "" {
		return errors.New("KENSA_TRACE_DIR is not set")
	}
	var b bytes.Buffer
	for _, s := range spans {
		b.WriteString(s.jsonl(o.semconv, o.times))
		b.WriteByte('\n')
	}
	if o.malformed {
		b.WriteString("{\"name\": \"chat\", \"trace_id\": oops}\n")
	}
	data := b.Bytes()
	if o.truncate {
		data = data[:len(data)-len(spans[len(spans)-1].jsonl(o.semconv, o.times))/2-1]
	}
	return os.WriteFile(filepath.Join(dir, "spans.jsonl"), data, 0o600)
}

func (o *options) post(spans []span) error {
	url := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if url == "" {
		base := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if base == "" {
			return errors.New("OTEL_EXPORTER_OTLP_ENDPOINT is not set")
		}
		url = strings.TrimSuffix(base, "/") + "/v1/traces"
	}
	body, contentType, err := otlpBody(spans, o.semconv, o.emit == "otlp-json")
	if err != nil {
		return err
	}
	if o.malformed {
		if err := o.postBody(url, contentType, []byte("\x00 not an export request {")); err != nil {
			return err
		}
	}
	return o.postBody(url, contentType, body)
}

// postBody posts one body, gzip-compressed with --gzip. The answer is not read: an exporter
// drops what the receiver refuses, and so does the agent.
func (o *options) postBody(url, contentType string, body []byte) error {
	encoding := ""
	if o.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body, encoding = b.Bytes(), "gzip"
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func flood(w io.Writer, n int64) error {
	chunk := bytes.Repeat([]byte("flood of output, line after line, more than anyone reads\n"), 1<<14)
	for n > 0 {
		part := chunk[:min(int64(len(chunk)), n)]
		if _, err := w.Write(part); err != nil {
			return err
		}
		n -= int64(len(part))
	}
	return nil
}

// hangForever starts a child that sleeps, writes its pid, and sleeps too.
func (o *options) hangForever() error {
	child := exec.Command("sleep", "3600")
	if err := child.Start(); err != nil {
		return err
	}
	if o.pidfile != "" {
		if err := os.WriteFile(o.pidfile, []byte(strconv.Itoa(child.Process.Pid)), 0o600); err != nil {
			return err
		}
	}
	for {
		time.Sleep(time.Hour)
	}
}

// ExporterLines plays the script for request without running anything, as the benchmarks'
// generator does: the JSONL Kensa's exporter would hold (OpenInference attributes), spans
// starting at start (Unix nanoseconds) with ids drawn from seed, and the answer. The maybe verb
// is a refund when refund is set.
func ExporterLines(request string, refund bool, start int64, seed uint64) ([]byte, string) {
	words := append(strings.Fields(request), "", "")
	verb := words[0]
	if verb == "maybe" {
		verb = "where"
		if refund {
			verb = "refund"
		}
	}
	spans, answer := script(verb, words[1], start, seed)
	var b bytes.Buffer
	for _, s := range spans {
		b.WriteString(s.jsonl("openinference", "ns"))
		b.WriteByte('\n')
	}
	return b.Bytes(), answer
}
