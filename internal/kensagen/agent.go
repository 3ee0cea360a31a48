package kensagen

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// AgentArg is the first argument of the agent's command line: a test binary that sees it runs
// Agent instead of its tests.
const AgentArg = "kensagen-agent"

// Behaviour is what the agent does in one run.
type Behaviour struct {
	// Spans is the text written to $KENSA_TRACE_DIR/spans.jsonl (none when NoFile).
	Spans  string `json:"spans"`
	NoFile bool   `json:"no_file,omitempty"`
	// Stdout is written as bytes: it may be any bytes, valid UTF-8 or not.
	Stdout []byte `json:"stdout"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

// behaviours is the agent's file: the behaviours of one scenario by tag, and the default.
type behaviours struct {
	ByTag   map[string]Behaviour `json:"by_tag"`
	Default Behaviour            `json:"default"`
}

var tagPattern = regexp.MustCompile(`#r([0-9]+)#`)

// Agent runs the agent: args are the arguments after AgentArg (the behaviour file, then
// whatever the runner added). It returns the exit status.
func Agent(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "kensagen agent: no behaviour file")
		return 97
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "kensagen agent:", err)
		return 97
	}
	var bs behaviours
	if err := json.Unmarshal(data, &bs); err != nil {
		fmt.Fprintln(stderr, "kensagen agent:", err)
		return 97
	}
	rest := args[1:]
	last := ""
	if len(rest) > 0 {
		last = rest[len(rest)-1]
	}
	b := bs.Default
	if m := tagPattern.FindStringSubmatch(last); m != nil {
		if tb, ok := bs.ByTag[m[1]]; ok {
			b = tb
		}
	}
	if !b.NoFile {
		dir := os.Getenv("KENSA_TRACE_DIR")
		if dir == "" {
			fmt.Fprintln(stderr, "kensagen agent: KENSA_TRACE_DIR is not set")
			return 98
		}
		text := expand(b.Spans, rest, last)
		if err := os.WriteFile(filepath.Join(dir, "spans.jsonl"), []byte(text), 0o600); err != nil {
			fmt.Fprintln(stderr, "kensagen agent:", err)
			return 98
		}
	}
	_, _ = stdout.Write(b.Stdout)
	if b.Stderr != "" {
		fmt.Fprint(stderr, b.Stderr)
	}
	return b.Exit
}

var envToken = regexp.MustCompile(`@@ENV:([A-Za-z0-9_]+)@@`)

// expand replaces the tokens of the span text by JSON string contents.
func expand(text string, rest []string, last string) string {
	text = strings.ReplaceAll(text, "@@ARGC@@", strconv.Itoa(len(rest)))
	text = strings.ReplaceAll(text, "@@ARG@@", jsonContent(last))
	return envToken.ReplaceAllStringFunc(text, func(tok string) string {
		return jsonContent(os.Getenv(envToken.FindStringSubmatch(tok)[1]))
	})
}

// jsonContent is s as the inside of a JSON string.
func jsonContent(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
