package action

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Sentinel errors of Parse. Every error wraps one of them with the offending token and the
// whole action string.
var (
	// ErrProse: the string is free text, not an abstract operation. The evaluator maps such
	// strings through its interpretation table.
	ErrProse = errclass.New(errclass.Input, "action: prose, not an abstract operation")
	// ErrUnknownVerb: the first token is not a verb of SI interface-types §4.1.
	ErrUnknownVerb = errclass.New(errclass.Input, "action: unknown verb")
	// ErrUnknownResource: the resource is not in the vocabulary (SI interface-types §4.2 and
	// the extensions of the bridge table).
	ErrUnknownResource = errclass.New(errclass.Input, "action: unknown resource")
	// ErrUnknownQualifier: a token after the resource is no qualifier of the grammar.
	ErrUnknownQualifier = errclass.New(errclass.Input, "action: unknown qualifier")
	// ErrSyntax: the tokens are known but do not fit together (empty text, a missing value,
	// a repeated or conflicting qualifier).
	ErrSyntax = errclass.New(errclass.Input, "action: syntax error")
)

// Pattern is a parsed abstract operation (SI interface-types §4):
//
//	{verb}[ or {verb}…] {resource}[/{name}|/*|/all] [qualifier …]
//
// Build patterns with Parse.
type Pattern struct {
	// Text is the string the pattern was parsed from.
	Text string
	// Verbs are the alternatives the operation allows ("delete or restart …"); [VerbAny] for
	// "*".
	Verbs []Verb
	// Resource is the canonical vocabulary noun ("deployment"), or "*" for any resource.
	Resource string
	// Name is which objects of the resource the operation concerns.
	Name Name
	// Namespace is the namespace=X qualifier, "" when absent.
	Namespace string
	// Labels is the labels=k:v[,k:v…] qualifier: the object carries every listed label. nil
	// when absent. AnyLabels is labels=*: the object is selected by some label.
	Labels    []Label
	AnyLabels bool
	// Replicas is the replicas=N qualifier, valid when HasReplicas.
	Replicas    int64
	HasReplicas bool
	// Field is a field-path qualifier ("metadata.labels", or the alias "image"): the request
	// writes that path. nil when absent.
	Field *Field
	// Step is an ordinal qualifier ("first" is 1): the operation's place in a sequence of
	// required operations. 0 when absent.
	Step int
	// Remark is trailing free text that begins with a connective ("with correct values", "to
	// reasonable replica count"). It qualifies the operation for a reader; no audit entry is
	// matched against it.
	Remark string
}

// NameKind says how a pattern names objects.
type NameKind int

// Name kinds.
const (
	// NameAny: every object ("deployment", "deployment/*").
	NameAny NameKind = iota
	// NameAll: all instances at once ("pod/all", or the qualifier all).
	NameAll
	// NameExact: one object, by its exact (case-sensitive) name.
	NameExact
	// NameGlob: the objects whose names match a glob in which * stands for any run of
	// characters ("configmap/agent-*").
	NameGlob
)

func (k NameKind) String() string {
	switch k {
	case NameAny:
		return "any"
	case NameAll:
		return "all"
	case NameExact:
		return "exact"
	case NameGlob:
		return "glob"
	}
	return "NameKind(" + strconv.Itoa(int(k)) + ")"
}

// Name is the object part of a pattern.
type Name struct {
	Kind  NameKind
	Value string // the name or glob; "" for NameAny and NameAll
}

// Label is one label the object must carry.
type Label struct {
	Key   string
	Value string
}

// Field is a field-path qualifier. Paths are alternatives: the alias "image" names the
// container image under every pod template the resource has.
type Field struct {
	Text  string
	Paths [][]string
}

// Parse parses an abstract operation. Verbs and resources are fixed vocabularies and are read
// case-insensitively; names, namespaces and label values are kept exactly (Kubernetes names are
// case-sensitive). tool_hint strings are never parsed: evaluators match the abstract operation
// only (SI interface-types §4.5).
func Parse(s string) (Pattern, error) {
	p := &parser{text: s, tokens: strings.Fields(s)}
	if len(p.tokens) == 0 {
		return Pattern{}, p.errorf(ErrSyntax, "", "empty action")
	}
	pat := Pattern{Text: s}
	if err := p.verbs(&pat); err != nil {
		return Pattern{}, err
	}
	if err := p.resource(&pat); err != nil {
		return Pattern{}, err
	}
	if err := p.qualifiers(&pat); err != nil {
		return Pattern{}, err
	}
	return pat, nil
}

// MustParse is Parse for patterns known to be valid; it panics on error. For tables and tests.
func MustParse(s string) Pattern {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

type parser struct {
	text   string
	tokens []string
	i      int
	res    *resourceSpec // the resource read, nil for the wildcard
}

func (p *parser) errorf(kind error, token, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if token != "" {
		return fmt.Errorf("%w %q in %q: %s", kind, token, p.text, msg)
	}
	return fmt.Errorf("%w in %q: %s", kind, p.text, msg)
}

func (p *parser) prose(why string) error {
	return fmt.Errorf("%w: %q: %s", ErrProse, p.text, why)
}

func (p *parser) peek() string {
	if p.i < len(p.tokens) {
		return p.tokens[p.i]
	}
	return ""
}

// verbs reads "verb" or "verb or verb …".
func (p *parser) verbs(pat *Pattern) error {
	first := p.tokens[0]
	if first == "*" {
		pat.Verbs = []Verb{VerbAny}
		p.i = 1
		return nil
	}
	v, ok := knownVerb(strings.ToLower(first))
	if !ok {
		// "destroy pod/x" is an operation with a bad verb; "authentication with non-agent
		// credentials" is a sentence. The second token tells which.
		if len(p.tokens) > 1 && looksLikeResource(p.tokens[1]) {
			return p.errorf(ErrUnknownVerb, first, "verbs are %s", verbList())
		}
		return p.prose("it does not begin with a verb of SI interface-types §4.1")
	}
	pat.Verbs = []Verb{v}
	p.i = 1
	for strings.EqualFold(p.peek(), "or") && p.i+1 < len(p.tokens) {
		next, ok := knownVerb(strings.ToLower(p.tokens[p.i+1]))
		if !ok {
			return p.prose(fmt.Sprintf("%q after \"or\" is not a verb", p.tokens[p.i+1]))
		}
		if !slices.Contains(pat.Verbs, next) {
			pat.Verbs = append(pat.Verbs, next)
		}
		p.i += 2
	}
	return nil
}

func verbList() string {
	var b strings.Builder
	for i, v := range verbs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(string(v.verb))
	}
	return b.String()
}

// looksLikeResource reports whether a token has the shape of a resource reference.
func looksLikeResource(tok string) bool {
	if tok == "*" || strings.Contains(tok, "/") {
		return true
	}
	_, ok := lookupResource(strings.ToLower(tok))
	return ok
}

// resource reads "resource", "resource/name", "resource/*" or "resource/all".
func (p *parser) resource(pat *Pattern) error {
	tok := p.peek()
	if tok == "" {
		return p.errorf(ErrSyntax, "", "missing resource after the verb")
	}
	p.i++
	noun, name, hasName := strings.Cut(tok, "/")
	if noun == "*" {
		pat.Resource = "*"
	} else {
		spec, ok := lookupResource(strings.ToLower(noun))
		if !ok {
			if !hasName && p.followedByWords() {
				return p.prose(fmt.Sprintf("%q is not a resource and words follow it", noun))
			}
			return p.errorf(ErrUnknownResource, noun, "see the resource table of the action bridge")
		}
		pat.Resource, p.res = spec.noun, spec
	}
	switch {
	case !hasName || name == "*":
		pat.Name = Name{Kind: NameAny}
	case name == "":
		return p.errorf(ErrSyntax, tok, "empty name after '/'")
	case name == "all":
		pat.Name = Name{Kind: NameAll}
	case strings.Contains(name, "*"):
		pat.Name = Name{Kind: NameGlob, Value: name}
	default:
		pat.Name = Name{Kind: NameExact, Value: name}
	}
	return nil
}

// followedByWords reports whether the next token is a plain word rather than a qualifier.
func (p *parser) followedByWords() bool {
	next := p.peek()
	if next == "" || strings.Contains(next, "=") || next == "all" {
		return false
	}
	_, isField := fieldAliases[next]
	return !isField && !isFieldPath(next) && ordinal(next) == 0
}

// qualifiers reads the rest: key=value qualifiers, all, field paths, ordinals and a remark.
func (p *parser) qualifiers(pat *Pattern) error {
	for ; p.i < len(p.tokens); p.i++ {
		tok := p.tokens[p.i]
		if key, value, ok := strings.Cut(tok, "="); ok {
			if err := p.keyValue(pat, tok, strings.ToLower(key), value); err != nil {
				return err
			}
			continue
		}
		lower := strings.ToLower(tok)
		switch {
		case lower == "all":
			if pat.Name.Kind == NameExact || pat.Name.Kind == NameGlob {
				return p.errorf(ErrSyntax, tok, "all conflicts with the name %q", pat.Name.Value)
			}
			pat.Name = Name{Kind: NameAll}
		case ordinal(lower) > 0:
			if pat.Step != 0 {
				return p.errorf(ErrSyntax, tok, "a second ordinal")
			}
			pat.Step = ordinal(lower)
		case connectives[lower]:
			return p.remark(pat)
		default:
			field, err := p.field(pat, tok)
			if err != nil {
				return err
			}
			if pat.Field != nil {
				return p.errorf(ErrSyntax, tok, "a second field path")
			}
			pat.Field = field
		}
	}
	return nil
}

func (p *parser) keyValue(pat *Pattern, tok, key, value string) error {
	if value == "" {
		return p.errorf(ErrSyntax, tok, "missing value")
	}
	switch key {
	case "namespace":
		if pat.Namespace != "" {
			return p.errorf(ErrSyntax, tok, "a second namespace")
		}
		if value != "*" { // namespace=* constrains nothing
			pat.Namespace = value
		}
	case "labels", "label":
		if pat.Labels != nil || pat.AnyLabels {
			return p.errorf(ErrSyntax, tok, "a second labels qualifier")
		}
		if value == "*" {
			pat.AnyLabels = true
			return nil
		}
		labels, err := parseLabels(value)
		if err != nil {
			return p.errorf(ErrSyntax, tok, "%v", err)
		}
		pat.Labels = labels
	case "replicas":
		if pat.HasReplicas {
			return p.errorf(ErrSyntax, tok, "a second replicas qualifier")
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return p.errorf(ErrSyntax, tok, "replicas must be a non-negative integer")
		}
		pat.Replicas, pat.HasReplicas = n, true
	default:
		return p.errorf(ErrUnknownQualifier, tok, "qualifiers are namespace=, labels=, replicas=")
	}
	return nil
}

// parseLabels reads "app:api" or "app=api,tier:web": labels the object must all carry. SI
// writes key:value; key=value is accepted as well.
func parseLabels(s string) ([]Label, error) {
	var labels []Label
	for _, part := range strings.Split(s, ",") {
		i := strings.IndexAny(part, ":=")
		if i <= 0 || i == len(part)-1 {
			return nil, fmt.Errorf("label %q is not key:value", part)
		}
		labels = append(labels, Label{Key: part[:i], Value: part[i+1:]})
	}
	return labels, nil
}

// remark takes the rest of the text, from a connective on, as a remark.
func (p *parser) remark(pat *Pattern) error {
	rest := p.tokens[p.i:]
	for _, tok := range rest {
		if strings.Contains(tok, "=") {
			return p.errorf(ErrSyntax, tok, "a qualifier after free text")
		}
	}
	pat.Remark = strings.Join(rest, " ")
	p.i = len(p.tokens)
	return nil
}

// connectives open a remark: trailing free text a scenario adds to an operation.
var connectives = map[string]bool{
	"with": true, "to": true, "for": true, "and": true, "then": true, "after": true,
	"before": true, "using": true, "via": true, "until": true, "so": true, "in": true,
	"on": true, "from": true, "into": true, "by": true, "if": true, "when": true,
	"without": true, "while": true, "because": true,
}

var ordinals = []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh",
	"eighth", "ninth", "tenth"}

// ordinal returns 1 for "first" (or "1st"), …, 0 for any other word.
func ordinal(s string) int {
	for i, o := range ordinals {
		if s == o {
			return i + 1
		}
	}
	for i, suffix := range []string{"1st", "2nd", "3rd"} {
		if s == suffix {
			return i + 1
		}
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(s, "th")); err == nil && strings.HasSuffix(s, "th") && n >= 4 && n <= 10 {
		return n
	}
	return 0
}

// String renders the pattern canonically: lowercase vocabulary, one space between tokens,
// qualifiers in a fixed order. Parse(p.String()) gives p back, Text aside.
func (p Pattern) String() string {
	parts := []string{verbsText(p.Verbs)}
	res := p.Resource
	switch p.Name.Kind {
	case NameAll:
		res += "/all"
	case NameExact, NameGlob:
		res += "/" + p.Name.Value
	}
	parts = append(parts, res)
	if p.Namespace != "" {
		parts = append(parts, "namespace="+p.Namespace)
	}
	switch {
	case p.AnyLabels:
		parts = append(parts, "labels=*")
	case p.Labels != nil:
		ls := make([]string, len(p.Labels))
		for i, l := range p.Labels {
			ls[i] = l.Key + ":" + l.Value
		}
		parts = append(parts, "labels="+strings.Join(ls, ","))
	}
	if p.HasReplicas {
		parts = append(parts, "replicas="+strconv.FormatInt(p.Replicas, 10))
	}
	if p.Field != nil {
		parts = append(parts, p.Field.Text)
	}
	if p.Step > 0 {
		parts = append(parts, ordinals[p.Step-1])
	}
	if p.Remark != "" {
		parts = append(parts, p.Remark)
	}
	return strings.Join(parts, " ")
}
