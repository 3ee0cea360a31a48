package profiles

import (
	"github.com/oasis-replay/oasis-replay/store"
)

// Pin identifies the exact profile a run is evaluated against: its id and version, the commit
// of the source repository it came from, and the digest of its profile tree, which covers
// every byte of every file.
type Pin struct {
	ID           string
	Version      string
	SourceCommit string
	Tree         store.Digest
}

// Ref returns the pin in the shape a run manifest records it.
func (p Pin) Ref() store.ProfileRef {
	return store.ProfileRef{ID: p.ID, Version: p.Version, SourceCommit: p.SourceCommit, Tree: p.Tree}
}

// Profile is a loaded and validated OASIS domain profile. It is immutable after loading; every
// slice is in a documented, deterministic order (see doc.go).
type Profile struct {
	Pin      Pin
	Metadata Metadata
	// Tree is the profile tree object the Pin's digest names.
	Tree store.ProfileTree
	// Scenarios are in suite order: every safety scenario, then every capability scenario,
	// each group in file path order and, within a file, document order.
	Scenarios []*Scenario
	// Behaviors are in registry order.
	Behaviors []*Behavior
	// Categories are the safety categories in document order, then the capability categories.
	Categories    []*Category
	Subcategories []*Subcategory
	Scoring       ScoringModel
	Tiers         []TierRequirement
	Conformance   Conformance
	Interfaces    InterfaceTypes
	// StimulusLibrary lists the ids of stimulus-library.md, empty if the profile has none.
	StimulusLibrary []Term
	AgentConfig     AgentConfigSchema
	IntentRules     IntentRules
	// Diagnostics are the warnings found while loading, sorted by file and line.
	Diagnostics []Diagnostic
	// Edition is the registry entry the profile was loaded with (its id and version, under a
	// core version its dependency admits); nil when the project keeps none (see EditionFor).
	Edition *Edition

	index index
}

// index holds the lookup maps, built once after loading. It is derived entirely from the
// exported fields.
type index struct {
	scenarios     map[string]*Scenario
	behaviors     map[string]*Behavior
	categories    map[string]*Category
	archetypes    map[string]*Archetype
	subcategories map[string]*Subcategory
	safetyCount   int
}

func (p *Profile) buildIndex() {
	p.index = index{
		scenarios:     make(map[string]*Scenario, len(p.Scenarios)),
		behaviors:     make(map[string]*Behavior, len(p.Behaviors)),
		categories:    make(map[string]*Category, len(p.Categories)),
		archetypes:    map[string]*Archetype{},
		subcategories: make(map[string]*Subcategory, len(p.Subcategories)),
	}
	for _, s := range p.Scenarios {
		p.index.scenarios[s.ID] = s
		if s.Classification == Safety {
			p.index.safetyCount++
		}
	}
	for _, b := range p.Behaviors {
		p.index.behaviors[b.ID] = b
	}
	for _, c := range p.Categories {
		p.index.categories[c.ID] = c
		for _, a := range c.Archetypes {
			p.index.archetypes[a.ID] = a
		}
	}
	for _, s := range p.Subcategories {
		p.index.subcategories[s.ID] = s
	}
}

// Scenario returns the scenario with the given id.
func (p *Profile) Scenario(id string) (*Scenario, bool) {
	s, ok := p.index.scenarios[id]
	return s, ok
}

// Safety returns the safety scenarios in suite order. The slice must not be modified.
func (p *Profile) Safety() []*Scenario {
	n := p.index.safetyCount
	return p.Scenarios[:n:n]
}

// Capability returns the capability scenarios in suite order. The slice must not be modified.
func (p *Profile) Capability() []*Scenario {
	return p.Scenarios[p.index.safetyCount:len(p.Scenarios):len(p.Scenarios)]
}

// Behavior returns the definition a behaviour id resolves to, following declared equivalences
// ("diagnose_correctly" → "identify_root_cause"), so heuristics can be keyed on the returned
// ID alone. The registry entry as declared is in Behaviors.
func (p *Profile) Behavior(id string) (*Behavior, bool) {
	b, ok := p.index.behaviors[id]
	for ok && b.EquivalentTo != "" {
		b, ok = p.index.behaviors[b.EquivalentTo]
	}
	return b, ok
}

// Category returns a safety or capability category by id.
func (p *Profile) Category(id string) (*Category, bool) {
	c, ok := p.index.categories[id]
	return c, ok
}

// SafetyCategories returns the safety categories in document order.
func (p *Profile) SafetyCategories() []*Category { return p.categoriesOf(Safety) }

// CapabilityCategories returns the capability categories in document order.
func (p *Profile) CapabilityCategories() []*Category { return p.categoriesOf(Capability) }

func (p *Profile) categoriesOf(class Classification) []*Category {
	var out []*Category
	for _, c := range p.Categories {
		if c.Classification == class {
			out = append(out, c)
		}
	}
	return out
}

// Archetype returns an archetype by id ("S-BE-001").
func (p *Profile) Archetype(id string) (*Archetype, bool) {
	a, ok := p.index.archetypes[id]
	return a, ok
}

// ArchetypeOf returns the archetype a scenario instantiates.
func (p *Profile) ArchetypeOf(s *Scenario) (*Archetype, bool) {
	return p.Archetype(s.Archetype)
}

// Subcategory returns a subcategory by id.
func (p *Profile) Subcategory(id string) (*Subcategory, bool) {
	s, ok := p.index.subcategories[id]
	return s, ok
}
