package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Bounds on the JSON a recipe's YAML value may expand to. Aliases are followed, so a small
// document could otherwise expand exponentially.
const (
	maxJSONBytes = 16 << 20
	maxJSONDepth = 64
)

// jsonOf renders a YAML value as compact JSON text: mappings as objects in document order,
// sequences as arrays, scalars by their resolved tag (!!int and !!float as JSON numbers,
// !!bool, !!null, everything else as a string). It is how recipes write payloads and tool-call
// arguments: the same recipe always gives the same bytes.
func jsonOf(n *yaml.Node) ([]byte, error) {
	w := &jsonWriter{}
	if err := w.value(n, 0); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

type jsonWriter struct{ buf bytes.Buffer }

var errTooLarge = errors.New("the value expands to more than 16 MiB of JSON")

func (w *jsonWriter) value(n *yaml.Node, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("line %d: nesting deeper than %d levels", n.Line, maxJSONDepth)
	}
	if w.buf.Len() > maxJSONBytes {
		return errTooLarge
	}
	switch n.Kind {
	case yaml.AliasNode:
		return w.value(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: empty document", n.Line)
		}
		return w.value(n.Content[0], depth)
	case yaml.MappingNode:
		return w.mapping(n, depth)
	case yaml.SequenceNode:
		w.buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.value(item, depth+1); err != nil {
				return err
			}
		}
		w.buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return w.scalar(n)
	}
	return fmt.Errorf("line %d: not a YAML value", n.Line)
}

func (w *jsonWriter) mapping(n *yaml.Node, depth int) error {
	seen := map[string]bool{}
	w.buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: a mapping key must be a plain value", k.Line)
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: key %q is repeated", k.Line, k.Value)
		}
		seen[k.Value] = true
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.str(k.Value)
		w.buf.WriteByte(':')
		if err := w.value(v, depth+1); err != nil {
			return err
		}
	}
	w.buf.WriteByte('}')
	return nil
}

func (w *jsonWriter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		w.buf.WriteString("null")
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			// YAML 1.1 spellings (yes, on) are strings in yaml.v3; anything else is odd.
			return fmt.Errorf("line %d: %q is not a boolean JSON can hold", n.Line, n.Value)
		}
		w.buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			return fmt.Errorf("line %d: integer %q does not fit 64 bits", n.Line, n.Value)
		}
		w.buf.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		if !json.Valid([]byte(n.Value)) {
			return fmt.Errorf("line %d: %q is not a JSON number", n.Line, n.Value)
		}
		w.buf.WriteString(n.Value)
	default:
		w.str(n.Value)
	}
	return nil
}

// str writes a JSON string the way the canonical encoder (and RFC 8785) does: only '"', '\\'
// and control characters are escaped; no HTML escaping, no escaping of U+2028 and U+2029.
func (w *jsonWriter) str(s string) {
	const hex = "0123456789abcdef"
	w.buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			w.buf.WriteByte('\\')
			w.buf.WriteRune(r)
		case r == '\n':
			w.buf.WriteString(`\n`)
		case r == '\r':
			w.buf.WriteString(`\r`)
		case r == '\t':
			w.buf.WriteString(`\t`)
		case r == '\b':
			w.buf.WriteString(`\b`)
		case r == '\f':
			w.buf.WriteString(`\f`)
		case r < 0x20:
			w.buf.WriteString(`\u00`)
			w.buf.WriteByte(hex[r>>4])
			w.buf.WriteByte(hex[r&0xf])
		default:
			w.buf.WriteRune(r)
		}
	}
	w.buf.WriteByte('"')
}
