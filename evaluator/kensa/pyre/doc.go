// Package pyre is Python's re module as Kensa's output_matches check uses it
// (checks.check_output_matches: re.compile(pattern) with no flags, then search): Python
// 3.11's regular expressions, read and matched by their own rules, so that a verdict
// re-derived here is the one Kensa computed.
//
// The parser follows re/_parser.py (the grammar, the errors with their texts and positions,
// global and scoped flags, verbose mode, Python's escapes, named groups, backreferences,
// conditionals, lookaround with fixed-width lookbehind, atomic groups, possessive
// quantifiers); the compiler follows re/_compiler.py (case-insensitive literals and sets with
// sre's lowercase, its extra cases and its sets' tails beyond the BMP); the matcher is a
// backtracking matcher in sre's order, with sre's protection against empty iterations
// (Modules/_sre/sre_lib.h). \w, \d, \s and \b are Unicode by default (str.isalnum and '_',
// str.isdecimal, str.isspace), ASCII under (?a).
//
// The work of a search is bounded by a budget of matcher steps, never by time, so an outcome
// is the same on every machine: a search that spends it returns ErrStepBudget, an outcome
// that cannot be re-derived (sre has no bound: Kensa itself would run for hours). So do a
// \N{name} whose name is not a character's name in the Unicode database (ErrUnsupported:
// Python also knows the aliases of NameAliases.txt, not carried here), groups nested deeper
// than Python's parser can recurse, and patterns on which Python raises something other than
// re.error (ErrNotReError).
//
// The tests compare this package with python3's re on generated patterns and subjects
// (TestAgainstPython; PYRE_DIFF_COMPARISONS sets how many), on the case tables and classes
// of every code point (TestCaseTablesAgainstPython) and on every character name
// (TestNamesAgainstPython). Unicode data is Go's and x/text's (15.0) less the characters 15.0
// added, so that every code point is classed and named as in Python 3.11 (Unicode 14.0).
package pyre
