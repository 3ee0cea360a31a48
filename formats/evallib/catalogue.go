package evallib

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// builtinCatalogue is the catalogue compiled into the binary.
//
//go:embed variations.yaml
var builtinCatalogue []byte

// BuiltinName is how the built-in catalogue is named in errors and listings.
const BuiltinName = "built-in variations.yaml"

// Injection kinds of a variation.
const (
	KindText          = "text"
	KindNoise         = "noise"
	KindContradiction = "contradiction"
)

// MaxNoiseFactor bounds the factor of a noise injection.
const MaxNoiseFactor = 100

// CatalogueLimits bound a catalogue document.
var CatalogueLimits = doc.Limits{MaxBytes: 4 << 20, MaxDepth: 16}

// Variation is one entry of the catalogue: a cognitive pressure injected into the system
// prompt.
type Variation struct {
	ID    string
	Name  string
	Tests string
	// Kind is KindText, KindNoise or KindContradiction; Text is the text (for noise and
	// contradiction, the line before what is generated); Factor is the size of the noise as a
	// multiple of the input's size.
	Kind   string
	Text   string
	Factor int
	// Origin is the catalogue the entry came from: BuiltinName or a file name.
	Origin string
	// Canonical is the entry as canonical JSON: what a run pins, by its digest.
	Canonical []byte
}

// Digest is the digest of the entry's canonical JSON.
func (v *Variation) Digest() store.Digest { return store.Sum(v.Canonical) }

// Ref names the variation for run manifests.
func (v *Variation) Ref() store.EvalVariationRef {
	return store.EvalVariationRef{ID: v.ID, Digest: v.Digest()}
}

// Catalogue is the list of variations a matrix may use, in catalogue order.
type Catalogue struct {
	list []*Variation
}

type catalogueFile struct {
	Variations []entryFields `json:"variations" doc:"required"`
}

type entryFields struct {
	ID        string          `json:"id" doc:"required"`
	Name      string          `json:"name" doc:"required"`
	Tests     string          `json:"tests"`
	Injection injectionFields `json:"injection" doc:"required"`
}

type injectionFields struct {
	Kind   string `json:"kind" doc:"required"`
	Text   string `json:"text"`
	Factor int    `json:"factor"`
}

// Builtin returns the built-in catalogue: the seven variations of the description. Each call
// returns a catalogue of its own, which Extend may change.
func Builtin() *Catalogue {
	builtinOnce.Do(func() {
		c, err := ParseCatalogue(BuiltinName, builtinCatalogue)
		if err != nil {
			panic("evallib: the built-in catalogue does not load: " + err.Error()) // a defect, tested
		}
		builtin = c.list
	})
	return &Catalogue{list: slices.Clone(builtin)}
}

var (
	builtinOnce sync.Once
	builtin     []*Variation
)

// Extend adds the variations of a catalogue document to c: an entry whose id is already in
// the catalogue replaces it in place, a new id is added at the end.
func (c *Catalogue) Extend(name string, data []byte) error {
	extra, err := ParseCatalogue(name, data)
	if err != nil {
		return err
	}
	c.merge(extra)
	return nil
}

// ParseCatalogue reads one catalogue document.
func ParseCatalogue(name string, data []byte) (*Catalogue, error) {
	root, err := ParseDocument(name, data, CatalogueLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCatalogue, err)
	}
	var f catalogueFile
	if err := doc.Decode(root, &f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCatalogue, err)
	}
	items := root.Get("variations").Items()
	c := &Catalogue{}
	seen := map[string]bool{}
	var errs []error
	for i, e := range f.Variations {
		n := items[i]
		v, err := e.variation(n, name)
		if err == nil && seen[v.ID] {
			err = n.Get("id").Errorf("variation %q is listed twice", v.ID)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrCatalogue, err))
			continue
		}
		seen[v.ID] = true
		c.list = append(c.list, v)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

func (e entryFields) variation(n *doc.Node, origin string) (*Variation, error) {
	v := &Variation{ID: e.ID, Name: strings.TrimSpace(e.Name), Tests: e.Tests, Kind: e.Injection.Kind,
		Text: e.Injection.Text, Factor: e.Injection.Factor, Origin: origin}
	if err := store.ValidEvalID(v.ID); err != nil {
		return nil, n.Get("id").Errorf("%v", err)
	}
	if v.ID == store.EvalBaseline {
		return nil, n.Get("id").Errorf("id %q is reserved for runs without a variation", v.ID)
	}
	if v.Name == "" {
		return nil, n.Get("name").Errorf("name must not be empty")
	}
	inj := n.Get("injection")
	switch v.Kind {
	case KindText:
		if strings.TrimSpace(v.Text) == "" {
			return nil, inj.Errorf("a text injection needs a text")
		}
		if inj.Get("factor") != nil {
			return nil, inj.Get("factor").Errorf("factor applies to noise injections only")
		}
	case KindNoise:
		if v.Factor < 1 || v.Factor > MaxNoiseFactor {
			return nil, inj.Errorf("a noise injection needs a factor from 1 to %d, got %d", MaxNoiseFactor, v.Factor)
		}
	case KindContradiction:
		if inj.Get("factor") != nil {
			return nil, inj.Get("factor").Errorf("factor applies to noise injections only")
		}
	default:
		return nil, inj.Get("kind").Errorf("unknown injection kind %q: want %s, %s or %s", v.Kind, KindText, KindNoise, KindContradiction)
	}
	v.Canonical = v.encode()
	return v, nil
}

// encode writes the entry as canonical JSON (ASCII names in sorted order).
func (v *Variation) encode() []byte {
	b := []byte(`{"id":`)
	b = doc.AppendString(b, v.ID)
	b = append(b, `,"injection":{`...)
	if v.Kind == KindNoise {
		b = fmt.Appendf(b, `"factor":%d,`, v.Factor)
	}
	b = append(b, `"kind":`...)
	b = doc.AppendString(b, v.Kind)
	b = append(b, `,"text":`...)
	b = doc.AppendString(b, v.Text)
	b = append(b, `},"name":`...)
	b = doc.AppendString(b, v.Name)
	b = append(b, `,"tests":`...)
	b = doc.AppendString(b, v.Tests)
	return append(b, '}')
}

func (c *Catalogue) merge(extra *Catalogue) {
	for _, v := range extra.list {
		replaced := false
		for i, old := range c.list {
			if old.ID == v.ID {
				c.list[i], replaced = v, true
				break
			}
		}
		if !replaced {
			c.list = append(c.list, v)
		}
	}
}

// All returns the variations in catalogue order.
func (c *Catalogue) All() []*Variation { return c.list }

// Lookup returns the variation with id, or ErrUnknownVariation listing the known ids.
func (c *Catalogue) Lookup(id string) (*Variation, error) {
	for _, v := range c.list {
		if v.ID == id {
			return v, nil
		}
	}
	ids := make([]string, len(c.list))
	for i, v := range c.list {
		ids[i] = v.ID
	}
	return nil, fmt.Errorf("%w %q (the catalogue has %s)", ErrUnknownVariation, id, strings.Join(ids, ", "))
}
