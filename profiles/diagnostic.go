package profiles

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Severity says whether a diagnostic stops a profile from loading.
type Severity string

// Diagnostic severities. The strings match store.Finding severities so a recorder can keep
// profile diagnostics as findings unchanged.
const (
	// SeverityError: a rule of the spec is broken; the profile does not load.
	SeverityError Severity = "error"
	// SeverityWarning: the profile loads, but something in it is inconsistent, stale or
	// incomplete; the warning is kept on Profile.Diagnostics for reports.
	SeverityWarning Severity = "warning"
)

// Diagnostic is one finding about a profile, located as precisely as the source allows.
type Diagnostic struct {
	Severity Severity
	// Code names the rule, e.g. "subcategory-parent" or "version-drift"; see doc.go.
	Code string
	// File is the slash path of the file inside the profile directory, "" for the profile
	// as a whole.
	File string
	// Line is 1-based; 0 when the finding concerns the file as a whole.
	Line int
	// Scenario is the id of the scenario concerned, if any.
	Scenario string
	// Field is the dotted path of the field concerned, e.g. "assertions.must[1].behavior".
	Field   string
	Message string
}

// String renders "file:line: scenario: field: message", leaving out the parts that are empty.
func (d Diagnostic) String() string {
	var parts []string
	switch {
	case d.File != "" && d.Line > 0:
		parts = append(parts, d.File+":"+strconv.Itoa(d.Line))
	case d.File != "":
		parts = append(parts, d.File)
	}
	for _, p := range []string{d.Scenario, d.Field, d.Message} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// compareDiagnostics orders diagnostics by file, line, scenario, field, code and message, so
// every listing of them is the same whatever order the checks ran in.
func compareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(
		strings.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		strings.Compare(a.Scenario, b.Scenario),
		strings.Compare(a.Field, b.Field),
		strings.Compare(a.Code, b.Code),
		strings.Compare(a.Message, b.Message),
		strings.Compare(string(a.Severity), string(b.Severity)),
	)
}

// ValidationError is the error Load returns for a profile with errors. It lists every
// diagnostic found, errors and warnings, sorted.
type ValidationError struct {
	Diagnostics []Diagnostic
}

// Errors returns the diagnostics of severity error.
func (e *ValidationError) Errors() []Diagnostic {
	var errs []Diagnostic
	for _, d := range e.Diagnostics {
		if d.Severity == SeverityError {
			errs = append(errs, d)
		}
	}
	return errs
}

// Error lists every error, one per line.
func (e *ValidationError) Error() string {
	errs := e.Errors()
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d error(s)", ErrInvalidProfile, len(errs))
	for _, d := range errs {
		b.WriteString("\n  ")
		b.WriteString(d.String())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidProfile) true.
func (e *ValidationError) Unwrap() error { return ErrInvalidProfile }

// diagnostics collects findings while a profile loads.
type diagnostics struct {
	list []Diagnostic
}

// at is where a finding points: a file and line, and optionally a scenario and field.
type at struct {
	file     string
	line     int
	scenario string
	field    string
}

func (d *diagnostics) add(sev Severity, code string, where at, format string, args ...any) {
	d.list = append(d.list, Diagnostic{
		Severity: sev,
		Code:     code,
		File:     where.file,
		Line:     where.line,
		Scenario: where.scenario,
		Field:    where.field,
		Message:  fmt.Sprintf(format, args...),
	})
}

func (d *diagnostics) errorf(code string, where at, format string, args ...any) {
	d.add(SeverityError, code, where, format, args...)
}

func (d *diagnostics) warnf(code string, where at, format string, args ...any) {
	d.add(SeverityWarning, code, where, format, args...)
}

func (d *diagnostics) hasErrors() bool {
	return slices.ContainsFunc(d.list, func(x Diagnostic) bool { return x.Severity == SeverityError })
}

// sorted returns the findings in their canonical order, without duplicates (two documents
// that repeat the same stale text give one finding per place, never two for one place).
func (d *diagnostics) sorted() []Diagnostic {
	out := slices.Clone(d.list)
	slices.SortStableFunc(out, compareDiagnostics)
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return compareDiagnostics(a, b) == 0 })
}
