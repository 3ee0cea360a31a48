package evaluator

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// observationRef names an observation in an error: its scenario, index, type and payload, and
// where it was recorded from when the recorder says (a proxied exchange, a file), so that an
// unreadable payload is traced to the call or file that brought it (Core §3.5.3: evidence the
// evaluator cannot read is a validation error, never a verdict).
func observationRef(scenario string, i int, obs store.Observation) string {
	s := fmt.Sprintf("scenario %s: observations[%d] (%s %s", scenario, i, obs.Type, obs.Data.Digest)
	if src := obs.Attributes[store.AttrSource]; src != "" {
		s += ", recorded from " + src
	}
	return s + ")"
}
