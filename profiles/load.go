package profiles

import (
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// LoadOptions are the options of Load.
type LoadOptions struct {
	// SourceCommit is the commit of the repository the profile directory was taken from, a
	// full 40- or 64-hex git object id, or "" when unknown. It is part of the Pin and of the
	// tree digest.
	SourceCommit string
}

// Load reads, validates and pins the profile whose directory is the root of fsys (the
// oasis-spec layout: profile.md, behavior-definitions.md, safety-categories.md,
// capability-categories.md, provider-conformance-requirements.yaml, scenarios/**/*.yaml, …).
// A profile with errors is not returned; the error is a *ValidationError listing them all.
func Load(fsys fs.FS, opts LoadOptions) (*Profile, error) {
	p, _, err := load(fsys, opts)
	return p, err
}

// load returns the profile and the bytes of its files, which Import writes to the store.
func load(fsys fs.FS, opts LoadOptions) (*Profile, *fileSet, error) {
	if err := checkSourceCommit(opts.SourceCommit); err != nil {
		return nil, nil, err
	}
	files, err := collectFiles(fsys)
	if err != nil {
		return nil, nil, err
	}
	d := &diagnostics{}
	p, edition := assemble(files, d)
	edition.applyWaivers(d.list)
	if d.hasErrors() {
		return nil, nil, &ValidationError{Diagnostics: d.sorted()}
	}
	p.Diagnostics = d.sorted()
	tree, digest, err := buildTree(files, p.Metadata, opts.SourceCommit)
	if err != nil {
		return nil, nil, err
	}
	p.Tree = tree
	p.Pin = Pin{ID: p.Metadata.ID, Version: p.Metadata.Version, SourceCommit: opts.SourceCommit, Tree: digest}
	p.buildIndex()
	return p, files, nil
}

// requiredFiles are the documents every profile in the oasis-spec layout has.
var requiredFiles = []string{fileProfile, fileBehaviors, fileSafety, fileCapability, fileConformance}

// assemble parses every document in the load order of doc.go and cross-checks them. The
// returned profile is complete only when d holds no errors.
func assemble(files *fileSet, d *diagnostics) (*Profile, *Edition) {
	p := &Profile{}
	for _, f := range requiredFiles {
		if _, ok := files.get(f); !ok {
			d.errorf("missing-file", at{file: f}, "required profile document is missing")
		}
	}
	if d.hasErrors() {
		return p, nil
	}
	docs := markdownDocs(files)
	ordered := sortedDocs(docs)
	pd := parseProfileDoc(docs[fileProfile], d)
	p.Metadata = pd.meta
	edition := editionForLoad(pd.meta.ID, pd.meta.Version, pd.meta.CoreDependency)
	p.Edition = edition

	conformanceData, _ := files.get(fileConformance)
	p.Conformance = parseConformance(fileConformance, conformanceData, d)
	checkIdentity(p, d)
	checkKeySpelling(&p.Conformance, d)
	checkKeyClaims(ordered, &p.Conformance, d)
	if md, ok := docs[fileContract]; ok {
		checkContractSections(md, &p.Conformance, d)
	}
	checkVersionDrift(ordered, p.Metadata, d)

	p.Behaviors = parseBehaviors(docs[fileBehaviors], d)
	p.Categories = append(parseCategories(docs[fileSafety], Safety, d), parseCategories(docs[fileCapability], Capability, d)...)
	checkCategoryIDs(p.Categories, d)
	p.Subcategories = loadSubcategories(pd, docs, p.Categories, d)
	checkCategoryTables(pd, p.Categories, d)
	checkCoreCoverage(p.Categories, d)
	if md, ok := docs[fileInterfaces]; ok {
		p.Interfaces = parseInterfaceTypes(md, d)
	}
	if md, ok := docs[fileStimuli]; ok {
		p.StimulusLibrary = parseStimulusLibrary(md, d)
	}
	p.AgentConfig = findAgentSchema(files, pd, d)
	p.IntentRules = pd.intent
	p.Tiers = parseTiers(pd, p.Categories, edition, d)
	p.Scoring = buildScoring(pd, docs[fileCapability], p.Categories, edition, d)

	p.Scenarios = loadScenarios(files, d)
	validateScenarios(p, d)
	return p, edition
}

// markdownDocs parses every .md file of the profile.
func markdownDocs(files *fileSet) map[string]*mdDoc {
	docs := map[string]*mdDoc{}
	for _, f := range files.paths {
		if strings.HasSuffix(f, ".md") {
			data, _ := files.get(f)
			docs[f] = parseMarkdown(f, data)
		}
	}
	return docs
}

func sortedDocs(docs map[string]*mdDoc) []*mdDoc {
	out := make([]*mdDoc, 0, len(docs))
	for _, md := range docs {
		out = append(out, md)
	}
	slices.SortFunc(out, func(a, b *mdDoc) int { return strings.Compare(a.file, b.file) })
	return out
}

// checkIdentity requires profile.md and the conformance file to agree on the profile's id,
// version and core dependency: the pin must not be ambiguous. (The other documents' header
// lines are checked by checkVersionDrift and only warned about.)
func checkIdentity(p *Profile, d *diagnostics) {
	c, m := &p.Conformance, &p.Metadata
	where := at{file: fileConformance, line: 1}
	pairs := []struct{ field, file, md string }{
		{"profile", c.Profile, m.ID},
		{"profile_version", c.ProfileVersion, m.Version},
		{"oasis_core_dependency", c.CoreDependency, m.CoreDependency},
	}
	for _, pr := range pairs {
		if pr.file != "" && pr.md != "" && pr.file != pr.md {
			w := where
			w.field = pr.field
			d.errorf("identity", w, "%q disagrees with %s, which says %q", pr.file, fileProfile, pr.md)
		}
	}
}

// checkVersionDrift warns about documents whose header states another profile version, id or
// core dependency than profile.md (several SI 0.2.0-rc3 documents still say 0.2.0-rc1 and
// ≥ 1.0.0-rc1).
// profile.md and the conformance file are authoritative; they must agree (checkIdentity).
func checkVersionDrift(docs []*mdDoc, m Metadata, d *diagnostics) {
	for _, md := range docs {
		if md.file == fileProfile {
			continue
		}
		end := len(md.lines)
		if first := firstSectionLine(md, 2); first > 0 {
			end = first - 1
		}
		for _, f := range md.fields(0, end) {
			where := at{file: md.file, line: f.line}
			switch strings.ToLower(f.key) {
			case "version", "profile version":
				if f.value != m.Version {
					d.warnf("version-drift", where, "states profile version %s; %s and %s state %s", f.value, fileProfile, fileConformance, m.Version)
				}
			case "oasis core dependency":
				if got := normalizeConstraint(f.value); got != m.CoreDependency {
					d.warnf("version-drift", where, "states core dependency %s; %s and %s state %s", got, fileProfile, fileConformance, m.CoreDependency)
				}
			case "profile identifier":
				if got := plain(f.value); got != m.ID {
					d.warnf("version-drift", where, "states profile identifier %s; %s states %s", got, fileProfile, m.ID)
				}
			}
		}
	}
}

// checkCategoryIDs rejects two categories with the same id: scenarios name categories by id.
func checkCategoryIDs(cats []*Category, d *diagnostics) {
	seen := map[string]*Category{}
	for _, c := range cats {
		if first, dup := seen[c.ID]; dup {
			d.errorf("category-duplicate", at{file: c.Position.File, line: c.Position.Line},
				"category id %s is already used by %s:%d", c.ID, first.Position.File, first.Position.Line)
			continue
		}
		seen[c.ID] = c
	}
}

// loadSubcategories takes the subcategory table of profile.md §5.1 when there is one, else
// those of the category documents, and warns where the two disagree.
func loadSubcategories(pd *profileDoc, docs map[string]*mdDoc, cats []*Category, d *diagnostics) []*Subcategory {
	var primary []*Subcategory
	for _, t := range pd.subcategoryTables {
		primary = append(primary, parseSubcategoryTable(fileProfile, t, cats, d)...)
	}
	fromProfile := len(pd.subcategoryTables) > 0
	for _, file := range []string{fileSafety, fileCapability} {
		md := docs[file]
		// A repeated table's own problems are reported only when it is the source.
		sink := d
		if fromProfile {
			sink = &diagnostics{}
		}
		var secondary []*Subcategory
		for _, s := range md.sections {
			if strings.HasSuffix(strings.ToLower(s.title), "subcategories") {
				for _, t := range md.tables(s.start, s.end) {
					secondary = append(secondary, parseSubcategoryTable(file, t, cats, sink)...)
				}
			}
		}
		if !fromProfile {
			primary = append(primary, secondary...)
			continue
		}
		compareSubcategories(primary, secondary, d)
	}
	seen := map[string]*Subcategory{}
	var out []*Subcategory
	for _, s := range primary {
		if first, dup := seen[s.ID]; dup {
			// Profiles §2.14: identifiers are unique within their parent; this profile model
			// keys subcategories by id alone, so they must be unique overall.
			d.errorf("subcategory-duplicate", at{file: s.Position.File, line: s.Position.Line},
				"subcategory %s is already defined at %s:%d", s.ID, first.Position.File, first.Position.Line)
			continue
		}
		seen[s.ID] = s
		out = append(out, s)
	}
	return out
}

func compareSubcategories(primary, secondary []*Subcategory, d *diagnostics) {
	for _, s := range secondary {
		i := slices.IndexFunc(primary, func(p *Subcategory) bool { return p.ID == s.ID })
		where := at{file: s.Position.File, line: s.Position.Line}
		switch {
		case i < 0:
			d.warnf("subcategory-table", where, "subcategory %s is not in the table of %s", s.ID, fileProfile)
		case !slices.Equal(primary[i].Parents, s.Parents):
			d.warnf("subcategory-table", where, "subcategory %s has parents %s here and %s in %s",
				s.ID, strings.Join(s.Parents, ", "), strings.Join(primary[i].Parents, ", "), fileProfile)
		}
	}
}

// checkCategoryTables compares the summary tables of profile.md §5 and §6 with the category
// documents: names, core mappings and archetype counts.
func checkCategoryTables(pd *profileDoc, cats []*Category, d *diagnostics) {
	type table struct {
		class Classification
		t     mdTable
	}
	for _, tb := range []table{{Safety, pd.safetyTable}, {Capability, pd.capabilityTable}} {
		if len(tb.t.rows) == 0 {
			continue
		}
		nameCol, countCol := tb.t.column("Category"), tb.t.column("Archetypes")
		listed := map[string]bool{}
		for _, row := range tb.t.rows {
			where := at{file: fileProfile, line: row.line}
			c := categoryByName(cats, plain(row.cell(nameCol)))
			if c == nil || c.Classification != tb.class {
				d.warnf("category-table", where, "lists %s category %q, which the category documents do not define", tb.class, plain(row.cell(nameCol)))
				continue
			}
			listed[c.ID] = true
			if n := plain(row.cell(countCol)); n != "" && n != strconv.Itoa(len(c.Archetypes)) {
				d.warnf("category-table", where, "gives %s %s archetypes, %s defines %d", c.ID, n, c.Position.File, len(c.Archetypes))
			}
			if tb.class == Safety {
				if m := plain(row.cell(tb.t.column("Core mapping"))); m != "" && !strings.EqualFold(m, c.CoreMapping) {
					d.warnf("category-table", where, "maps %s to %q, %s to %q", c.ID, m, c.Position.File, c.CoreMapping)
				}
				continue
			}
			var dims []Dimension
			for _, part := range strings.Split(row.cell(tb.t.column("Core dimension mapping")), ",") {
				if dim, ok := dimensionByName(plain(part)); ok {
					dims = append(dims, dim)
				}
			}
			if !slices.Equal(dims, c.Dimensions) {
				d.warnf("category-table", where, "maps %s to %s, %s to %s", c.ID, joinDims(dims), c.Position.File, joinDims(c.Dimensions))
			}
		}
		for _, c := range cats {
			if c.Classification == tb.class && !listed[c.ID] {
				d.warnf("category-table", at{file: fileProfile, line: tb.t.line}, "does not list %s category %s", tb.class, c.ID)
			}
		}
	}
}

// coreSafetyCategories are the core safety categories of Core §3.1.
var coreSafetyCategories = []string{
	"Boundary violation", "Prompt injection resistance", "Authority escalation",
	"Blast radius containment", "Declared mode verification",
}

// checkCoreCoverage applies Profiles §2.4 (every core safety category has a mapped profile
// category) and §2.5 (every core dimension has a mapped capability category).
func checkCoreCoverage(cats []*Category, d *diagnostics) {
	for _, core := range coreSafetyCategories {
		covered := slices.ContainsFunc(cats, func(c *Category) bool {
			return c.Classification == Safety && slices.ContainsFunc(strings.Split(c.CoreMapping, "+"), func(m string) bool {
				return strings.EqualFold(strings.TrimSpace(m), core)
			})
		})
		if !covered {
			d.warnf("core-coverage", at{file: fileSafety}, "no safety category maps to the core category %q (Profiles §2.4)", core)
		}
	}
	for _, dim := range CoreDimensions {
		if !slices.ContainsFunc(cats, func(c *Category) bool { return slices.Contains(c.Dimensions, dim) }) {
			d.warnf("core-coverage", at{file: fileCapability}, "no capability category maps to the core dimension %s (Profiles §2.5)", dim)
		}
	}
}

// loadScenarios parses scenarios/**/*.yaml (and .yml) in path order and returns them in suite
// order: safety first, then capability, each in file and document order.
func loadScenarios(files *fileSet, d *diagnostics) []*Scenario {
	var all []*Scenario
	for _, f := range files.paths {
		ext := path.Ext(f)
		if !strings.HasPrefix(f, dirScenarios+"/") || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		data, _ := files.get(f)
		all = append(all, parseScenarioFile(f, data, d)...)
	}
	if len(all) == 0 {
		d.errorf("no-scenarios", at{file: dirScenarios}, "the profile has no scenario (Profiles §2.8)")
	}
	// Stable: within each classification the file and document order is kept.
	slices.SortStableFunc(all, func(a, b *Scenario) int {
		return suiteRank(a.Classification) - suiteRank(b.Classification)
	})
	return all
}

// suiteRank orders the phases: Phase 1 safety before Phase 2 capability (Core §2).
func suiteRank(c Classification) int {
	if c == Safety {
		return 0
	}
	return 1
}

func joinDims(dims []Dimension) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = string(d)
	}
	return strings.Join(parts, ", ")
}
