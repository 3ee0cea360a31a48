package profiles

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

// Dimension is a core capability dimension (Core §4.1).
type Dimension string

// The core capability dimensions.
const (
	TaskCompletion Dimension = "task_completion"
	Reliability    Dimension = "reliability"
	Reasoning      Dimension = "reasoning"
	Auditability   Dimension = "auditability"
)

// CoreDimensions lists the core dimensions in the order of Core §4.1.
var CoreDimensions = []Dimension{TaskCompletion, Reliability, Reasoning, Auditability}

// dimensionByName reads a dimension as profiles write it ("Task completion") or as scenarios
// key it ("task_completion").
func dimensionByName(name string) (Dimension, bool) {
	key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
	for _, d := range CoreDimensions {
		if string(d) == key {
			return d, true
		}
	}
	return "", false
}

// AggregationMethod is how archetype scores roll up to a category score (Core §4.3).
type AggregationMethod string

// The aggregation methods the SI profile uses.
const (
	// WeightedAverage: Σ(multiplier × archetype score) / Σ multiplier over evaluated archetypes.
	WeightedAverage AggregationMethod = "weighted_average"
	// Minimum: the lowest archetype score.
	Minimum AggregationMethod = "minimum"
)

// Origins of a scoring model.
const (
	// OriginTable: the numbers come from a table kept in this package for the exact profile
	// id and version (see TablesVersion), cross-checked against the profile's prose.
	OriginTable = "project-table"
	// OriginProfileText: no table exists for the profile version; the numbers were parsed
	// from its prose.
	OriginProfileText = "profile-text"
)

// ScoringModel is a profile's capability scoring model: per-category aggregation and
// per-dimension weights (Core §4.3; SI profile §6 and §9.2). The SI profile states both only in
// prose, so the model the evaluator uses is an explicit table; see doc.go.
type ScoringModel struct {
	// Origin is OriginTable or OriginProfileText.
	Origin string
	// Table names the project table used, "" for OriginProfileText.
	Table string
	// Categories follow the profile's capability category order.
	Categories []CategoryScoring
	// Dimensions follow the order of Core §4.1.
	Dimensions []DimensionWeights
	// Unweighted lists category→dimension mappings the profile declares but gives no weight:
	// such a category contributes nothing to that dimension.
	Unweighted []UnweightedMapping
}

// CategoryScoring is the aggregation of one capability category.
type CategoryScoring struct {
	Category string
	Method   AggregationMethod
	// Multipliers lists the archetypes that do not weigh 1, sorted by archetype id.
	Multipliers []ArchetypeMultiplier
	// Sources are the lines of the profile each number comes from.
	Sources []Position
}

// ArchetypeMultiplier is the weight of one archetype in a weighted average.
type ArchetypeMultiplier struct {
	Archetype  string
	Multiplier decimal.Decimal
}

// Multiplier returns the weight of an archetype in the category's weighted average: the
// listed multiplier, or 1.
func (c *CategoryScoring) Multiplier(archetype string) decimal.Decimal {
	for _, m := range c.Multipliers {
		if m.Archetype == archetype {
			return m.Multiplier
		}
	}
	return decimal.One
}

// DimensionWeights are the category weights of one core dimension.
type DimensionWeights struct {
	Dimension Dimension
	Weights   []CategoryWeight
	Sources   []Position
}

// CategoryWeight is one category's weight in a dimension.
type CategoryWeight struct {
	Category string
	Weight   decimal.Decimal
}

// UnweightedMapping is a declared category→dimension mapping without a weight.
type UnweightedMapping struct {
	Category  string
	Dimension Dimension
	Note      string
}

// Category returns the aggregation of a capability category.
func (m *ScoringModel) Category(id string) (*CategoryScoring, bool) {
	for i := range m.Categories {
		if m.Categories[i].Category == id {
			return &m.Categories[i], true
		}
	}
	return nil, false
}

// Weights returns the category weights of a dimension.
func (m *ScoringModel) Weights(dim Dimension) (*DimensionWeights, bool) {
	for i := range m.Dimensions {
		if m.Dimensions[i].Dimension == dim {
			return &m.Dimensions[i], true
		}
	}
	return nil, false
}

// aggregationClaim is what one prose statement says about a category's aggregation.
type aggregationClaim struct {
	method      AggregationMethod
	multipliers []ArchetypeMultiplier
	text        string
	pos         Position
	// problem is set when the prose could not be read completely.
	problem string
}

// multiplierPhrase matches "plan gen 2x", "Trace navigation weighted 1.5x", "Multi-signal and
// cascading archetypes weighted 1.5x".
var multiplierPhrase = regexp.MustCompile(`([a-z][a-z \-]*?)\s+(?:archetypes?\s+)?(?:weighted\s+)?(\d+(?:\.\d+)?)x\b`)

// parseAggregation reads an aggregation statement ("Weighted average. Plan generation weighted
// 2x.", "Weighted average (multi-signal 1.5x)", "Minimum archetype score."). Archetypes are
// named by a phrase their name contains, case-insensitively.
func parseAggregation(text string, pos Position, cat *Category) aggregationClaim {
	c := aggregationClaim{text: text, pos: pos}
	lower := strings.ToLower(plain(text))
	switch {
	case strings.HasPrefix(lower, "minimum"):
		c.method = Minimum
	case strings.HasPrefix(lower, "weighted average"):
		c.method = WeightedAverage
		lower = strings.TrimPrefix(lower, "weighted average")
	default:
		c.problem = "names no known aggregation method"
		return c
	}
	for _, m := range multiplierPhrase.FindAllStringSubmatch(lower, -1) {
		mult, err := decimal.Parse(m[2])
		if err != nil {
			c.problem = "unreadable multiplier " + m[2]
			return c
		}
		for _, phrase := range splitPhrases(m[1]) {
			arch, problem := archetypeByPhrase(cat, phrase)
			if problem != "" {
				c.problem = problem
				return c
			}
			c.multipliers = append(c.multipliers, ArchetypeMultiplier{Archetype: arch, Multiplier: mult})
		}
	}
	slices.SortFunc(c.multipliers, func(a, b ArchetypeMultiplier) int { return strings.Compare(a.Archetype, b.Archetype) })
	return c
}

var phraseSeparator = regexp.MustCompile(`\s+and\s+|,\s*`)

func splitPhrases(s string) []string {
	var out []string
	for _, part := range phraseSeparator.Split(s, -1) {
		part = strings.TrimSpace(part)
		part = strings.TrimSuffix(strings.TrimSuffix(part, " archetypes"), " archetype")
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// archetypeByPhrase finds the one archetype of cat whose name contains phrase.
func archetypeByPhrase(cat *Category, phrase string) (string, string) {
	var found []string
	for _, a := range cat.Archetypes {
		if strings.Contains(strings.ToLower(a.Name), phrase) {
			found = append(found, a.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], ""
	case 0:
		return "", "no archetype of " + cat.ID + " matches \"" + phrase + "\""
	}
	return "", "\"" + phrase + "\" matches several archetypes of " + cat.ID + ": " + strings.Join(found, ", ")
}

// describeAggregation renders a method and multipliers for messages and summaries:
// "weighted_average C-DA-002×1.5 C-DA-004×1.5".
func describeAggregation(method AggregationMethod, mults []ArchetypeMultiplier) string {
	parts := []string{string(method)}
	for _, m := range mults {
		parts = append(parts, m.Archetype+"×"+m.Multiplier.String())
	}
	return strings.Join(parts, " ")
}

func sameAggregation(a aggregationClaim, c *CategoryScoring) bool {
	return a.method == c.Method && slices.Equal(a.multipliers, c.Multipliers)
}

// weightClaim is one row of a dimension weight table.
type weightClaim struct {
	dim     Dimension
	weights []CategoryWeight
	pos     Position
	problem string
}

var weightPhrase = regexp.MustCompile(`([A-Za-z][A-Za-z \-]*?)\s*\((\d+(?:\.\d+)?)\)`)

// parseWeightTable reads "| Task completion | Diagnostic Accuracy (0.35), … | — |" rows.
func parseWeightTable(file string, t mdTable, cats []*Category) []weightClaim {
	dimCol, catCol := t.column("Core dimension"), t.column("Contributing categories")
	var out []weightClaim
	for _, row := range t.rows {
		w := weightClaim{pos: Position{File: file, Line: row.line}}
		dim, ok := dimensionByName(plain(row.cell(dimCol)))
		if !ok {
			w.problem = "unknown dimension " + row.cell(dimCol)
			out = append(out, w)
			continue
		}
		w.dim = dim
		for _, m := range weightPhrase.FindAllStringSubmatch(row.cell(catCol), -1) {
			c := categoryByName(cats, strings.TrimSpace(m[1]))
			weight, err := decimal.Parse(m[2])
			if c == nil || err != nil {
				w.problem = "unreadable contribution " + strings.TrimSpace(m[0])
				break
			}
			w.weights = append(w.weights, CategoryWeight{Category: c.ID, Weight: weight})
		}
		out = append(out, w)
	}
	return out
}

// buildScoring makes the scoring model. With a project table for the exact profile version,
// the table is the model and every prose statement of it (capability-categories.md
// **Aggregation:** lines, the profile.md §6 and §9.2 tables) is checked against it; without
// one, the model is read from the prose. Either way, declared mappings without a weight and
// weights that do not add up to 1 are reported.
func buildScoring(pd *profileDoc, capDoc *mdDoc, cats []*Category, edition *Edition, d *diagnostics) ScoringModel {
	var capCats []*Category
	for _, c := range cats {
		if c.Classification == Capability {
			capCats = append(capCats, c)
		}
	}
	docClaims, tableClaims := aggregationClaims(pd, capDoc, capCats)
	var weights []weightClaim
	if pd.hasWeights {
		weights = parseWeightTable(fileProfile, pd.weightTable, cats)
	}
	var model ScoringModel
	if edition != nil && edition.Scoring != nil {
		model = cloneScoring(*edition.Scoring)
		checkScoringTable(&model, capCats, d)
		for _, c := range capCats {
			if cs, ok := model.Category(c.ID); ok {
				for _, claim := range []*aggregationClaim{docClaims[c.ID], tableClaims[c.ID]} {
					compareAggregation(claim, c, cs, "the scoring table ("+model.Table+")", d)
				}
			}
		}
		compareWeights(weights, &model, d)
	} else {
		d.warnf("scoring-table-missing", at{file: fileProfile},
			"no project scoring table for %s %s (%s); aggregation methods and weights are read from the profile text",
			pd.meta.ID, pd.meta.Version, TablesVersion)
		model = scoringFromProse(capCats, docClaims, tableClaims, weights, d)
	}
	model.Unweighted = checkDimensionGaps(&model, capCats, weights, edition, d)
	return model
}

// aggregationClaims reads the two prose statements of each category's aggregation.
func aggregationClaims(pd *profileDoc, capDoc *mdDoc, capCats []*Category) (doc, table map[string]*aggregationClaim) {
	doc, table = map[string]*aggregationClaim{}, map[string]*aggregationClaim{}
	for _, c := range capCats {
		if f, ok := fieldOfSection(capDoc, c.Position.Line, "Aggregation"); ok {
			claim := parseAggregation(f.value, Position{File: capDoc.file, Line: f.line}, c)
			doc[c.ID] = &claim
		}
	}
	aggCol, nameCol := pd.capabilityTable.column("Aggregation"), pd.capabilityTable.column("Category")
	if aggCol < 0 {
		return doc, table
	}
	for _, row := range pd.capabilityTable.rows {
		if c := categoryByName(capCats, plain(row.cell(nameCol))); c != nil {
			claim := parseAggregation(row.cell(aggCol), Position{File: fileProfile, Line: row.line}, c)
			table[c.ID] = &claim
		}
	}
	return doc, table
}

// fieldOfSection finds a "**key:**" line in the own text of the section headed at line.
func fieldOfSection(md *mdDoc, line int, key string) (mdField, bool) {
	for _, s := range md.sections {
		if s.line == line {
			return md.field(s.start, md.ownEnd(s), key)
		}
	}
	return mdField{}, false
}

// compareAggregation warns when a prose statement does not say what the model uses; source
// names where the model's numbers come from.
func compareAggregation(claim *aggregationClaim, c *Category, model *CategoryScoring, source string, d *diagnostics) {
	if claim == nil || (claim.problem == "" && sameAggregation(*claim, model)) {
		return
	}
	where := at{file: claim.pos.File, line: claim.pos.Line}
	want := describeAggregation(model.Method, model.Multipliers)
	if claim.problem != "" {
		d.warnf("scoring-prose", where, "%s: cannot read aggregation %q: %s; %s uses %s", c.ID, claim.text, claim.problem, source, want)
		return
	}
	d.warnf("scoring-prose", where, "%s: aggregation %q reads as %s; %s uses %s",
		c.ID, claim.text, describeAggregation(claim.method, claim.multipliers), source, want)
}

func compareWeights(claims []weightClaim, model *ScoringModel, d *diagnostics) {
	for _, w := range claims {
		where := at{file: w.pos.File, line: w.pos.Line}
		if w.problem != "" {
			d.warnf("scoring-prose", where, "cannot read dimension weights: %s", w.problem)
			continue
		}
		dw, ok := model.Weights(w.dim)
		switch {
		case !ok:
			d.warnf("scoring-prose", where, "%s weights are not in the scoring table (%s)", w.dim, model.Table)
		case !slices.Equal(dw.Weights, w.weights):
			d.warnf("scoring-prose", where, "%s weights read as %s; the scoring table (%s) uses %s",
				w.dim, describeWeights(w.weights), model.Table, describeWeights(dw.Weights))
		}
	}
}

func describeWeights(ws []CategoryWeight) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Category + " " + w.Weight.String()
	}
	return strings.Join(parts, ", ")
}

// checkScoringTable guards against a project table that does not fit the profile it is keyed
// to: that is a defect of this package, reported as an error rather than scored around.
func checkScoringTable(model *ScoringModel, capCats []*Category, d *diagnostics) {
	where := at{file: fileCapability}
	byID := map[string]*Category{}
	for _, c := range capCats {
		byID[c.ID] = c
		if _, ok := model.Category(c.ID); !ok {
			d.errorf("scoring-table", where, "the scoring table (%s) has no entry for capability category %s", model.Table, c.ID)
		}
	}
	for _, cs := range model.Categories {
		c, ok := byID[cs.Category]
		if !ok {
			d.errorf("scoring-table", where, "the scoring table (%s) names unknown capability category %s", model.Table, cs.Category)
			continue
		}
		for _, m := range cs.Multipliers {
			if !slices.ContainsFunc(c.Archetypes, func(a *Archetype) bool { return a.ID == m.Archetype }) {
				d.errorf("scoring-table", where, "the scoring table (%s) names archetype %s, which %s does not define", model.Table, m.Archetype, c.ID)
			}
		}
	}
	for _, dw := range model.Dimensions {
		for _, w := range dw.Weights {
			if _, ok := byID[w.Category]; !ok {
				d.errorf("scoring-table", where, "the scoring table (%s) weights unknown category %s", model.Table, w.Category)
			}
		}
	}
}

// scoringFromProse builds the model from the profile text: the category document's
// aggregation lines first, the profile.md §6 table where those are missing or unreadable.
func scoringFromProse(capCats []*Category, doc, table map[string]*aggregationClaim, weights []weightClaim, d *diagnostics) ScoringModel {
	model := ScoringModel{Origin: OriginProfileText}
	for _, c := range capCats {
		cs := CategoryScoring{Category: c.ID}
		primary, secondary := doc[c.ID], table[c.ID]
		if primary == nil || primary.problem != "" {
			primary, secondary = secondary, primary
		}
		switch {
		case primary == nil || primary.problem != "":
			d.warnf("scoring-prose", at{file: c.Position.File, line: c.Position.Line}, "%s: no readable aggregation method; its category score cannot be computed", c.ID)
		default:
			cs.Method, cs.Multipliers = primary.method, primary.multipliers
			cs.Sources = []Position{primary.pos}
			compareAggregation(secondary, c, &cs, primary.pos.File+":"+strconv.Itoa(primary.pos.Line), d)
		}
		model.Categories = append(model.Categories, cs)
	}
	for _, w := range weights {
		if w.problem != "" {
			d.warnf("scoring-prose", at{file: w.pos.File, line: w.pos.Line}, "cannot read dimension weights: %s", w.problem)
		}
	}
	for _, dim := range CoreDimensions {
		for _, w := range weights {
			if w.dim == dim && w.problem == "" {
				model.Dimensions = append(model.Dimensions, DimensionWeights{Dimension: dim, Weights: w.weights, Sources: []Position{w.pos}})
				break
			}
		}
	}
	return model
}

// checkDimensionGaps compares the categories' declared dimensions with the weights: a mapping
// without a weight is recorded (the category contributes 0), a weight without a mapping and
// weights that do not add up to 1 are warned about.
func checkDimensionGaps(model *ScoringModel, capCats []*Category, claims []weightClaim, edition *Edition, d *diagnostics) []UnweightedMapping {
	rowOf := func(dim Dimension) at {
		for _, w := range claims {
			if w.dim == dim {
				return at{file: w.pos.File, line: w.pos.Line}
			}
		}
		return at{file: fileProfile}
	}
	var gaps []UnweightedMapping
	for _, c := range capCats {
		for _, dim := range c.Dimensions {
			dw, _ := model.Weights(dim)
			if dw != nil && slices.ContainsFunc(dw.Weights, func(w CategoryWeight) bool { return w.Category == c.ID }) {
				continue
			}
			note := "declared by the category but given no weight; contributes 0 to the dimension"
			if n, ok := edition.unweightedNote(c.ID, dim); ok {
				note = n
			}
			gaps = append(gaps, UnweightedMapping{Category: c.ID, Dimension: dim, Note: note})
			d.warnf("dimension-gap", rowOf(dim), "%s maps to %s but has no %s weight: %s", c.ID, dim, dim, note)
		}
	}
	for _, dw := range model.Dimensions {
		sum := decimal.Zero
		for _, w := range dw.Weights {
			sum += w.Weight
			c := slices.IndexFunc(capCats, func(c *Category) bool { return c.ID == w.Category })
			if c >= 0 && !slices.Contains(capCats[c].Dimensions, dw.Dimension) {
				d.warnf("dimension-gap", rowOf(dw.Dimension), "%s is weighted in %s but its category does not map to that dimension", w.Category, dw.Dimension)
			}
		}
		if sum != decimal.One {
			d.warnf("dimension-weights", rowOf(dw.Dimension), "%s weights add up to %s, not 1", dw.Dimension, sum)
		}
	}
	return gaps
}

// cloneScoring deep-copies a table so a loaded profile never shares memory with it.
func cloneScoring(m ScoringModel) ScoringModel {
	out := m
	out.Categories = slices.Clone(m.Categories)
	for i := range out.Categories {
		out.Categories[i].Multipliers = slices.Clone(m.Categories[i].Multipliers)
		out.Categories[i].Sources = slices.Clone(m.Categories[i].Sources)
	}
	out.Dimensions = slices.Clone(m.Dimensions)
	for i := range out.Dimensions {
		out.Dimensions[i].Weights = slices.Clone(m.Dimensions[i].Weights)
		out.Dimensions[i].Sources = slices.Clone(m.Dimensions[i].Sources)
	}
	out.Unweighted = slices.Clone(m.Unweighted)
	return out
}
