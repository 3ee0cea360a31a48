package kensa

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// StreamRunManifest reads a run manifest from r one run at a time, for manifests too large to
// hold as one document (a manifest of 100,000 runs passes the document model's limits only
// run by run): each run is read by the document model on its own and handed to each with the
// manifest's header (run id, timestamp, kind) and its scenario id, in file order. The header
// must precede the runs, as Kensa writes it (pydantic's field order). Every run is held to the
// same rules as ParseRunManifest's; an error names the file and the byte offset of the run.
func StreamRunManifest(file string, r io.Reader, each func(m *RunManifest, scenarioID string, run ScenarioRun) error) (*RunManifest, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	m := &RunManifest{Kind: "eval"}
	at := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: byte %d: %s", ErrInvalid, file, dec.InputOffset(), fmt.Sprintf(format, args...))
	}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, at("a run manifest is a JSON object: %v", err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, at("%v", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, at("duplicate key %q", key)
		}
		seen[key] = true
		if key != "scenarios" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, at("%s: %v", key, err)
			}
			if err := m.header(file, key, raw); err != nil {
				return nil, err
			}
			continue
		}
		if err := m.streamScenarios(file, dec, at, each); err != nil {
			return nil, err
		}
	}
	if m.RunID == "" || m.Timestamp == "" {
		return nil, at("run_id and timestamp are required")
	}
	if !ValidRunID(m.RunID) {
		return nil, at("run_id: %q is not a valid run id", m.RunID)
	}
	return m, nil
}

// header reads one member of the manifest other than scenarios.
func (m *RunManifest) header(file, key string, raw json.RawMessage) error {
	var dst *string
	switch key {
	case "run_id":
		dst = &m.RunID
	case "timestamp":
		dst = &m.Timestamp
	case "kind":
		dst = &m.Kind
	default:
		return nil
	}
	n, err := doc.ParseJSON(file, raw, doc.Limits{})
	if err != nil {
		return err
	}
	s, err := n.Str()
	if err != nil {
		return invalid(n, "%s must be a string, got %s", key, n.Kind().Article())
	}
	if key == "kind" && s != "eval" && s != "capture" {
		return invalid(n, "kind must be eval or capture, got %q", s)
	}
	*dst = s
	return nil
}

func (m *RunManifest) streamScenarios(file string, dec *json.Decoder, at func(string, ...any) error, each func(*RunManifest, string, ScenarioRun) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return at("scenarios must be an object: %v", err)
	}
	if m.RunID == "" || m.Timestamp == "" || !ValidRunID(m.RunID) {
		return at("run_id (a valid run id) and timestamp must precede scenarios, as Kensa writes them")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return at("%v", err)
		}
		id, _ := tok.(string)
		if err := expectDelim(dec, '['); err != nil {
			return at("scenarios.%s must be a list of runs: %v", id, err)
		}
		for dec.More() {
			start := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return at("scenarios.%s: %v", id, err)
			}
			n, err := doc.ParseJSON(fmt.Sprintf("%s (byte %d)", file, start), raw, doc.Limits{})
			if err != nil {
				return err
			}
			run, err := scenarioRun(n)
			if err != nil {
				return err
			}
			if err := each(m, id, run); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return at("%v", err)
		}
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}

// ResultStream reads a results file one result at a time (StreamRunManifest's companion).
type ResultStream struct {
	file  string
	dec   *json.Decoder
	begun bool
	done  bool
}

// NewResultStream reads the results file file from r.
func NewResultStream(file string, r io.Reader) *ResultStream {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &ResultStream{file: file, dec: dec}
}

// Next returns the next result, nil at the end of the array; each is read by the document
// model and held to ParseResults' rules.
func (s *ResultStream) Next() (*Result, error) {
	if s.done {
		return nil, nil
	}
	if !s.begun {
		s.begun = true
		if err := expectDelim(s.dec, '['); err != nil {
			return nil, fmt.Errorf("%w: %s: a results file is a JSON array: %v", ErrInvalid, s.file, err)
		}
	}
	if !s.dec.More() {
		s.done = true
		if err := expectDelim(s.dec, ']'); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, s.file, err)
		}
		return nil, nil
	}
	start := s.dec.InputOffset()
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %s: byte %d: %v", ErrInvalid, s.file, start, err)
	}
	n, err := doc.ParseJSON(fmt.Sprintf("%s (byte %d)", s.file, start), raw, doc.Limits{})
	if err != nil {
		return nil, err
	}
	return result(n)
}

// result reads one element of a results file.
func result(item *doc.Node) (*Result, error) {
	f, err := newFields(item, "a result", nil, nil)
	if err != nil {
		return nil, err
	}
	res := &Result{ScenarioID: f.str("scenario_id", true), Status: f.str("status", true)}
	f.oneOf("status", res.Status, resultStatuses, "pass, fail, error or uncertain")
	if f.err != nil {
		return nil, f.err
	}
	if res.Value, err = pyvalue.FromNode(item, nil); err != nil {
		return nil, err
	}
	res.Text = []byte(pyvalue.DumpsCompact(res.Value))
	return res, nil
}
