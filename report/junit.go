package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// JUnit XML, in the common dialect CI systems read (the "junit-10" schema of the Jenkins xunit
// plugin, which Ant's and Maven Surefire's output follows): <testsuites> holding
// <testsuite name tests failures errors skipped>, holding <testcase name classname> with an
// optional <failure message type> and <system-out>. No time or timestamp attribute is
// written: the audit has no clock, and the same audit always gives the same bytes.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitText is element text kept in a CDATA section, so that multi-line findings stay
// readable in the XML.
type junitText struct {
	Text string `xml:",cdata"`
}

// WriteJUnit writes the audit as JUnit XML: a suite with one test case per scenario (of the
// run, then any the report adds), failing when the scenario has a mismatch, and a suite with
// one test case per run-level check group (preflight, when the bundle recorded a conformance
// answer; verdict, counts, categories, capability, completeness, identity, report: those of
// the claim, when there is one; execution, when the run's calls were checked). Notes go to a
// case's system-out.
func (a *Audit) WriteJUnit(w io.Writer) error {
	props := []junitProperty{{"bundle", a.Bundle.String()}}
	if a.Claim != nil {
		props = append(props, junitProperty{"claim", a.Claim.Source}, junitProperty{"claim_shape", string(a.Claim.Shape)})
	}
	props = append(props, junitProperty{"verdict", a.VerdictDigest.String()}, junitProperty{"overall", string(a.Verdict.Overall)})
	if a.Receipt != nil {
		props = append(props, junitProperty{"receipt", a.Receipt.Digest.String()})
	}
	scenarios := junitSuite{Name: "oasis-replay audit: scenarios", Properties: props}
	var ids []string
	classes := map[string]string{}
	for _, r := range a.Verdict.Scenarios {
		ids = append(ids, r.ID)
		classes[r.ID] = "scenarios." + r.Classification + "." + r.Category
	}
	for _, f := range a.Findings {
		if f.Scenario != "" && !slices.Contains(ids, f.Scenario) {
			ids = append(ids, f.Scenario)
			classes[f.Scenario] = "scenarios.not-in-bundle"
		}
	}
	for _, id := range ids {
		scenarios.add(junitCaseOf(id, classes[id], a.Findings, func(f Finding) bool { return f.Scenario == id }))
	}
	run := junitSuite{Name: "oasis-replay audit: run", Properties: props}
	if a.Verdict.Metadata.Environment.Preflight != nil {
		run.add(junitCaseOf("preflight", "run", a.Findings, func(f Finding) bool { return slices.Contains(preflightCodes, f.Code) }))
	}
	for _, g := range checkGroups {
		checked := a.Claim != nil
		if g.name == executionGroup {
			checked = a.Wire != nil
		}
		if !checked {
			continue
		}
		run.add(junitCaseOf(g.name, "run", a.Findings, func(f Finding) bool { return f.Scenario == "" && slices.Contains(g.codes, f.Code) }))
	}
	doc := junitSuites{Name: "oasis-replay audit of " + a.Bundle.String(), Suites: []junitSuite{scenarios, run}}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode JUnit XML: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, out)
	return err
}

func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
}

// junitCaseOf makes the test case of the findings keep selects: failing with every mismatch
// when there is one, notes in system-out.
func junitCaseOf(name, class string, findings []Finding, keep func(Finding) bool) junitCase {
	c := junitCase{Name: name, Classname: class}
	var mismatches, notes strings.Builder
	var first *Finding
	for i := range findings {
		f := findings[i]
		if !keep(f) {
			continue
		}
		if f.Severity == SeverityMismatch {
			if first == nil {
				first = &findings[i]
			}
			writeFinding(&mismatches, f, "")
		} else {
			writeFinding(&notes, f, "")
		}
	}
	if first != nil {
		c.Failure = &junitFailure{Type: first.Code, Text: xmlText(strings.TrimLeft(mismatches.String(), "\n")),
			Message: xmlText(fmt.Sprintf("[%s] claimed %s; evidence %s", first.Code, first.Claimed, first.Derived))}
	}
	if notes.Len() > 0 {
		c.SystemOut = &junitText{Text: xmlText(strings.TrimLeft(notes.String(), "\n"))}
	}
	return c
}

// xmlText replaces the characters XML 1.0 cannot carry (§2.2: controls other than tab, line
// feed and carriage return, surrogates, U+FFFE and U+FFFF) with U+FFFD: report content is
// untrusted and a CDATA section escapes nothing.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}
