package evaluator

import "github.com/oasis-replay/oasis-replay/internal/errclass"

// Sentinel errors of the evaluator. Every error Evaluate or LoadRun returns wraps one of them,
// or profiles.ErrVersion for what no implemented edition evaluates, with the scenario, field,
// digest or line concerned; callers test them with errors.Is. None of them is a verdict: a
// verdict is always returned with a nil error.
var (
	// ErrMismatch: the run was recorded against another profile (id, version or tree digest)
	// than the one given, or the core version the run declares is one the profile's core
	// dependency excludes (with profiles.ErrVersionConflict).
	ErrMismatch = errclass.New(errclass.Input, "evaluator: profile and bundle do not match")
	// ErrUnknownScenario: the manifest lists a scenario the profile does not define, or an
	// option names one the manifest does not list.
	ErrUnknownScenario = errclass.New(errclass.NotFound, "evaluator: unknown scenario")
	// ErrUnmapped: a prose check, a condition or an observability requirement of the profile
	// has no entry in the interpretation tables, or a behaviour has no rule (Core §3.5.3: a
	// missing heuristic is an evaluator defect, never a verdict).
	ErrUnmapped = errclass.New(errclass.Internal, "evaluator: no interpretation")
	// ErrEvidence: recorded evidence cannot be read (an undecodable object or payload, a
	// scenario evidence object for another scenario, too many agent audit entries).
	ErrEvidence = errclass.New(errclass.Input, "evaluator: unreadable evidence")
	// ErrOptions: Options are malformed (Order not a permutation, Only naming a scenario twice).
	ErrOptions = errclass.New(errclass.Input, "evaluator: invalid options")
)
