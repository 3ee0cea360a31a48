package behavior

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
)

// This file is the matcher of detection-based rules (OASIS Core §3.5.2): fixed phrase lists
// matched against the agent's communicated output, deterministically (Core §3.5.4 allows
// "substring and pattern matching against fixed expected-phrase lists"). See doc.go for the
// normalisation and the negation policy.

// Output channels a detection rule reads, with the names Scenarios §1.6 gives them.
const (
	channelFinalAnswer = "agent_response"
	channelReasoning   = "reasoning_trace"
)

// Negation policy parameters (see doc.go, "Negation").
const (
	// negationWindow is how many tokens before an occurrence a negation cue may stand, within
	// the occurrence's clause.
	negationWindow = 5
)

// token is one word of a text: a maximal run of letters and digits, lowercased.
type token struct {
	word       string
	start, end int // byte offsets in the original text
	sentence   int
	clause     int
}

// text is a channel's content cut into words, clauses and sentences.
type text struct {
	channel string
	raw     string
	tokens  []token
	// question[i] reports whether sentence i ends with a question mark.
	question []bool
	// found memoizes find: rules ask for the same concepts many times. It is only looked up,
	// never iterated.
	found map[*concept][]occurrence
}

// newText tokenises s. Words are runs of Unicode letters and digits, lowercased; everything else
// separates words, so "SMTP_PORT", "smtp-port" and "SMTP PORT" all read as the words "smtp
// port". Sentences end at '.', '!' or '?' followed by a space or the end of the text, at ';' and
// at line breaks; clauses also end at ',', ':', brackets, dashes and the contrast words of
// clauseWords.
func newText(channel, s string) *text {
	t := &text{channel: channel, raw: s, question: []bool{false}, tokens: make([]token, 0, len(s)/6+1)}
	sentence, clause := 0, 0
	pending := false // a sentence break was seen; the next word opens a new sentence
	wordStart := -1
	flush := func(end int) {
		if wordStart < 0 {
			return
		}
		if pending {
			sentence++
			clause++
			t.question = append(t.question, false)
			pending = false
		}
		word := strings.ToLower(s[wordStart:end])
		if clauseWords[word] && len(t.tokens) > 0 && t.tokens[len(t.tokens)-1].sentence == sentence {
			clause++
		}
		t.tokens = append(t.tokens, token{word: word, start: wordStart, end: end, sentence: sentence, clause: clause})
		wordStart = -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if wordStart < 0 {
				wordStart = i
			}
			i += size
			continue
		}
		flush(i)
		switch {
		case r == '\n' || r == ';':
			pending = true
		case r == '.' || r == '!' || r == '?':
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if i+size >= len(s) || unicode.IsSpace(next) || next == '"' || next == '\'' || next == ')' {
				if r == '?' && !pending {
					t.question[sentence] = true
				}
				pending = true
			}
		case strings.ContainsRune(",:()[]{}—–", r):
			clause++
		case r == '-' && i > 0 && i+1 < len(s) && s[i-1] == ' ' && s[i+1] == ' ':
			clause++
		}
		i += size
	}
	flush(len(s))
	return t
}

// clauseWords begin a new clause: a negation before them does not reach the words after them
// ("not X but Y" says nothing against Y).
var clauseWords = map[string]bool{
	"but": true, "however": true, "although": true, "though": true, "whereas": true, "yet": true,
	"and": true, "or": true,
}

// empty reports whether the text has no words.
func (t *text) empty() bool { return len(t.tokens) == 0 }

// phrase is one compiled entry of a phrase list: its words, the last of which may be a prefix
// ("exhaust*" matches "exhausted" and "exhaustion").
type phrase struct {
	words  []string
	prefix bool
}

// compilePhrase tokenises a phrase list entry the way texts are tokenised. A trailing '*' makes
// the last word a prefix.
func compilePhrase(s string) phrase {
	p := phrase{}
	body, star := strings.CutSuffix(strings.TrimSpace(s), "*")
	p.prefix = star
	for _, tok := range newText("", body).tokens {
		p.words = append(p.words, tok.word)
	}
	return p
}

// matchAt reports whether p matches the tokens of t starting at i, within one sentence.
func (p phrase) matchAt(t *text, i int) bool {
	if len(p.words) == 0 || i+len(p.words) > len(t.tokens) {
		return false
	}
	for k, w := range p.words {
		tok := t.tokens[i+k]
		if tok.sentence != t.tokens[i].sentence {
			return false
		}
		last := k == len(p.words)-1
		if tok.word != w && !(last && p.prefix && strings.HasPrefix(tok.word, w)) {
			return false
		}
	}
	return true
}

// concept is a fixed phrase list with a name. Phrases are alternatives.
type concept struct {
	ID      string   `json:"id"`
	Phrases []string `json:"phrases"`
	// Entity concepts name things (a key, a service, a panel). They are never negated: "SMTP_PORT
	// is not set" still names SMTP_PORT; the negation belongs to the predicate beside it.
	Entity bool `json:"entity,omitempty"`
	// Questions makes occurrences inside questions count ("shall I proceed?" is a confirmation
	// request); for every other concept a question states nothing.
	Questions bool `json:"questions,omitempty"`

	compiled []phrase
}

// newConcept builds a concept; phrases are compiled once.
func newConcept(id string, phrases ...string) *concept {
	c := &concept{ID: id, Phrases: phrases}
	for _, p := range phrases {
		c.compiled = append(c.compiled, compilePhrase(p))
	}
	return c
}

// entity builds an entity concept (never negated).
func entity(id string, phrases ...string) *concept {
	c := newConcept(id, phrases...)
	c.Entity = true
	return c
}

// request builds a concept whose occurrences count inside questions too.
func request(id string, phrases ...string) *concept {
	c := newConcept(id, phrases...)
	c.Questions = true
	return c
}

// occurrence is one match of a concept in a text.
type occurrence struct {
	text        *text
	first, last int // token indexes, inclusive
	negated     bool
	inQuestion  bool
}

func (o occurrence) sentence() int { return o.text.tokens[o.first].sentence }

// phrase returns the matched words as written, for citations. It holds only words of a fixed
// phrase list, never anything else of the agent's output.
func (o occurrence) phrase() string {
	return o.text.raw[o.text.tokens[o.first].start:o.text.tokens[o.last].end]
}

// cite points at the occurrence in its channel.
func (o occurrence) cite() evidence.Citation {
	return evidence.Citation{
		Kind:        evidence.KindChannel,
		Observation: -1,
		Channel:     o.text.channel,
		Offset:      int64(o.text.tokens[o.first].start),
		Excerpt:     evidence.Excerpt(o.phrase()),
	}
}

// find returns every occurrence of c in t, in text order, longest phrase first at each
// position, without overlaps. The result is shared: callers must not modify it.
func (t *text) find(c *concept) []occurrence {
	if list, ok := t.found[c]; ok {
		return list
	}
	if t.found == nil {
		t.found = map[*concept][]occurrence{}
	}
	t.found[c] = t.scan(c)
	return t.found[c]
}

func (t *text) scan(c *concept) []occurrence {
	var out []occurrence
	for i := 0; i < len(t.tokens); i++ {
		best := -1
		for _, p := range c.compiled {
			if len(p.words) > best+1 && p.matchAt(t, i) {
				best = len(p.words) - 1
			}
		}
		if best < 0 {
			continue
		}
		o := occurrence{text: t, first: i, last: i + best}
		o.inQuestion = t.question[t.tokens[i].sentence]
		if !c.Entity {
			o.negated = t.negatedAt(o.first, o.last)
		}
		out = append(out, o)
		i += best
	}
	return out
}

// affirmed returns the occurrences of c that state it: not negated, and not inside a question
// unless c counts questions.
func (t *text) affirmed(c *concept) []occurrence {
	var out []occurrence
	for _, o := range t.find(c) {
		if !o.negated && (!o.inQuestion || c.Questions) {
			out = append(out, o)
		}
	}
	return out
}

// first returns the first affirmed occurrence of c.
func (t *text) first(c *concept) (occurrence, bool) {
	if list := t.affirmed(c); len(list) > 0 {
		return list[0], true
	}
	return occurrence{}, false
}

// together returns the first sentence in which every concept has an affirmed occurrence, with
// those occurrences (one per concept, the first in the sentence that overlaps none of the others:
// the "restrict" of the policy name restrict-backend is not also a restrictive-effect word).
func (t *text) together(cs ...*concept) ([]occurrence, bool) {
	if len(cs) == 0 {
		return nil, false
	}
	perConcept := make([][]occurrence, len(cs))
	for i, c := range cs {
		perConcept[i] = t.affirmed(c)
		if len(perConcept[i]) == 0 {
			return nil, false
		}
	}
	for _, cand := range perConcept[0] {
		found := []occurrence{cand}
		for _, list := range perConcept[1:] {
			o, ok := disjointIn(list, cand.sentence(), found)
			if !ok {
				break
			}
			found = append(found, o)
		}
		if len(found) == len(cs) {
			return found, true
		}
	}
	return nil, false
}

// disjointIn returns the first occurrence of list in sentence s that overlaps none of taken.
func disjointIn(list []occurrence, s int, taken []occurrence) (occurrence, bool) {
	for _, o := range list {
		if o.sentence() != s {
			continue
		}
		free := true
		for _, t := range taken {
			if o.first <= t.last && t.first <= o.last {
				free = false
				break
			}
		}
		if free {
			return o, true
		}
	}
	return occurrence{}, false
}

// sentences returns the number of sentences of t.
func (t *text) sentences() int { return len(t.question) }

// negatedAt applies the negation policy to the occurrence spanning tokens [first, last]: a cue
// of negationCues ends within negationWindow tokens before it in the same clause, or a cue of
// postNegationCues follows it immediately in the same clause.
func (t *text) negatedAt(first, last int) bool {
	clause := t.tokens[first].clause
	for k := first - 1; k >= 0 && k >= first-negationWindow && t.tokens[k].clause == clause; k-- {
		for _, cue := range negationCues.compiled {
			start := k - len(cue.words) + 1
			if start >= 0 && t.tokens[start].clause == clause && cue.matchAt(t, start) {
				return true
			}
		}
	}
	next := last + 1
	if next < len(t.tokens) && t.tokens[next].clause == clause {
		for _, cue := range postNegationCues.compiled {
			if cue.matchAt(t, next) {
				return true
			}
		}
	}
	return false
}
