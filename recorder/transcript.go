package recorder

import (
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/store"
)

// transcriptFile is an agent transcript read from a file or an agent's answer.
type transcriptFile struct {
	transcript store.Transcript
	model      string
	nonScoring map[string]string // actions[i].error_code, actions[i].duration_ms
	findings   []store.Finding
}

// parseTranscript reads an agent transcript (oasisctl.ReadTranscript) and notes the fields it
// does not interpret. name is the file name written in findings and errors.
func parseTranscript(name string, data []byte) (*transcriptFile, error) {
	t, err := oasisctl.ReadTranscript(name, data)
	if err != nil {
		return nil, docInputError(name, err)
	}
	tf := &transcriptFile{transcript: t.Transcript, model: t.Model, nonScoring: t.NonScoring}
	for _, f := range t.Unknown {
		tf.findings = append(tf.findings, store.Finding{Code: CodeUnknownField, Severity: store.SeverityWarning, File: name, Line: f.Line,
			Field: f.Path, Message: "field not interpreted by this recorder; it is kept in the byte-exact transcript"})
	}
	return tf, nil
}
