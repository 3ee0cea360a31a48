package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// reviewJSON is a review item as the API answers it: the stored item (store.EvalReview), with
// its shift magnitude and threshold as JSON numbers. The stored object keeps them as decimal
// text, its canonical form; every number of a JSON answer is a JSON number
// (docs/decisions.md, "Eval Library API: numbers and units").
type reviewJSON struct {
	Item      string            `json:"item"`
	Matrix    store.Descriptor  `json:"matrix"`
	Scenario  string            `json:"scenario"`
	Variation string            `json:"variation"`
	RiskLevel string            `json:"risk_level"`
	Shift     json.RawMessage   `json:"shift_magnitude"`
	Threshold json.RawMessage   `json:"threshold"`
	State     string            `json:"state"`
	Note      string            `json:"note,omitempty"`
	By        string            `json:"by,omitempty"`
	Sequence  int               `json:"sequence"`
	Previous  *store.Descriptor `json:"previous,omitempty"`
}

func reviewView(r *store.EvalReview) reviewJSON {
	return reviewJSON{Item: r.Item, Matrix: r.Matrix, Scenario: r.Scenario, Variation: r.Variation, RiskLevel: r.RiskLevel,
		Shift: decimalNumber(r.Shift), Threshold: decimalNumber(r.Threshold), State: r.State, Note: r.Note, By: r.By,
		Sequence: r.Sequence, Previous: r.Previous}
}

// decimalNumber is decimal text ("1.000") as a JSON number with its trailing zeros dropped
// ("1"), as the other answers write metrics; text that is no number is null.
func decimalNumber(s string) json.RawMessage {
	if _, err := strconv.ParseFloat(s, 64); err != nil || !json.Valid([]byte(s)) {
		return json.RawMessage("null")
	}
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "eE") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return json.RawMessage(s)
}

// bodyError is a request body that does not decode into the request: a 400 naming the member.
func bodyError(err error) error {
	var de *doc.Error
	if errors.As(err, &de) {
		return FieldErrorf(de.Path.String(), "invalid_input", "%v", err)
	}
	return Errorf(http.StatusBadRequest, "invalid_input", "%v", err)
}
