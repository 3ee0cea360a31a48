package oasisctl

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// Transcript is an agent transcript, mapped to the evidence model.
type Transcript struct {
	store.Transcript
	// Model is the model the agent reports (model, or an artifact's observed_model).
	Model string
	// NonScoring holds each action's error_code and duration_ms, as "actions[i].<name>", and an
	// agent failure report, as store.NonScoringAgentFailure.
	NonScoring map[string]string
	// Unknown lists the members the format does not define, in document order.
	Unknown []Field
}

var (
	transcriptFields       = []string{"final_answer", "reasoning", "reasoning_trace", "actions", "model", "observed_model", "agent_failure"}
	transcriptActionFields = []string{"id", "tool", "arguments", "result", "error", "error_code", "duration_ms"}
)

// transcriptLimits bound a transcript, whose tool results may be large.
var transcriptLimits = doc.Limits{MaxBytes: MaxArtifactBytes, MaxStringBytes: MaxArtifactBytes, MaxNodes: MaxArtifactValues}

// ReadTranscript reads an agent transcript: the response body of the agent adapter contract
// ({final_answer, reasoning, actions[{tool, arguments, result}], model?}), or the same with an
// artifact's names (reasoning_trace, observed_model). Arguments are kept as their compact JSON
// text; a result that is a JSON string is kept as that string, any other result as its compact
// JSON text. name is the file name errors and fields are reported with; malformed input is an
// error wrapping ErrTranscript with the file, line, column and field.
func ReadTranscript(name string, data []byte) (*Transcript, error) {
	root, err := doc.ParseJSON(name, data, transcriptLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTranscript, err)
	}
	t := &Transcript{Transcript: store.Transcript{Actions: []store.Action{}}, NonScoring: map[string]string{}}
	if err := t.read(root); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTranscript, err)
	}
	return t, nil
}

func (t *Transcript) read(root *doc.Node) error {
	if root.Kind() != doc.Object {
		return root.Errorf("the transcript is %s, want an object", root.Kind().Article())
	}
	if root.Get("final_answer") == nil && root.Get("reasoning") == nil && root.Get("reasoning_trace") == nil && root.Get("actions") == nil &&
		root.Get("agent_failure") == nil {
		return root.Errorf("not an agent transcript: none of final_answer, reasoning, actions, agent_failure")
	}
	if err := agentFailure(root, t.NonScoring); err != nil {
		return err
	}
	t.Unknown = unknown(t.Unknown, root, transcriptFields)
	err := readStrings(root, member{"final_answer", &t.FinalAnswer}, member{"reasoning", &t.Reasoning}, member{"model", &t.Model})
	if err != nil {
		return err
	}
	if t.Reasoning == "" {
		if err := readStrings(root, member{"reasoning_trace", &t.Reasoning}); err != nil {
			return err
		}
	}
	if t.Model == "" {
		if err := readStrings(root, member{"observed_model", &t.Model}); err != nil {
			return err
		}
	}
	actions, err := array(root, "actions")
	if err != nil {
		return err
	}
	for i, v := range actions {
		act, err := t.action(v, i)
		if err != nil {
			return err
		}
		t.Actions = append(t.Actions, act)
	}
	return nil
}

func (t *Transcript) action(v *doc.Node, i int) (store.Action, error) {
	var act store.Action
	if v.Kind() != doc.Object {
		return act, v.TypeError("an object")
	}
	t.Unknown = unknown(t.Unknown, v, transcriptActionFields)
	if err := readStrings(v, member{"id", &act.ID}, member{"tool", &act.Tool}, member{"error", &act.Error}); err != nil {
		return act, err
	}
	if act.Tool == "" {
		return act, v.Errorf("tool missing")
	}
	if args := present(v.Get("arguments")); args != nil {
		act.Arguments = string(args.Compact())
	}
	if res := present(v.Get("result")); res != nil {
		act.Result = res.Text()
		if res.Kind() != doc.String {
			act.Result = string(res.Compact())
		}
	}
	nonScoring(t.NonScoring, v, fmt.Sprintf("actions[%d].", i))
	return act, nil
}
