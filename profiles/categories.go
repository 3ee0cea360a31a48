package profiles

import (
	"regexp"
	"slices"
	"strings"
)

// Category is a safety or capability category of the profile (Profiles §2.4, §2.5).
type Category struct {
	// ID is the kebab-case identifier scenarios use: the category name lowercased, words
	// joined by "-" ("Boundary Enforcement" → "boundary-enforcement").
	ID string
	// Code is the two-letter code of its archetype ids ("BE" for S-BE-001).
	Code           string
	Name           string
	Classification Classification
	// CoreMapping is the core safety category the safety category maps to, as written
	// ("Boundary violation", "Domain-specific").
	CoreMapping  string
	CoreQuestion string
	// Dimensions are the core capability dimensions a capability category maps to.
	Dimensions []Dimension
	// Aggregation is the capability category's aggregation method as written; the numbers
	// the evaluator uses are in Profile.Scoring.
	Aggregation string
	Archetypes  []*Archetype
	Position    Position
}

// Archetype is a structural test pattern of a category (Core §1.6).
type Archetype struct {
	// ID is e.g. "S-BE-001" or "C-OE-004".
	ID       string
	Name     string
	Category string
	// Description is the first paragraph of the archetype's definition.
	Description string
	// Details are its bullet lines as written (preconditions, expected behaviour, scoring prose).
	Details  []string
	Position Position
}

// Subcategory is a profile-defined grouping inside one or more categories (Profiles §2.14).
type Subcategory struct {
	ID string
	// Parents are the ids of the categories it belongs to. The SI profile lets one subcategory
	// span several (safety-categories.md, "Safety subcategories").
	Parents     []string
	Description string
	Position    Position
}

var archetypeHeading = regexp.MustCompile(`^([SC])-([A-Z]{2,})-(\d+):\s*(.+)$`)

// kebab turns a category name into its identifier.
func kebab(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(plain(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

// parseCategories reads safety-categories.md or capability-categories.md: each numbered "## N.
// Name" section is a category, with **Core mapping:** (safety) or **Core dimension mapping:**
// and **Aggregation:** (capability) lines, and one "### X-YY-NNN: Name" heading per archetype.
func parseCategories(md *mdDoc, class Classification, d *diagnostics) []*Category {
	var out []*Category
	prefix := map[Classification]string{Safety: "S", Capability: "C"}[class]
	seenArchetype := map[string]int{}
	for _, s := range md.sections {
		if s.level != 2 || s.number == "" {
			continue
		}
		c := &Category{ID: kebab(s.title), Name: s.title, Classification: class, Position: Position{File: md.file, Line: s.line}}
		own := md.ownEnd(s)
		for _, f := range md.fields(s.start, own) {
			switch strings.ToLower(f.key) {
			case "core mapping":
				c.CoreMapping = plain(f.value)
			case "core question":
				c.CoreQuestion = f.value
			case "core dimension mapping":
				c.Dimensions = parseDimensionList(f, md.file, d)
			case "aggregation":
				c.Aggregation = f.value
			}
		}
		for _, a := range md.children(s) {
			m := archetypeHeading.FindStringSubmatch(a.title)
			where := at{file: md.file, line: a.line}
			if m == nil {
				d.warnf("archetype-heading", where, "heading %q is not an archetype (X-YY-NNN: Name); ignored", a.title)
				continue
			}
			arch := &Archetype{ID: m[1] + "-" + m[2] + "-" + m[3], Name: m[4], Category: c.ID, Position: Position{File: md.file, Line: a.line}}
			if m[1] != prefix {
				d.errorf("archetype-id", where, "archetype %s of a %s category must start with %s-", arch.ID, class, prefix)
			}
			if c.Code == "" {
				c.Code = m[2]
			} else if c.Code != m[2] {
				d.errorf("archetype-id", where, "archetype %s does not share the code %s of category %s", arch.ID, c.Code, c.ID)
			}
			if first, dup := seenArchetype[arch.ID]; dup {
				d.errorf("archetype-duplicate", where, "archetype %s is already defined at line %d", arch.ID, first)
				continue
			}
			seenArchetype[arch.ID] = a.line
			if paras := md.paragraphs(a.start, a.end); len(paras) > 0 {
				arch.Description = paras[0].text
			}
			for _, b := range md.bullets(a.start, a.end) {
				arch.Details = append(arch.Details, b.text)
			}
			c.Archetypes = append(c.Archetypes, arch)
		}
		if len(c.Archetypes) == 0 {
			// Core §1.6 and Profiles §2.4/§2.5: categories are made of archetypes.
			d.errorf("category-empty", at{file: md.file, line: s.line}, "category %s defines no archetype", c.ID)
		}
		if class == Capability && len(c.Dimensions) == 0 {
			// Profiles §2.5: each capability category declares its core dimension(s).
			d.errorf("category-dimensions", at{file: md.file, line: s.line}, "capability category %s has no **Core dimension mapping:** line (Profiles §2.5)", c.ID)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		d.errorf("category-registry", at{file: md.file}, "defines no %s category", class)
	}
	return out
}

// parseDimensionList reads "Task completion, Reasoning" as core dimensions (Core §4.1).
func parseDimensionList(f mdField, file string, d *diagnostics) []Dimension {
	var out []Dimension
	for _, part := range strings.Split(f.value, ",") {
		name := strings.TrimSpace(plain(part))
		if name == "" {
			continue
		}
		dim, ok := dimensionByName(name)
		if !ok {
			d.errorf("dimension-unknown", at{file: file, line: f.line}, "%q is not a core capability dimension (Core §4.1)", name)
			continue
		}
		if !slices.Contains(out, dim) {
			out = append(out, dim)
		}
	}
	return out
}

// parseSubcategoryTable reads a "Subcategory | Parent category | Description" table. Parents
// are category names, comma-separated; they are resolved to ids against cats.
func parseSubcategoryTable(file string, t mdTable, cats []*Category, d *diagnostics) []*Subcategory {
	idCol, parentCol, descCol := t.column("Subcategory"), -1, t.column("Description")
	for i, h := range t.header {
		if strings.HasPrefix(strings.ToLower(plain(h)), "parent") {
			parentCol = i
		}
	}
	if idCol < 0 || parentCol < 0 {
		d.errorf("subcategory-table", at{file: file, line: t.line}, "subcategory table needs Subcategory and Parent category columns")
		return nil
	}
	var out []*Subcategory
	for _, row := range t.rows {
		sub := &Subcategory{ID: plain(row.cell(idCol)), Description: row.cell(descCol), Position: Position{File: file, Line: row.line}}
		for _, name := range strings.Split(row.cell(parentCol), ",") {
			name = strings.TrimSpace(plain(name))
			if name == "" {
				continue
			}
			c := categoryByName(cats, name)
			if c == nil {
				// Profiles §2.14: orphan subcategories are invalid.
				d.errorf("subcategory-parent-unknown", at{file: file, line: row.line}, "subcategory %s names parent %q, which is not a category of the profile (Profiles §2.14)", sub.ID, name)
				continue
			}
			sub.Parents = append(sub.Parents, c.ID)
		}
		if len(sub.Parents) == 0 {
			d.errorf("subcategory-parent-unknown", at{file: file, line: row.line}, "subcategory %s has no parent category (Profiles §2.14)", sub.ID)
		}
		out = append(out, sub)
	}
	return out
}

func categoryByName(cats []*Category, name string) *Category {
	for _, c := range cats {
		if strings.EqualFold(c.Name, name) || c.ID == kebab(name) {
			return c
		}
	}
	return nil
}
