package kensa

import (
	"errors"

	"github.com/oasis-replay/oasis-replay/evaluator/kensa/pyre"
)

// searchPython is bool(re.search(pattern, output)) as checks.check_output_matches computes it
// (re.compile with no flags, then search), through package pyre, which reads and matches
// patterns as Python 3.11's re does. An invalid pattern returns Python's re.error (*pyre.Error,
// whose text is str(re.error)); a pattern or search this evaluator cannot decide as Python
// would returns an error isUnsupported reports (the step budget spent, a \N{name} whose name
// is not found, perhaps an alias; an exception Python raises other than re.error, which Kensa
// does not catch).
func searchPython(pattern, output string) (bool, error) {
	re, err := pyre.Compile(pattern)
	if err != nil {
		return false, err
	}
	_, _, found, err := re.Search(output, regexBudget)
	return found, err
}

// regexBudget is the step budget of a search (tests lower it to reach it sooner).
var regexBudget = pyre.DefaultBudget

// isUnsupported reports an outcome that cannot be re-derived: the check is then unsupported
// and the run an error naming why, never a guessed verdict.
func isUnsupported(err error) bool {
	return errors.Is(err, pyre.ErrStepBudget) || errors.Is(err, pyre.ErrUnsupported) || errors.Is(err, pyre.ErrNotReError)
}
