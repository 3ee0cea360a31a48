package doc

import (
	"strconv"
	"strings"
)

// Step is one step of a Path: a member name, or an item index when IsIndex is set.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path locates a value inside a document, from the root. The empty Path is the document
// itself. Key and Index return extended copies and never modify the receiver, so a Path can be
// shared and extended freely.
type Path []Step

// Key returns p extended by a member name.
func (p Path) Key(key string) Path { return append(p[:len(p):len(p)], Step{Key: key}) }

// Index returns p extended by an item index.
func (p Path) Index(i int) Path { return append(p[:len(p):len(p)], Step{Index: i, IsIndex: true}) }

// Pointer renders p as a JSON Pointer (RFC 6901 §3): "/checks/2/params/tools"; "~" is
// written "~0" and "/" is written "~1" inside names; "" is the whole document.
func (p Path) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.IsIndex {
			b.WriteString(strconv.Itoa(s.Index))
		} else {
			writePointerToken(&b, s.Key)
		}
	}
	return b.String()
}

// String renders p as a field path, the form error messages use: member names joined by
// dots, indices in brackets ("checks[2].params.tools", "[0].name"); "" is the whole document.
// Names are written as they are, so a name holding a dot reads like two steps: the form is for
// people; Pointer is exact.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

func writePointerToken(b *strings.Builder, key string) {
	if !strings.ContainsAny(key, "~/") {
		b.WriteString(key)
		return
	}
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(key[i])
		}
	}
}

// pointerTokens splits a JSON Pointer into its unescaped reference tokens (RFC 6901 §3, §4).
func pointerTokens(ptr string) ([]string, bool) {
	if ptr == "" {
		return nil, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	parts := strings.Split(ptr[1:], "/")
	for i, part := range parts {
		if !strings.Contains(part, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(part); j++ {
			if part[j] != '~' {
				b.WriteByte(part[j])
				continue
			}
			if j+1 == len(part) || (part[j+1] != '0' && part[j+1] != '1') {
				return nil, false
			}
			b.WriteByte("~/"[part[j+1]-'0'])
			j++
		}
		parts[i] = b.String()
	}
	return parts, true
}

// arrayIndex reads an array index token: decimal digits without leading zeros (RFC 6901 §4).
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}
