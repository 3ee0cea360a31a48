package kensa

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// PyYAML's implicit resolvers for plain scalars (YAML 1.1, yaml/resolver.py).
var (
	yamlBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yamlTime  = regexp.MustCompile(`^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?`)
)

// maxAliasExpansions bounds alias expansion, so a small hostile document cannot expand into a
// huge value.
const maxAliasExpansions = 1000

// yamlDoc reads one YAML document into its root node.
func yamlDoc(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fileError(file, 0, "", "empty document")
	}
	return doc.Content[0], nil
}

// converter turns YAML nodes into values as PyYAML's safe_load would build them.
type converter struct {
	file    string
	aliases int
}

func (c *converter) value(n *yaml.Node, field string, depth int) (pyvalue.Value, error) {
	if depth > 100 {
		return pyvalue.Value{}, fileError(c.file, n.Line, field, "nesting too deep")
	}
	switch n.Kind {
	case yaml.AliasNode:
		if c.aliases++; c.aliases > maxAliasExpansions {
			return pyvalue.Value{}, fileError(c.file, n.Line, field, "more than %d alias expansions", maxAliasExpansions)
		}
		return c.value(n.Alias, field, depth+1)
	case yaml.ScalarNode:
		return c.scalar(n, field)
	case yaml.SequenceNode:
		items := make([]pyvalue.Value, 0, len(n.Content))
		for i, item := range n.Content {
			v, err := c.value(item, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if err != nil {
				return pyvalue.Value{}, err
			}
			items = append(items, v)
		}
		return pyvalue.NewList(items), nil
	case yaml.MappingNode:
		keys, vals := []string{}, []pyvalue.Value{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" && k.Tag == "!!merge" {
				return pyvalue.Value{}, fileError(c.file, k.Line, field, "only string keys are supported")
			}
			kv, err := c.scalar(k, field)
			if err != nil {
				return pyvalue.Value{}, err
			}
			ks, ok := kv.AsStr()
			if !ok {
				return pyvalue.Value{}, fileError(c.file, k.Line, field, "key %q is a %s, not a string", k.Value, kv.TypeName())
			}
			val, err := c.value(v, joinField(field, ks), depth+1)
			if err != nil {
				return pyvalue.Value{}, err
			}
			keys, vals = append(keys, ks), append(vals, val)
		}
		return pyvalue.NewDict(keys, vals), nil
	}
	return pyvalue.Value{}, fileError(c.file, n.Line, field, "unsupported YAML node")
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// scalar resolves a scalar as PyYAML does: quoted scalars and explicit !!str are strings,
// plain scalars go through the YAML 1.1 implicit resolvers.
func (c *converter) scalar(n *yaml.Node, field string) (pyvalue.Value, error) {
	tag := n.Tag
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		if tag == "" || tag == "!!str" || tag == "!" {
			return pyvalue.NewStr(n.Value), nil
		}
	}
	explicit := n.Style&yaml.TaggedStyle != 0
	s := n.Value
	kind := ""
	switch {
	case explicit:
		kind = tag
	case yamlBool.MatchString(s):
		kind = "!!bool"
	case yamlInt.MatchString(s):
		kind = "!!int"
	case yamlFloat.MatchString(s):
		kind = "!!float"
	case yamlNull.MatchString(s):
		kind = "!!null"
	case yamlTime.MatchString(s):
		kind = "!!timestamp"
	default:
		kind = "!!str"
	}
	switch kind {
	case "!!str":
		return pyvalue.NewStr(s), nil
	case "!!null":
		return pyvalue.Value{}, nil
	case "!!bool":
		switch strings.ToLower(s) {
		case "yes", "true", "on":
			return pyvalue.NewBool(true), nil
		case "no", "false", "off":
			return pyvalue.NewBool(false), nil
		}
	case "!!int":
		if i, ok := yamlIntValue(s); ok {
			return pyvalue.NewInt(i), nil
		}
	case "!!float":
		if f, ok := yamlFloatValue(s); ok {
			return pyvalue.NewFloat(f), nil
		}
	case "!!timestamp":
		return pyvalue.Value{}, fileError(c.file, n.Line, field, "%q is a YAML timestamp; quote it to make it a string", s)
	}
	return pyvalue.Value{}, fileError(c.file, n.Line, field, "cannot read %q as %s", s, kind)
}

// yamlIntValue is PyYAML's construct_yaml_int.
func yamlIntValue(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	sign := int64(1)
	if strings.HasPrefix(s, "-") {
		sign, s = -1, s[1:]
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	var v int64
	var err error
	switch {
	case s == "0":
		return 0, true
	case strings.HasPrefix(s, "0b"):
		v, err = strconv.ParseInt(s[2:], 2, 64)
	case strings.HasPrefix(s, "0x"):
		v, err = strconv.ParseInt(s[2:], 16, 64)
	case strings.HasPrefix(s, "0"):
		v, err = strconv.ParseInt(s[1:], 8, 64)
	case strings.Contains(s, ":"):
		for part := range strings.SplitSeq(s, ":") {
			d, perr := strconv.ParseInt(part, 10, 64)
			if perr != nil {
				return 0, false
			}
			v = v*60 + d
		}
	default:
		v, err = strconv.ParseInt(s, 10, 64)
	}
	return sign * v, err == nil
}

// yamlFloatValue is PyYAML's construct_yaml_float.
func yamlFloatValue(s string) (float64, bool) {
	s = strings.ToLower(strings.ReplaceAll(s, "_", ""))
	sign := 1.0
	if strings.HasPrefix(s, "-") {
		sign, s = -1, s[1:]
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	switch {
	case s == ".inf":
		return sign * math.Inf(1), true
	case s == ".nan":
		return math.NaN(), true
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		v := 0.0
		for i, part := range parts {
			var d float64
			var err error
			if i == len(parts)-1 {
				d, err = strconv.ParseFloat(part, 64)
			} else {
				var n int64
				n, err = strconv.ParseInt(part, 10, 64)
				d = float64(n)
			}
			if err != nil {
				return 0, false
			}
			v = float64(v*60) + d
		}
		return sign * v, true
	}
	f, err := strconv.ParseFloat(s, 64)
	return sign * f, err == nil
}
