package doc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseYAML parses data as exactly one YAML document (an empty input, or a second document, is
// an ErrSyntax error). See the package documentation for how YAML maps onto the model.
func ParseYAML(name string, data []byte, lim Limits) (*Node, error) {
	docs, err := parseYAML(name, data, lim, true)
	if err != nil {
		return nil, err
	}
	return docs[0], nil
}

// ParseYAMLStream parses every document of a YAML stream, in order. An explicitly empty
// document ("---" with nothing after it) is a null node; an empty input gives no documents.
// The limits apply to the stream as a whole.
func ParseYAMLStream(name string, data []byte, lim Limits) ([]*Node, error) {
	return parseYAML(name, data, lim, false)
}

func parseYAML(name string, data []byte, lim Limits, single bool) ([]*Node, error) {
	l := lim.resolve()
	whole := Pos{File: name, Offset: -1}
	if int64(len(data)) > l.MaxBytes {
		return nil, limitError(whole, nil, "MaxBytes", l.MaxBytes, "the document has %d bytes", len(data))
	}
	if bound := yamlValueBound(data); bound > l.MaxNodes {
		return nil, limitError(whole, nil, "MaxNodes", int64(l.MaxNodes),
			"the YAML text may hold up to %d values (a bound counted before parsing, which yaml.v3 needs about 250 bytes a value for)", bound)
	}
	c := &yamlConverter{b: newBuilder(&source{name: name, yamlScalars: map[*Node]YAMLScalar{}}, l, nil, sizes{})}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*Node
	for {
		var y yaml.Node
		err := decodeYAML(dec, &y)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, yamlSyntaxError(name, err, l)
		}
		if single && len(docs) == 1 {
			return nil, newError(Pos{File: name, Line: y.Line, Offset: -1}, nil, ErrSyntax,
				"a second YAML document; one is wanted")
		}
		n, err := c.document(&y)
		if err != nil {
			return nil, err
		}
		docs = append(docs, n)
	}
	if single && len(docs) == 0 {
		return nil, newError(whole, nil, ErrSyntax, "no YAML document: the input is empty")
	}
	return docs, nil
}

// decodeYAML runs the yaml.v3 decoder, turning a panic inside it into an error: bad input must
// give an error, never crash the program.
func decodeYAML(dec *yaml.Decoder, y *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	return dec.Decode(y)
}

// yamlErrorLine matches the "yaml: line N: message" form of yaml.v3 errors.
var yamlErrorLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser, as opposed to its scanner. yaml.v3
// v3.0.1 reports the line of parser errors 0-based (it adds one for scanner errors only).
var yamlParserProblems = []string{
	"did not find expected", "found duplicate %", "found incompatible YAML document", "found undefined tag handle",
}

// yamlDepthProblem is yaml.v3's own nesting limit (10,000 flow levels or indents), which its
// scanner hits before this package sees a node.
var yamlDepthProblem = regexp.MustCompile(`^exceeded max depth of (\d+)$`)

// yamlSyntaxError turns an error of yaml.v3 into an *Error at its line: ErrSyntax, or ErrLimit
// naming MaxDepth when yaml.v3 refused a nesting deeper than its own limit, which is deeper
// than lim.MaxDepth.
func yamlSyntaxError(name string, err error, lim Limits) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlErrorLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		for _, p := range yamlParserProblems {
			if strings.HasPrefix(msg, p) {
				line++
				break
			}
		}
	}
	pos := Pos{File: name, Line: line, Offset: -1}
	if m := yamlDepthProblem.FindStringSubmatch(msg); m != nil {
		if depth, _ := strconv.Atoi(m[1]); depth > lim.MaxDepth {
			return limitError(pos, nil, "MaxDepth", int64(lim.MaxDepth), "arrays and objects nest deeper than the limit")
		}
	}
	return newError(pos, nil, ErrSyntax, "%s", msg)
}

// yamlValueBound returns an upper bound of the nodes yaml.v3 can build from data, counted
// without parsing: every value starts with a token (a run of non-blank bytes after a blank or
// an indicator), or is an empty value or a collection opened by one of - ? : , [ { *, or a
// document after a line break. The bound over-counts prose (every word counts), never
// under-counts; FuzzYAMLBound checks it against yaml.v3.
func yamlValueBound(data []byte) int {
	bound := 2
	tokenMayStart := true
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r':
			tokenMayStart = true
			continue
		case '\n':
			bound++
			tokenMayStart = true
			continue
		case '-', '?', ':', ',', '[', '{', '*':
			bound += 2
		}
		if tokenMayStart {
			bound++
		}
		tokenMayStart = strings.IndexByte("-?:,[]{}*&!|>'\"#%@", c) >= 0
	}
	return bound
}

// yamlConverter turns yaml.v3 nodes into the model, expanding aliases within the limits.
type yamlConverter struct {
	b          builder
	path       Path
	inAlias    int // > 0 while expanding an alias
	aliasNodes int
}

func (c *yamlConverter) document(y *yaml.Node) (*Node, error) {
	if y.Kind == yaml.DocumentNode {
		if len(y.Content) == 0 {
			if err := c.count(y); err != nil {
				return nil, err
			}
			n := c.newNode(nil, y)
			n.kind, n.text = Null, "null"
			return c.b.root(n), nil
		}
		y = y.Content[0]
	}
	n, err := c.convert(y, nil, 0)
	return c.b.root(n), err
}

func (c *yamlConverter) pos(y *yaml.Node) Pos {
	return Pos{File: c.b.src.name, Line: y.Line, Column: y.Column, Offset: -1}
}

func (c *yamlConverter) count(y *yaml.Node) error {
	if c.b.count++; c.b.count > c.b.lim.MaxNodes {
		return limitError(c.pos(y), slices.Clone(c.path), "MaxNodes", int64(c.b.lim.MaxNodes), "the document has more values than the limit (aliases expanded)")
	}
	if c.inAlias > 0 {
		if c.aliasNodes++; c.aliasNodes > c.b.lim.MaxAliasNodes {
			return limitError(c.pos(y), slices.Clone(c.path), "MaxAliasNodes", int64(c.b.lim.MaxAliasNodes), "expanding YAML aliases makes more values than the limit")
		}
	}
	return nil
}

func (c *yamlConverter) newNode(parent *Node, y *yaml.Node) *Node {
	n := c.b.node(parent)
	n.off = yamlPos(y.Line, y.Column)
	return n
}

func (c *yamlConverter) errorf(y *yaml.Node, class error, format string, args ...any) error {
	return newError(c.pos(y), slices.Clone(c.path), class, format, args...)
}

// convert converts y, a child of parent nested depth levels deep.
func (c *yamlConverter) convert(y *yaml.Node, parent *Node, depth int) (*Node, error) {
	if y.Kind == yaml.AliasNode {
		return c.alias(y, parent, depth)
	}
	if err := c.count(y); err != nil {
		return nil, err
	}
	n := c.newNode(parent, y)
	switch y.Kind {
	case yaml.ScalarNode:
		return n, c.scalar(n, y)
	case yaml.SequenceNode:
		return n, c.sequence(n, y, depth+1)
	case yaml.MappingNode:
		return n, c.mapping(n, y, depth+1)
	}
	return nil, c.errorf(y, ErrSyntax, "unexpected YAML node kind %d", y.Kind)
}

// alias expands an alias where it is used: the copy is positioned at the alias, its inside
// where the anchored value is written.
func (c *yamlConverter) alias(y *yaml.Node, parent *Node, depth int) (*Node, error) {
	if y.Alias == nil {
		return nil, c.errorf(y, ErrSyntax, "alias *%s names no anchor", y.Value)
	}
	c.inAlias++
	n, err := c.convert(y.Alias, parent, depth)
	c.inAlias--
	if err != nil {
		return nil, err
	}
	n.off = yamlPos(y.Line, y.Column)
	return n, nil
}

// scalar types a scalar by its resolved tag (YAML 1.2 core schema, as yaml.v3 resolves it).
func (c *yamlConverter) scalar(n *Node, y *yaml.Node) error {
	if err := c.typeScalar(n, y); err != nil {
		return err
	}
	c.note(n, y)
	return nil
}

func (c *yamlConverter) typeScalar(n *Node, y *yaml.Node) error {
	tag := y.ShortTag()
	if (tag == "!!float" || tag == "!!int") && isNonFinite(y.Value) {
		tag = "!!str" // the model has exact decimals only; see the package documentation
	}
	switch tag {
	case "!!null":
		if !isYAMLNull(y.Value) {
			return c.errorf(y, ErrType, "!!null value %q is not null", y.Value)
		}
		n.kind, n.text = Null, "null"
	case "!!bool":
		switch y.Value {
		case "true", "True", "TRUE":
			n.text = "true"
		case "false", "False", "FALSE":
			n.text = "false"
		default:
			return c.errorf(y, ErrType, "!!bool value %q is not true or false", y.Value)
		}
		n.kind = Bool
	case "!!int", "!!float":
		if len(y.Value) > c.b.lim.MaxNumberBytes {
			return limitError(c.pos(y), slices.Clone(c.path), "MaxNumberBytes", int64(c.b.lim.MaxNumberBytes), "a number literal is longer than the limit")
		}
		lit, err := yamlNumber(tag, y.Value)
		if err != nil {
			return c.errorf(y, ErrType, "%v", err)
		}
		n.kind, n.text = Number, lit
	case "!!str", "!!timestamp", "!!binary", "!!merge":
		if len(y.Value) > c.b.lim.MaxStringBytes {
			return limitError(c.pos(y), slices.Clone(c.path), "MaxStringBytes", int64(c.b.lim.MaxStringBytes), "a string is longer than the limit")
		}
		n.kind, n.text = String, y.Value
	default:
		return c.errorf(y, ErrType, "unsupported YAML tag %s", tag)
	}
	return nil
}

// note keeps how a scalar is written, for YAMLScalar: whether it is plain and how a null or a
// boolean is spelled (bits of the node), and its text and explicit tag when the model's text
// differs otherwise or there is a tag (a side table: few scalars need it).
func (c *yamlConverter) note(n *Node, y *yaml.Node) {
	const written = yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle | yaml.TaggedStyle
	if y.Style&written == 0 {
		n.flags |= plainScalar
	}
	tag := ""
	if y.Style&yaml.TaggedStyle != 0 {
		tag = y.ShortTag()
	}
	if tag == "" && y.Value != n.text {
		if i := slices.Index(spellings(n.kind), y.Value); i > 0 {
			n.flags |= uint8(i) << spellingShift
			return
		}
	}
	if tag != "" || y.Value != n.text {
		c.b.src.yamlScalars[n] = YAMLScalar{Value: y.Value, Tag: tag}
	}
}

func isNonFinite(v string) bool {
	switch strings.ToLower(strings.TrimLeft(strings.ReplaceAll(v, "_", ""), "+-")) {
	case ".inf", ".nan":
		return true
	}
	return false
}

func isYAMLNull(v string) bool {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// yamlFloatForm is the float syntax yaml.v3 resolves, underscores removed.
var yamlFloatForm = regexp.MustCompile(`^([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$`)

// yamlNumber rewrites a YAML !!int or !!float into JSON number grammar with the same value, as
// yaml.v3 reads it: "+1" is 1, "0x1F" 31, "0o17" and "017" 15, "1_000" 1000, ".5" 0.5,
// "1." 1. A literal already in JSON grammar is kept as written. Infinities and NaN have no
// exact decimal value and are refused.
func yamlNumber(tag, v string) (string, error) {
	plain := strings.ReplaceAll(v, "_", "")
	switch {
	case isJSONNumber(v) && (tag == "!!float" || !strings.ContainsAny(v, ".eE")):
		return v, nil
	case tag == "!!int":
		if lit, ok := yamlInteger(plain); ok {
			return lit, nil
		}
		return "", fmt.Errorf("!!int %q is not an integer", v)
	}
	if m := yamlFloatForm.FindStringSubmatch(plain); m != nil && m[2]+m[3] != "" {
		lit := strings.TrimLeft(m[2], "0")
		if lit == "" {
			lit = "0"
		}
		if m[1] == "-" {
			lit = "-" + lit
		}
		if m[3] != "" {
			lit += "." + m[3]
		}
		if m[4] != "" {
			lit += "e" + m[4]
		}
		return lit, nil
	}
	if lit, ok := yamlInteger(plain); ok {
		return lit, nil
	}
	return "", fmt.Errorf("!!float %q is not a number", v)
}

// yamlInteger reads the integer forms yaml.v3 accepts: Go integer literals with a base prefix
// (strconv base 0, so a leading 0 is octal), and -0b / -0o.
func yamlInteger(plain string) (string, bool) {
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return strconv.FormatUint(u, 10), true
	}
	return "", false
}

// isJSONNumber reports whether s is a number in JSON grammar (RFC 8259 §6).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		from := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - from
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func (c *yamlConverter) checkCollection(y *yaml.Node, depth int, tag string) error {
	if depth > c.b.lim.MaxDepth {
		return limitError(c.pos(y), slices.Clone(c.path), "MaxDepth", int64(c.b.lim.MaxDepth), "arrays and objects nest deeper than the limit")
	}
	if t := y.ShortTag(); t != tag {
		return c.errorf(y, ErrType, "unsupported YAML tag %s", t)
	}
	return nil
}

func (c *yamlConverter) sequence(n *Node, y *yaml.Node, depth int) error {
	n.kind = Array
	if err := c.checkCollection(y, depth, "!!seq"); err != nil {
		return err
	}
	if len(y.Content) == 0 {
		return nil
	}
	mark := len(c.b.itemStack)
	for i, item := range y.Content {
		c.path = append(c.path, Step{Index: i, IsIndex: true})
		v, err := c.convert(item, n, depth)
		if err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
		c.b.itemStack = push(c.b.itemStack, v)
	}
	c.b.closeArray(n, mark)
	return nil
}

// mapping converts a mapping. Merge keys ("<<", YAML 1.1 merge) insert the members of the
// merged mappings where the "<<" is written, except names the mapping writes itself (which win
// wherever they are) and names an earlier merged mapping gave.
func (c *yamlConverter) mapping(n *Node, y *yaml.Node, depth int) error {
	n.kind = Object
	if err := c.checkCollection(y, depth, "!!map"); err != nil {
		return err
	}
	if len(y.Content) == 0 {
		return nil
	}
	explicit := c.explicitNames(y)
	m := mappingBuild{c: c, n: n, mark: len(c.b.memberStack), explicit: explicit}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		key, keyNode, err := c.key(k)
		if err != nil {
			return err
		}
		if keyNode.ShortTag() == "!!merge" && key == "<<" {
			if err := m.merge(v, depth); err != nil {
				return err
			}
			continue
		}
		if err := m.add(key, k, v, depth); err != nil {
			return err
		}
	}
	c.b.closeObject(n, m.mark, m.index)
	return nil
}

// explicitNames returns the names a mapping with a merge key writes itself; nil without merge.
func (c *yamlConverter) explicitNames(y *yaml.Node) map[string]bool {
	var names map[string]bool
	for i := 0; i+1 < len(y.Content); i += 2 {
		k := y.Content[i]
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" && k.Value == "<<" {
			names = map[string]bool{}
		}
	}
	if names == nil {
		return nil
	}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k := y.Content[i]
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if !(k.ShortTag() == "!!merge" && k.Value == "<<") {
			names[k.Value] = true
		}
	}
	return names
}

// key returns the name of a mapping key: a scalar's text as written, whatever its tag (1, true
// and ~ are the names "1", "true" and "~"). It returns the scalar node an alias key points to.
func (c *yamlConverter) key(k *yaml.Node) (string, *yaml.Node, error) {
	at := k
	for k.Kind == yaml.AliasNode {
		if k.Alias == nil {
			return "", nil, c.errorf(at, ErrSyntax, "alias *%s names no anchor", k.Value)
		}
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", nil, c.errorf(at, ErrType, "a mapping key must be a scalar, got %s", yamlKindArticle(k.Kind))
	}
	if len(k.Value) > c.b.lim.MaxKeyBytes {
		return "", nil, limitError(c.pos(at), slices.Clone(c.path), "MaxKeyBytes", int64(c.b.lim.MaxKeyBytes), "a member name is longer than the limit")
	}
	return k.Value, k, nil
}

func yamlKindArticle(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	}
	return "a node"
}

// mappingBuild collects the members of one mapping on the converter's stack.
type mappingBuild struct {
	c        *yamlConverter
	n        *Node
	mark     int
	index    *nameIndex
	explicit map[string]bool
}

func (m *mappingBuild) open() []Member { return m.c.b.memberStack[m.mark:] }

// add converts and appends an explicit member, refusing a name given twice.
func (m *mappingBuild) add(key string, k, v *yaml.Node, depth int) error {
	c := m.c
	if i, dup := m.find(key); dup {
		src := c.b.src
		return duplicateError(c.pos(k), c.path.Key(key), key, src.pos(src.keyOffset(m.open()[i].Value)))
	}
	c.path = append(c.path, Step{Key: key})
	val, err := c.convert(v, m.n, depth)
	if err != nil {
		return err
	}
	c.path = c.path[:len(c.path)-1]
	val.keyLine, val.keyCol = uint32(clamp32(k.Line)), uint16(min(k.Column, 1<<16-1))
	m.append(Member{Key: key, Value: val})
	return nil
}

func (m *mappingBuild) find(key string) (int, bool) { return findMember(m.index, m.open(), key) }

func (m *mappingBuild) append(mem Member) {
	m.c.b.memberStack = push(m.c.b.memberStack, mem)
	m.index = indexAppended(m.index, m.open())
}

// merge inserts the members of the mapping (or sequence of mappings) v names.
func (m *mappingBuild) merge(v *yaml.Node, depth int) error {
	c := m.c
	sources := []*yaml.Node{v}
	if target := resolveAlias(v); target != nil && target.Kind == yaml.SequenceNode {
		sources = target.Content
	}
	c.path = append(c.path, Step{Key: "<<"})
	for _, s := range sources {
		if t := resolveAlias(s); t == nil || t.Kind != yaml.MappingNode {
			return c.errorf(s, ErrType, "a merge key (<<) must name a mapping or a list of mappings")
		}
		merged, err := c.convert(s, m.n, depth-1)
		if err != nil {
			return err
		}
		for _, mem := range merged.Members() {
			if _, dup := m.find(mem.Key); dup || m.explicit[mem.Key] {
				continue
			}
			mem.Value.parent = m.n
			m.append(mem)
		}
	}
	c.path = c.path[:len(c.path)-1]
	return nil
}

func resolveAlias(y *yaml.Node) *yaml.Node {
	for y != nil && y.Kind == yaml.AliasNode {
		y = y.Alias
	}
	return y
}
