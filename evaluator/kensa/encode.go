package kensa

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// This file writes a Verdict's canonical bytes directly, member by member in canonical order,
// in one pass: the bytes store.Marshal gives (encoding/json, then the document model's
// canonical form, three passes and a tree), which were a sixth of what re-deriving a recorded
// run cost. What the canonical form may refuse (an integer beyond ±(2^53-1), nesting deeper
// than its limit, a verdict near its sizes, a value of a type Canonical does not make) is left
// to store.Marshal, whose bytes or error it then is. TestEncodeVerdictIsMarshal and
// FuzzEvaluate hold the two equal.

// Bounds within which the direct encoder writes (store.Marshal's maxSafeInteger and
// canonicalLimits.MaxDepth; a verdict of more than directBytes, far below the canonical form's
// size limits, is left to store.Marshal whole).
const (
	maxSafeInteger = 1<<53 - 1
	maxDepth       = 64
	directBytes    = 1 << 20
)

// verdictEncoder appends canonical JSON; ok turns false at the first value it leaves to
// store.Marshal.
type verdictEncoder struct {
	b  []byte
	ok bool
}

// encodeVerdict returns v's canonical bytes and true, or false when store.Marshal must decide.
func encodeVerdict(v *Verdict) ([]byte, bool) {
	e := &verdictEncoder{b: make([]byte, 0, 2048), ok: true}
	e.verdict(v)
	return e.b, e.ok && len(e.b) <= directBytes
}

// Members in canonical order (byte order of the names, all ASCII), with their json tags.
func (e *verdictEncoder) verdict(v *Verdict) {
	e.open('{')
	e.key("case", true).int(int64(v.Case))
	e.key("checks", false)
	if v.Checks == nil {
		e.null()
	} else {
		e.open('[')
		for i := range v.Checks {
			e.comma(i > 0).check(&v.Checks[i])
		}
		e.close(']')
	}
	e.key("error", false).strPtr(v.Error)
	e.key("evaluator", false).evaluator(v.Evaluator)
	if v.Evidence != nil {
		e.key("evidence", false).str(v.Evidence.String())
	}
	e.key("expected", false).strPtr(v.Expected)
	e.key("input", false).any(v.Input, 2)
	e.key("judge", false).judge(v.Judge)
	e.key("kind", false).str(string(v.Kind))
	e.key("metrics", false).strMap(v.Metrics)
	e.key("scenario", false).str(v.Scenario)
	e.key("schema_version", false).int(int64(v.SchemaVersion))
	e.key("status", false).str(v.Status)
	e.key("trace", false).trace(v.Trace)
	e.close('}')
}

func (e *verdictEncoder) evaluator(info store.EvaluatorInfo) {
	e.open('{')
	e.key("name", true).str(info.Name)
	e.key("rules_digest", false).str(info.RulesDigest.String())
	e.key("version", false).str(info.Version)
	e.close('}')
}

func (e *verdictEncoder) check(c *VerdictCheck) {
	e.open('{')
	e.key("detail", true).str(c.Detail)
	e.key("diagnostics", false).any(c.Diagnostics, 4)
	e.key("passed", false).bool(c.Passed)
	e.key("scores", false).strMap(c.Scores)
	e.key("type", false).str(c.Type)
	if c.Unsupported {
		e.key("unsupported", false).bool(true)
	}
	e.close('}')
}

func (e *verdictEncoder) judge(j *VerdictJudge) {
	if j == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("evidence", true).strList(j.Evidence)
	if j.Model != "" {
		e.key("model", false).str(j.Model)
	}
	e.key("passed", false).bool(j.Passed)
	if j.PromptReproduced != nil {
		e.key("prompt_reproduced", false).bool(*j.PromptReproduced)
	}
	e.key("reasoning", false).str(j.Reasoning)
	if j.Source != "" {
		e.key("source", false).str(j.Source)
	}
	e.key("status", false).str(j.Status)
	e.key("verdict", false).strPtr(j.Verdict)
	e.close('}')
}

func (e *verdictEncoder) trace(t *VerdictTrace) {
	if t == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("cost_usd", true).str(t.CostUSD)
	e.key("duration_seconds", false).str(t.DurationSeconds)
	e.key("llm_calls", false).int(int64(t.LLMCalls))
	e.key("path", false).str(t.Path)
	e.key("tool_calls", false).int(int64(t.ToolCalls))
	e.key("total_tokens", false).int(t.TotalTokens)
	e.close('}')
}

// any writes a value Canonical made (nil, bool, int64, string, []any, map[string]any) at
// nesting depth depth (the verdict object is 1).
func (e *verdictEncoder) any(v any, depth int) {
	switch v := v.(type) {
	case nil:
		e.null()
	case bool:
		e.bool(v)
	case int64:
		e.int(v)
	case string:
		e.str(v)
	case []any:
		if depth > maxDepth {
			e.ok = false
			return
		}
		e.open('[')
		for i, item := range v {
			e.comma(i > 0).any(item, depth+1)
		}
		e.close(']')
	case map[string]any:
		if depth > maxDepth {
			e.ok = false
			return
		}
		e.open('{')
		for i, k := range e.sortedKeys(v) {
			e.key(k, i == 0).any(v[k], depth+1)
		}
		e.close('}')
	default:
		e.ok = false // not a value Canonical makes
	}
}

func (e *verdictEncoder) strList(list []string) {
	if list == nil {
		e.null()
		return
	}
	e.open('[')
	for i, s := range list {
		e.comma(i > 0).str(s)
	}
	e.close(']')
}

func (e *verdictEncoder) strMap(m map[string]string) {
	if m == nil {
		e.null()
		return
	}
	e.open('{')
	for i, k := range e.sortedKeys(m) {
		e.key(k, i == 0).str(m[k])
	}
	e.close('}')
}

// sortedKeys lists m's keys in canonical order, by their UTF-16 code units. Keys are valid
// UTF-8 (every key of a parsed document is); one that is not is left to store.Marshal, as
// encoding/json rewrites it and two keys could become one.
func (e *verdictEncoder) sortedKeys(m any) []string {
	var keys []string
	switch m := m.(type) {
	case map[string]any:
		keys = slices.Collect(maps.Keys(m))
	case map[string]string:
		keys = slices.Collect(maps.Keys(m))
	}
	for _, k := range keys {
		e.ok = e.ok && utf8.ValidString(k)
	}
	slices.SortFunc(keys, doc.CompareKeys)
	return keys
}

func (e *verdictEncoder) open(c byte) { e.b = append(e.b, c) }

func (e *verdictEncoder) close(c byte) { e.b = append(e.b, c) }

// comma writes the separator before every item but the first, and returns e.
func (e *verdictEncoder) comma(more bool) *verdictEncoder {
	if more {
		e.b = append(e.b, ',')
	}
	return e
}

// key writes a member name (after a comma unless first) and its colon, and returns e.
func (e *verdictEncoder) key(k string, first bool) *verdictEncoder {
	e.comma(!first)
	e.b = append(doc.AppendString(e.b, k), ':')
	return e
}

func (e *verdictEncoder) null() { e.b = append(e.b, "null"...) }

func (e *verdictEncoder) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

func (e *verdictEncoder) int(i int64) {
	if i > maxSafeInteger || i < -maxSafeInteger {
		e.ok = false
	}
	e.b = strconv.AppendInt(e.b, i, 10)
}

func (e *verdictEncoder) strPtr(s *string) {
	if s == nil {
		e.null()
		return
	}
	e.str(*s)
}

// str writes s as encoding/json then the canonical form write it: every byte that is not part
// of valid UTF-8 becomes U+FFFD, then the minimal escaping of RFC 8785.
func (e *verdictEncoder) str(s string) {
	if utf8.ValidString(s) {
		e.b = doc.AppendString(e.b, s)
		return
	}
	valid := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			valid = utf8.AppendRune(valid, utf8.RuneError)
		} else {
			valid = append(valid, s[i:i+size]...)
		}
		i += size
	}
	e.b = append(doc.AppendStringContent(append(e.b, '"'), valid), '"')
}
