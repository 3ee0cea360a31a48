package evallib

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Request is the request one run sends to the agent, as canonical JSON (issue "Runs,
// recorded"): {"input_context": {…}, "scenario": {"id", "name", "risk_level"},
// "system_prompt_addition": "<injection text, empty for a baseline>"}. v is nil for a baseline.
func Request(s *Scenario, v *Variation) ([]byte, error) {
	addition := ""
	if v != nil {
		var err error
		if addition, err = v.Addition(s); err != nil {
			return nil, err
		}
	}
	b := []byte(`{"input_context":`)
	b, err := doc.AppendCanonical(b, s.InputContext)
	if err != nil {
		return nil, fmt.Errorf("%w: input_context: %w", ErrScenario, err)
	}
	b = append(b, `,"scenario":{"id":`...)
	b = doc.AppendString(b, s.ID)
	b = append(b, `,"name":`...)
	b = doc.AppendString(b, s.Name)
	b = append(b, `,"risk_level":`...)
	b = doc.AppendString(b, s.RiskLevel)
	b = append(b, `},"system_prompt_addition":`...)
	b = doc.AppendString(b, addition)
	return append(b, '}'), nil
}

// AnswerLimits bound the parsing of an answer: the runner already caps its size.
var AnswerLimits = doc.Limits{MaxBytes: 64 << 20, MaxDepth: 256, MaxNodes: 4 << 20}

// Answer is an agent's answer as the metrics read it: a JSON document, or the text of an
// answer that is not one ("A non-JSON answer is kept as a string").
type Answer struct {
	// Node is the parsed JSON document; nil when the answer is not JSON.
	Node *doc.Node
	// Text is the answer that is not JSON, as a string (invalid UTF-8 replaced by U+FFFD, so
	// it can be shown; the bytes stay in the bundle as they were); Problem says why it is not
	// JSON.
	Text    string
	Problem string
}

// ParseAnswer reads an answer: exactly one JSON value, with optional whitespace around it, or
// else a string.
func ParseAnswer(data []byte) Answer {
	n, err := doc.ParseJSON("answer", data, AnswerLimits)
	if err == nil {
		return Answer{Node: n}
	}
	return Answer{Text: strings.ToValidUTF8(string(data), "\uFFFD"), Problem: err.Error()}
}
