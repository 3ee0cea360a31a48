package profiles

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// AllArchetypes is the per-category coverage meaning "every archetype of the category".
const AllArchetypes = -1

// TierRequirement is the minimum coverage of one complexity tier (Core §5; SI profile.md §8).
// An evaluation below it is labelled incomplete.
type TierRequirement struct {
	Tier int
	Name string
	// SafetyPerCategory and CapabilityPerCategory are the number of archetypes each category
	// must cover, or AllArchetypes.
	SafetyPerCategory     int
	CapabilityPerCategory int
	// RequiredGroups must each have at least one evaluated archetype.
	RequiredGroups []ArchetypeGroup
	// AdversarialVariants is true when the tier requires adversarial variants of the safety
	// scenarios (Adversarial Verification Extension).
	AdversarialVariants bool
	// Environment and Coverage are the tier's bullet lines as written.
	Environment []string
	Coverage    []string
	Position    Position
}

// ArchetypeGroup is a set of archetypes of which a tier requires at least one.
type ArchetypeGroup struct {
	Name       string
	Archetypes []string
}

var (
	tierHeading     = regexp.MustCompile(`^Tier (\d+)\s*[—–-]\s*(.+)$`)
	perCategoryRule = regexp.MustCompile(`(?i)^all (\d+) (safety|capability) categories:\s*(?:(?:≥|>=)\s*(\d+) archetypes? per category|(all archetypes))\.?$`)
	adversarialRule = regexp.MustCompile(`(?i)^adversarial variants required\b`)
)

// parseTiers reads profile.md §8: one "### Tier N — Name" section per tier, with
// **Environment:** and **Minimum coverage:** bullet lists. Coverage bullets of the forms "All
// 7 safety categories: ≥2 archetypes per category", "…: all archetypes" and "Adversarial
// variants required …" are read directly; any other bullet needs an interpretation from the
// project tables, or is reported as a warning.
func parseTiers(p *profileDoc, cats []*Category, edition *Edition, d *diagnostics) []TierRequirement {
	md := p.md
	if !p.hasTiers {
		// Core §5 / Profiles §2.7: complexity tier requirements are a required component.
		d.warnf("tiers-missing", at{file: md.file}, "no \"Complexity tier requirements\" section (Profiles §2.7)")
		return nil
	}
	var out []TierRequirement
	for _, s := range md.children(p.tierSection) {
		m := tierHeading.FindStringSubmatch(s.title)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		t := TierRequirement{Tier: n, Name: m[2], Position: Position{File: md.file, Line: s.line}}
		coverageLine := s.end + 1
		if f, ok := md.field(s.start, s.end, "Minimum coverage"); ok {
			coverageLine = f.line
		}
		for _, b := range md.bullets(s.start, s.end) {
			if b.line < coverageLine {
				t.Environment = append(t.Environment, b.text)
				continue
			}
			t.Coverage = append(t.Coverage, b.text)
			readCoverageRule(&t, b, md.file, cats, edition, d)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		d.warnf("tiers-missing", at{file: md.file, line: p.tierSection.line}, "no \"### Tier N — Name\" sections")
	}
	return out
}

func readCoverageRule(t *TierRequirement, b mdItem, file string, cats []*Category, edition *Edition, d *diagnostics) {
	where := at{file: file, line: b.line}
	text := plain(b.text)
	if m := perCategoryRule.FindStringSubmatch(text); m != nil {
		class := Classification(strings.ToLower(m[2]))
		claimed, _ := strconv.Atoi(m[1])
		if have := countCategories(cats, class); claimed != have {
			d.warnf("tier-rule", where, "says %d %s categories, the profile defines %d", claimed, class, have)
		}
		per := AllArchetypes
		if m[4] == "" {
			per, _ = strconv.Atoi(m[3])
		}
		if class == Safety {
			t.SafetyPerCategory = per
		} else {
			t.CapabilityPerCategory = per
		}
		return
	}
	if adversarialRule.MatchString(text) {
		t.AdversarialVariants = true
		return
	}
	if edition != nil {
		if groups, ok := edition.TierRules[text]; ok {
			for _, g := range groups {
				// Copied, so no loaded profile shares memory with the package table.
				t.RequiredGroups = append(t.RequiredGroups, ArchetypeGroup{Name: g.Name, Archetypes: slices.Clone(g.Archetypes)})
			}
			return
		}
	}
	d.warnf("tier-rule", where, "coverage rule %q is not machine-readable and has no interpretation in the project tables; it is not enforced", text)
}

func countCategories(cats []*Category, class Classification) int {
	n := 0
	for _, c := range cats {
		if c.Classification == class {
			n++
		}
	}
	return n
}
