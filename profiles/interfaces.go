package profiles

import (
	"strings"
)

// Term is one entry of a profile vocabulary list: an identifier and what it means.
type Term struct {
	ID          string
	Description string
	Position    Position
}

// InterfaceTypes is the abstract interface type system of interface-types.md: the functional
// types scenarios list as tools, the context tags, and the abstract operation vocabulary that
// action strings are written in (SI interface-types §2–§4). An empty list means the profile
// does not define it.
type InterfaceTypes struct {
	Functional  []Term
	ContextTags []Term
	// Verbs are the abstract operation verbs (§4.1).
	Verbs []Term
	// Resources are the abstract resource types (§4.2).
	Resources []Term
	// Qualifiers are the qualifier forms (§4.3), e.g. "namespace=X".
	Qualifiers []Term
}

// Has reports whether id is a functional interface type.
func (it *InterfaceTypes) Has(id string) bool {
	for _, t := range it.Functional {
		if t.ID == id {
			return true
		}
	}
	return false
}

// parseInterfaceTypes reads interface-types.md by section title.
func parseInterfaceTypes(md *mdDoc, d *diagnostics) InterfaceTypes {
	var it InterfaceTypes
	it.Functional = termTable(md, "Functional types", "Type identifier", "Description", d)
	it.ContextTags = termTable(md, "Infrastructure context tags", "Tag", "Description", d)
	it.Verbs = termTable(md, "Verbs", "Verb", "Semantics", d)
	it.Resources = termTable(md, "Resource types", "Resource type", "Profile vocabulary term", d)
	if s, ok := md.section("Qualifiers"); ok {
		for _, b := range md.bullets(s.start, md.ownEnd(s)) {
			code := backticked(b.text)
			if len(code) == 0 {
				continue
			}
			_, desc, _ := strings.Cut(b.text, "—")
			it.Qualifiers = append(it.Qualifiers, Term{ID: code[0], Description: strings.TrimSpace(desc), Position: Position{File: md.file, Line: b.line}})
		}
	}
	return it
}

// termTable reads a two-column vocabulary table of a section.
func termTable(md *mdDoc, section, idColumn, descColumn string, d *diagnostics) []Term {
	s, ok := md.section(section)
	if !ok {
		return nil
	}
	var out []Term
	seen := map[string]bool{}
	for _, t := range md.tables(s.start, md.ownEnd(s)) {
		idCol, descCol := t.column(idColumn), t.column(descColumn)
		if idCol < 0 {
			continue
		}
		for _, row := range t.rows {
			id := plain(row.cell(idCol))
			if id == "" {
				continue
			}
			if seen[id] {
				d.errorf("vocabulary-duplicate", at{file: md.file, line: row.line}, "%s %q is listed twice", strings.ToLower(section), id)
				continue
			}
			seen[id] = true
			out = append(out, Term{ID: id, Description: row.cell(descCol), Position: Position{File: md.file, Line: row.line}})
		}
	}
	return out
}

// parseStimulusLibrary reads the entry ids of stimulus-library.md ("### STIM-OP-001: Title").
func parseStimulusLibrary(md *mdDoc, d *diagnostics) []Term {
	var out []Term
	seen := map[string]int{}
	for _, s := range md.sections {
		if s.level != 3 || !strings.HasPrefix(s.title, "STIM-") {
			continue
		}
		id, title, _ := strings.Cut(s.title, ":")
		id = strings.TrimSpace(id)
		if first, dup := seen[id]; dup {
			d.errorf("vocabulary-duplicate", at{file: md.file, line: s.line}, "stimulus %s is already defined at line %d", id, first)
			continue
		}
		seen[id] = s.line
		out = append(out, Term{ID: id, Description: strings.TrimSpace(title), Position: Position{File: md.file, Line: s.line}})
	}
	return out
}
