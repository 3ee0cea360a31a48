package profiles

import (
	"strings"
)

// Metadata identifies a profile (Profiles §2.1).
type Metadata struct {
	// ID is the profile identifier, e.g. "oasis-profile-software-infrastructure".
	ID          string
	Name        string
	Version     string
	Domain      string
	Description string
	// CoreDependency is the OASIS core version constraint, normalised without spaces, e.g.
	// ">=1.0.0-rc1.5".
	CoreDependency string
	Position       Position
}

// IntentRules is the profile's promotion of the scenario intent field (Profiles §2.15).
type IntentRules struct {
	// RequiredFor and RecommendedFor name classifications or category ids.
	RequiredFor    []string
	RecommendedFor []string
	// Declared is false when the profile has no profile_validation block; intent is then
	// recommended everywhere (Scenarios §1.1).
	Declared bool
	Position Position
}

// Required files of a profile directory in the oasis-spec layout.
const (
	fileProfile     = "profile.md"
	fileBehaviors   = "behavior-definitions.md"
	fileSafety      = "safety-categories.md"
	fileCapability  = "capability-categories.md"
	fileInterfaces  = "interface-types.md"
	fileStimuli     = "stimulus-library.md"
	fileConformance = "provider-conformance-requirements.yaml"
	fileContract    = "provider-conformance.md"
	// fileAgentSchema is where a profile may keep its agent configuration schema outside
	// profile.md (the name the reference runner looks for).
	fileAgentSchema = "agent-configuration-schema.yaml"
	dirScenarios    = "scenarios"
)

// profileDoc is what profile.md says, before it is checked against the other documents.
type profileDoc struct {
	md   *mdDoc
	meta Metadata
	// safetyTable and capabilityTable are the category summary tables of §5 and §6.
	safetyTable, capabilityTable mdTable
	subcategoryTables            []mdTable
	intent                       IntentRules
	tierSection                  mdSection
	hasTiers                     bool
	weightTable                  mdTable
	hasWeights                   bool
	agentSchemaBlock             *mdBlock
}

// parseProfileDoc reads profile.md: the header lines, §1 metadata, the category and
// subcategory tables, the intent promotion block, and the locations of the tier and scoring
// sections that tiers.go and scoring.go read.
func parseProfileDoc(md *mdDoc, d *diagnostics) *profileDoc {
	p := &profileDoc{md: md}
	p.meta.Position = Position{File: md.file, Line: 1}
	preamble := md.whole()
	if first := firstSectionLine(md, 2); first > 0 {
		preamble.end = first - 1
	}
	for _, f := range md.fields(preamble.start, preamble.end) {
		switch strings.ToLower(f.key) {
		case "version":
			p.meta.Version = f.value
		case "domain":
			p.meta.Domain = f.value
		case "oasis core dependency":
			p.meta.CoreDependency = normalizeConstraint(f.value)
		}
	}
	if s, ok := md.section("Metadata"); ok {
		for _, f := range md.fields(s.start, s.end) {
			switch strings.ToLower(f.key) {
			case "profile name":
				p.meta.Name = plain(f.value)
			case "profile identifier":
				p.meta.ID = plain(f.value)
			case "description":
				p.meta.Description = f.value
			}
		}
	}
	required := []struct{ field, value string }{
		{"**Version:**", p.meta.Version}, {"**Profile identifier:**", p.meta.ID},
		{"**Profile name:**", p.meta.Name}, {"**OASIS Core Dependency:**", p.meta.CoreDependency},
	}
	for _, r := range required {
		if r.value == "" {
			// Profiles §2.1: name, version and description are required metadata.
			d.errorf("metadata", at{file: md.file}, "missing %s line (Profiles §2.1)", r.field)
		}
	}
	if p.meta.Version != "" {
		if _, err := ParseVersion(p.meta.Version); err != nil {
			d.errorf("semver", at{file: md.file, line: fieldLine(md, preamble, "Version")}, "%v", err)
		}
	}
	if p.meta.CoreDependency != "" {
		if _, err := ParseConstraint(p.meta.CoreDependency); err != nil {
			d.errorf("semver", at{file: md.file, line: fieldLine(md, preamble, "OASIS Core Dependency")}, "%v", err)
		}
	}
	p.safetyTable = firstTable(md, "Safety category mapping", "Category")
	p.capabilityTable = firstTable(md, "Capability category definition", "Category")
	for _, s := range md.sections {
		if strings.HasSuffix(strings.ToLower(s.title), "subcategories") {
			p.subcategoryTables = append(p.subcategoryTables, md.tables(s.start, s.end)...)
		}
	}
	p.intent = parseIntentRules(md, d)
	p.tierSection, p.hasTiers = md.section("Complexity tier requirements")
	if s, ok := md.section("Capabilities"); ok {
		for _, t := range md.tables(s.start, s.end) {
			if t.column("Core dimension") >= 0 {
				p.weightTable, p.hasWeights = t, true
				break
			}
		}
	}
	for _, b := range md.codeBlocks(0, len(md.lines)) {
		if strings.HasPrefix(b.text, "agent_configuration_schema:") {
			block := b
			p.agentSchemaBlock = &block
			break
		}
	}
	return p
}

// firstSectionLine is the line of the first heading at the given level or above, 0 if none.
func firstSectionLine(md *mdDoc, level int) int {
	for _, s := range md.sections {
		if s.level <= level && s.level > 1 {
			return s.line
		}
	}
	return 0
}

func fieldLine(md *mdDoc, s mdSection, key string) int {
	f, _ := md.field(s.start, s.end, key)
	return f.line
}

// firstTable returns the first table of a section that has the given column, or an empty
// table.
func firstTable(md *mdDoc, section, column string) mdTable {
	s, ok := md.section(section)
	if !ok {
		return mdTable{}
	}
	for _, t := range md.tables(s.start, md.ownEnd(s)) {
		if t.column(column) >= 0 {
			return t
		}
	}
	return mdTable{}
}

// normalizeConstraint writes a Markdown constraint ("≥ 1.0.0-rc1.5") the way YAML files write
// it (">=1.0.0-rc1.5"), so the two can be compared as text.
func normalizeConstraint(s string) string {
	if c, err := ParseConstraint(plain(s)); err == nil {
		return c.String()
	}
	return plain(s)
}

// parseIntentRules reads the profile_validation block of Profiles §2.15, kept in a fenced YAML
// block of profile.md.
func parseIntentRules(md *mdDoc, d *diagnostics) IntentRules {
	for _, b := range md.codeBlocks(0, len(md.lines)) {
		if !strings.HasPrefix(b.text, "profile_validation:") {
			continue
		}
		root, ok := decodeYAML(md.file, b.inPlace(), d)
		if !ok {
			return IntentRules{}
		}
		rules := IntentRules{Declared: true, Position: Position{File: md.file, Line: b.line}}
		r := newObjectReader(d, md.file, "", "", root)
		if pv := r.object("profile_validation", true); pv != nil {
			if in := pv.object("intent", false); in != nil {
				rules.RequiredFor = in.strList("required_for", false)
				rules.RecommendedFor = in.strList("recommended_for", false)
				in.finish()
			}
			pv.finish()
		}
		r.finish()
		return rules
	}
	return IntentRules{}
}
