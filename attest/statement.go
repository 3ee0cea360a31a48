package attest

import (
	"encoding/hex"
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// The identifiers of a signed receipt (see the package documentation).
const (
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// StatementType is the _type of an in-toto Statement v1.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType names this project's receipt predicate, version 1.
	PredicateType = "https://github.com/oasis-replay/oasis-replay/attestation/receipt/v1"
)

// Statement is an in-toto Statement v1 whose one subject is an evaluated bundle and whose
// predicate is a receipt.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is an in-toto resource descriptor: a name and digests by algorithm.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is the receipt: "this bundle, evaluated against this definition by this
// evaluator, gives this verdict". It is the same for every kind of bundle.
type Predicate struct {
	// Bundle is the evaluated bundle: the statement's subject, with its manifest's kind.
	Bundle Artifact `json:"bundle"`
	// Definition is what the evidence was evaluated against: for an OASIS run, the profile
	// tree (kind "profile-tree", the profile's id and version).
	Definition Definition `json:"definition"`
	// Evaluator is the evaluator's name, version and the digest of its rule tables.
	Evaluator store.EvaluatorInfo `json:"evaluator"`
	// Verdict is the digest of the canonical verdict.
	Verdict store.Digest `json:"verdict"`
	// Receipt is the digest of the canonical receipt object the evaluation stored, which binds
	// the same digests.
	Receipt store.Digest `json:"receipt"`
}

// Artifact is a stored object by kind and digest.
type Artifact struct {
	Kind   string       `json:"kind"`
	Digest store.Digest `json:"digest"`
}

// Definition is an evaluation definition (a profile, a scenario set) by kind, identity and
// digest.
type Definition struct {
	Kind    string       `json:"kind"`
	ID      string       `json:"id"`
	Version string       `json:"version"`
	Digest  store.Digest `json:"digest"`
}

// NewStatement states p about its bundle.
func NewStatement(p Predicate) *Statement {
	return &Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: p.Bundle.Digest.String(), Digest: map[string]string{"sha256": p.Bundle.Digest.Hex()}}},
		PredicateType: PredicateType,
		Predicate:     p,
	}
}

// Encode returns the statement's payload bytes: canonical JSON (RFC 8785), so that the same
// statement always gives the same payload.
func (s *Statement) Encode() ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	return store.Marshal(s)
}

// decodeStatement reads a payload with the document model: one JSON object with exactly the
// fields of a Statement, no member given twice, within envelopeLimits. Anything else is
// ErrInvalid, with the line, column and field.
func decodeStatement(b []byte) (*Statement, error) {
	var s Statement
	n, err := doc.ParseJSON("payload", b, envelopeLimits)
	if err == nil {
		err = doc.Decode(n, &s)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the payload is not a receipt statement: %w", ErrInvalid, err)
	}
	return &s, s.validate()
}

// validate checks the statement's shape: the in-toto type, this predicate type, one subject
// named by its sha256 digest, and that digest in the predicate.
func (s *Statement) validate() error {
	switch {
	case s.Type != StatementType:
		return fmt.Errorf("%w: _type %q, want %q", ErrInvalid, s.Type, StatementType)
	case s.PredicateType != PredicateType:
		return fmt.Errorf("%w: predicateType %q, want %q", ErrInvalid, s.PredicateType, PredicateType)
	case len(s.Subject) != 1:
		return fmt.Errorf("%w: %d subjects, want 1 (the bundle)", ErrInvalid, len(s.Subject))
	}
	sub := s.Subject[0]
	h, ok := sub.Digest["sha256"]
	if raw, err := hex.DecodeString(h); !ok || err != nil || len(raw) != 32 || hex.EncodeToString(raw) != h {
		return fmt.Errorf("%w: subject %q: digest.sha256 %q is not 64 lowercase hex", ErrInvalid, sub.Name, h)
	}
	p := &s.Predicate
	if h != p.Bundle.Digest.Hex() {
		return fmt.Errorf("%w: the subject is sha256:%s but the predicate names bundle %s", ErrInvalid, h, p.Bundle.Digest)
	}
	for _, f := range []struct {
		name string
		d    store.Digest
	}{{"bundle.digest", p.Bundle.Digest}, {"definition.digest", p.Definition.Digest},
		{"evaluator.rules_digest", p.Evaluator.RulesDigest}, {"verdict", p.Verdict}, {"receipt", p.Receipt}} {
		if f.d.IsZero() {
			return fmt.Errorf("%w: predicate.%s is missing", ErrInvalid, f.name)
		}
	}
	if p.Bundle.Kind == "" || p.Definition.Kind == "" {
		return fmt.Errorf("%w: predicate: bundle.kind and definition.kind are required", ErrInvalid)
	}
	return nil
}

// Expect is what a statement must say to be accepted for a purpose; zero fields are not
// checked.
type Expect struct {
	Bundle     store.Digest
	Definition store.Digest
	Verdict    store.Digest
	Receipt    store.Digest
}

// Check reports the first difference between the statement and e, as ErrMismatch.
func (s *Statement) Check(e Expect) error {
	p := &s.Predicate
	for _, c := range []struct {
		what      string
		got, want store.Digest
	}{
		{"bundle", p.Bundle.Digest, e.Bundle},
		{"definition", p.Definition.Digest, e.Definition},
		{"verdict", p.Verdict, e.Verdict},
		{"receipt", p.Receipt, e.Receipt},
	} {
		if !c.want.IsZero() && c.got != c.want {
			return fmt.Errorf("%w: it names %s %s, expected %s", ErrMismatch, c.what, c.got, c.want)
		}
	}
	return nil
}
