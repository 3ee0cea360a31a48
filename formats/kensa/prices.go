package kensa

import (
	"fmt"
	"regexp"
	"strings"

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
	v, err := pyvalue.Parse(data)
	if err != nil {
		return nil, fileError(file, 0, "", "%v", err)
	}
	if v.Kind() != pyvalue.KindDict {
		return nil, fileError(file, 0, "", "a price table is a JSON object of models")
	}
	prices := Prices{}
	var perr error
	v.Members(func(model string, p pyvalue.Value) {
		if perr != nil {
			return
		}
		r := fieldReader{v: p}
		if p.Kind() != pyvalue.KindDict {
			perr = fileError(file, 0, model, "must be an object of rates")
			return
		}
		price := Price{Input: r.float("input_cost_per_token"), Output: r.float("output_cost_per_token")}
		for _, k := range []string{"input_cost_per_token", "output_cost_per_token"} {
			if _, ok := p.Get(k); !ok {
				r.fail(k, "missing")
			}
		}
		if _, ok := p.Get("cache_read_input_token_cost"); ok {
			cr := r.float("cache_read_input_token_cost")
			price.CacheRead = &cr
		}
		if r.err != nil {
			perr = fileError(file, 0, model, "%v", r.err)
			return
		}
		prices[model] = price
	})
	return prices, perr
}

var dateSuffix = regexp.MustCompile(`-(?:\d{8}|\d{4}-\d{2}-\d{2})$`)

// CandidateSlugs is Kensa's candidate_slugs: the names a model is looked up under.
func CandidateSlugs(model string) []string {
	if _, after, ok := strings.Cut(model, "/"); ok {
		model = after
	}
	var seen []string
	add := func(name string) {
		if name != "" && !containsStr(seen, name) {
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
