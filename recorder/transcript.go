package recorder

import (
	"encoding/json"

	"github.com/oasis-replay/oasis-replay/store"
)

// transcriptFile is an agent transcript read from a file.
type transcriptFile struct {
	transcript store.Transcript
	model      string
	nonScoring map[string]string // actions[i].error_code, actions[i].duration_ms
	findings   []store.Finding
}

var transcriptFields = []string{"final_answer", "reasoning", "reasoning_trace", "actions", "model", "observed_model"}
var transcriptActionFields = []string{"id", "tool", "arguments", "result", "error", "error_code", "duration_ms"}

func transcriptRaw(path string) bool {
	return path == "actions[].arguments" || path == "actions[].result"
}

// parseTranscript reads an agent transcript: the response body of the agent adapter contract
// ({final_answer, reasoning, actions[{tool, arguments, result}], model?}), or the same with an
// oasisctl artifact's names (reasoning_trace, observed_model). Arguments are kept as their
// compacted JSON text; a result that is a JSON string is kept as that string, any other result
// as its compacted JSON text; error_code and duration_ms go to the non-scoring metadata. name
// is the file name written in findings.
func parseTranscript(name string, data []byte) (*transcriptFile, error) {
	root, err := parseJSON(name, data, transcriptRaw)
	if err != nil {
		return nil, err
	}
	d := newDoc(name, data)
	if root.kind != kindObject {
		return nil, d.errorf(root.line, "", "the transcript is %s, want an object", root.kind)
	}
	if root.get("final_answer") == nil && root.get("reasoning") == nil && root.get("reasoning_trace") == nil && root.get("actions") == nil {
		return nil, d.errorf(root.line, "", "not an agent transcript: none of final_answer, reasoning, actions")
	}
	tf := &transcriptFile{transcript: store.Transcript{Actions: []store.Action{}}, nonScoring: map[string]string{}}
	for _, f := range unknownFields(root, transcriptFields...) {
		tf.findings = append(tf.findings, store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, File: name, Line: f.line,
			Field: f.key, Message: "field not interpreted by this recorder; it is kept in the byte-exact transcript"})
	}
	t := &tf.transcript
	for _, s := range []struct {
		key string
		dst *string
	}{{"final_answer", &t.FinalAnswer}, {"reasoning", &t.Reasoning}, {"model", &tf.model}} {
		if *s.dst, err = d.str(root, s.key, ""); err != nil {
			return nil, err
		}
	}
	for _, alias := range []struct {
		key string
		dst *string
	}{{"reasoning_trace", &t.Reasoning}, {"observed_model", &tf.model}} {
		if *alias.dst == "" {
			if *alias.dst, err = d.str(root, alias.key, ""); err != nil {
				return nil, err
			}
		}
	}
	actions, err := d.array(root, "actions", "")
	if err != nil {
		return nil, err
	}
	for i, v := range actions {
		act, err := tf.action(d, v, indexPath("actions", i))
		if err != nil {
			return nil, err
		}
		t.Actions = append(t.Actions, act)
	}
	return tf, nil
}

func (tf *transcriptFile) action(d *doc, v *value, path string) (store.Action, error) {
	var act store.Action
	if v.kind != kindObject {
		return act, d.errorf(v.line, path, "is %s, want an object", v.kind)
	}
	for _, f := range unknownFields(v, transcriptActionFields...) {
		tf.findings = append(tf.findings, store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, File: d.name, Line: f.line,
			Field: joinPath(path, f.key), Message: "field not interpreted by this recorder; it is kept in the byte-exact transcript"})
	}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{{"id", &act.ID}, {"tool", &act.Tool}, {"error", &act.Error}} {
		if *s.dst, err = d.str(v, s.key, path); err != nil {
			return act, err
		}
	}
	if act.Tool == "" {
		return act, d.errorf(v.line, joinPath(path, "tool"), "missing")
	}
	if args := v.get("arguments"); args != nil && string(args.raw) != "null" {
		act.Arguments = compactText(args)
	}
	if res := v.get("result"); res != nil && string(res.raw) != "null" {
		if json.Unmarshal(res.raw, &act.Result) != nil {
			act.Result = compactText(res)
		}
	}
	for _, key := range []string{"error_code", "duration_ms"} {
		if x := v.get(key); x != nil && x.kind != kindNull {
			tf.nonScoring[joinPath(path, key)] = literal(x)
		}
	}
	return act, nil
}
