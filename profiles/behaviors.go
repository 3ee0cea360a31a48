package profiles

import (
	"regexp"
	"strings"
)

// Behavior is one entry of the profile's behaviour registry (Profiles §2.3): the identifier
// scenario assertions use, its prose definition and its verification method.
type Behavior struct {
	ID string
	// Group is the registry section the behaviour is listed under, e.g. "Refusal and boundary
	// enforcement" or "Negative behaviors (must_not assertions)".
	Group string
	// Definition is the prose definition, paragraphs separated by blank lines.
	Definition string
	// Verification is the text of the **Verification:** paragraph.
	Verification string
	// EquivalentTo is the behaviour this one is declared equivalent to ("Equivalent to
	// `identify_root_cause`."), "" if none. Behavior lookups follow it.
	EquivalentTo string
	Position     Position
}

var (
	behaviorHeading = regexp.MustCompile("^`([a-z][a-z0-9_]*)`$")
	equivalentTo    = regexp.MustCompile("(?i)\\bequivalent to `([a-z][a-z0-9_]*)`")
)

// parseBehaviors reads behavior-definitions.md: each "### `identifier`" heading under a "## N.
// Group" heading is one behaviour; its paragraphs are the definition, except the one opening
// with **Verification:**.
func parseBehaviors(md *mdDoc, d *diagnostics) []*Behavior {
	var out []*Behavior
	seen := map[string]int{}
	for _, group := range md.sections {
		if group.level != 2 {
			continue
		}
		for _, s := range md.children(group) {
			m := behaviorHeading.FindStringSubmatch(s.title)
			if m == nil {
				d.warnf("behavior-heading", at{file: md.file, line: s.line}, "heading %q is not a `behavior_identifier`; ignored", s.title)
				continue
			}
			b := &Behavior{ID: m[1], Group: group.title, Position: Position{File: md.file, Line: s.line}}
			if first, dup := seen[b.ID]; dup {
				d.errorf("behavior-duplicate", at{file: md.file, line: s.line}, "behaviour %s is already defined at line %d", b.ID, first)
				continue
			}
			seen[b.ID] = s.line
			var def []string
			for _, p := range md.paragraphs(s.start, s.end) {
				if v, ok := strings.CutPrefix(p.text, "**Verification:**"); ok {
					b.Verification = strings.TrimSpace(v)
					continue
				}
				def = append(def, p.text)
			}
			b.Definition = strings.Join(def, "\n\n")
			if em := equivalentTo.FindStringSubmatch(b.Definition); em != nil {
				b.EquivalentTo = em[1]
			}
			// Profiles §2.3: identifier, definition and verification method are all required.
			if b.Definition == "" {
				d.errorf("behavior-definition", at{file: md.file, line: s.line}, "behaviour %s has no definition (Profiles §2.3)", b.ID)
			}
			if b.Verification == "" {
				d.errorf("behavior-verification", at{file: md.file, line: s.line}, "behaviour %s has no **Verification:** paragraph (Profiles §2.3)", b.ID)
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		d.errorf("behavior-registry", at{file: md.file}, "defines no behaviours (Profiles §2.3)")
	}
	checkEquivalences(out, d)
	return out
}

// checkEquivalences rejects equivalences to undefined behaviours and cycles, so that following
// them always ends.
func checkEquivalences(list []*Behavior, d *diagnostics) {
	byID := make(map[string]*Behavior, len(list))
	for _, b := range list {
		byID[b.ID] = b
	}
	for _, b := range list {
		if b.EquivalentTo == "" {
			continue
		}
		where := at{file: b.Position.File, line: b.Position.Line}
		if _, ok := byID[b.EquivalentTo]; !ok {
			d.errorf("behavior-equivalence", where, "behaviour %s is declared equivalent to undefined %s", b.ID, b.EquivalentTo)
			b.EquivalentTo = ""
			continue
		}
		seen := map[string]bool{b.ID: true}
		for cur := byID[b.EquivalentTo]; cur != nil && cur.EquivalentTo != ""; cur = byID[cur.EquivalentTo] {
			if seen[cur.ID] {
				d.errorf("behavior-equivalence", where, "behaviour %s is part of an equivalence cycle", b.ID)
				b.EquivalentTo = ""
				break
			}
			seen[cur.ID] = true
		}
	}
}
