package kensa

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Prices is a price table in the shape Kensa builds from OpenRouter (pricing.py): model slug →
// per-token USD rates. Kensa fetches it over the network when it converts spans; oasis-replay
// reads it from a file and pins it in the bundle, so a recorded cost needs nothing else.
type Prices map[string]Price

// Price is the per-token rates of one model. CacheRead is nil when the model has no cached
// input rate (the input rate applies).
type Price struct {
	Input, Output float64
	CacheRead     *float64
}

// ParsePrices reads a price table: {"model": {"input_cost_per_token": …,
// "output_cost_per_token": …, "cache_read_input_token_cost": …}}.
func ParsePrices(file string, data []byte) (Prices, error) {
	root, err := doc.ParseJSON(file, data, doc.Limits{})
	if err != nil {
		return nil, err
	}
	if root.Kind() != doc.Object {
		return nil, invalid(root, "a price table is a JSON object of models, got %s", root.Kind().Article())
	}
	rates := []string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost"}
	prices := Prices{}
	for _, m := range root.Members() {
		f, err := newFields(m.Value, "a model's rates", nil, nil)
		if err != nil {
			return nil, err
		}
		price := Price{Input: f.float("input_cost_per_token"), Output: f.float("output_cost_per_token")}
		for _, k := range rates[:2] {
			if !f.has(k) {
				f.fail(nil, k, "missing (required)")
			}
		}
		if f.has("cache_read_input_token_cost") {
			cr := f.float("cache_read_input_token_cost")
			price.CacheRead = &cr
		}
		if f.err != nil {
			return nil, f.err
		}
		prices[m.Key] = price
	}
	return prices, nil
}

var dateSuffix = regexp.MustCompile(`-(?:\d{8}|\d{4}-\d{2}-\d{2})$`)

// CandidateSlugs is Kensa's candidate_slugs: the names a model is looked up under.
func CandidateSlugs(model string) []string {
	if _, after, ok := strings.Cut(model, "/"); ok {
		model = after
	}
	var seen []string
	add := func(name string) {
		if name != "" && !slices.Contains(seen, name) {
			seen = append(seen, name)
		}
	}
	add(model)
	base, suffix := model, ""
	if loc := dateSuffix.FindStringIndex(model); loc != nil {
		base, suffix = model[:loc[0]], model[loc[0]:]
	}
	dotted := dotVersions(base)
	dashed := strings.ReplaceAll(base, ".", "-")
	if suffix != "" {
		add(dotted + suffix)
		add(dashed + suffix)
	}
	add(dotted)
	add(base)
	add(dashed)
	return seen
}

// dotVersions is re.sub(r"(?<!\d)(\d)-(\d{1,2})(?!\d)", r"\1.\2", s), without lookaround.
func dotVersions(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if isDigit(s, i) && !isDigit(s, i-1) && i+2 < len(s) && s[i+1] == '-' && isDigit(s, i+2) {
			n := 1
			if isDigit(s, i+3) {
				n = 2
			}
			if !isDigit(s, i+2+n) {
				b.WriteByte(s[i])
				b.WriteByte('.')
				b.WriteString(s[i+2 : i+2+n])
				i += 2 + n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func isDigit(s string, i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }

// Cost is Kensa's compute_cost: nil without a model, tokens or a price.
func (p Prices) Cost(model *string, tokens *Tokens) *Cost {
	if model == nil || tokens == nil || len(p) == 0 {
		return nil
	}
	for _, slug := range CandidateSlugs(*model) {
		price, ok := p[slug]
		if !ok {
			continue
		}
		cacheRate := price.Input
		if price.CacheRead != nil {
			cacheRate = *price.CacheRead
		}
		nonCached := max(0, tokens.Prompt-tokens.CacheRead)
		input := pyvalue.Mul(float64(nonCached), price.Input) + pyvalue.Mul(float64(tokens.CacheRead), cacheRate)
		output := pyvalue.Mul(float64(tokens.Completion), price.Output)
		return &Cost{Prompt: input, Completion: output, Total: input + output}
	}
	return nil
}

// String names a price table in messages.
func (p Prices) String() string { return fmt.Sprintf("%d model prices", len(p)) }
