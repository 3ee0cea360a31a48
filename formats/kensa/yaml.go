package kensa

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
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

// parseYAML reads one YAML document with the project's document model (internal/doc: its
// limits, positions, alias and merge handling); scalars are then resolved by PyYAML's rules
// (pyYAMLScalar), as Kensa's yaml.safe_load reads them.
func parseYAML(file string, data []byte) (*doc.Node, error) {
	return doc.ParseYAML(file, data, doc.Limits{})
}

// pyYAMLScalar resolves a scalar as PyYAML does: an explicit tag decides; otherwise quoted and
// block scalars are strings and plain scalars go through the YAML 1.1 implicit resolvers. The
// node's text as written comes from doc.Node.YAMLScalar: yaml.v3's own YAML 1.2 typing of the
// node is not used.
func pyYAMLScalar(n *doc.Node) (pyvalue.Value, bool, error) {
	s, ok := n.YAMLScalar()
	if !ok {
		return pyvalue.Value{}, false, nil
	}
	kind := "!!str"
	switch {
	case s.Tag != "" && s.Tag != "!":
		kind = s.Tag
	case !s.Plain:
	case yamlBool.MatchString(s.Value):
		kind = "!!bool"
	case yamlInt.MatchString(s.Value):
		kind = "!!int"
	case yamlFloat.MatchString(s.Value):
		kind = "!!float"
	case yamlNull.MatchString(s.Value):
		kind = "!!null"
	case yamlTime.MatchString(s.Value):
		kind = "!!timestamp"
	}
	v, err := construct(kind, s.Value)
	if err != nil {
		return pyvalue.Value{}, true, invalid(n, "%v", err)
	}
	return v, true, nil
}

// construct is PyYAML's SafeConstructor for the scalar tags a scenario can hold.
func construct(kind, s string) (pyvalue.Value, error) {
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
		return pyvalue.Value{}, errorf("%s is a YAML timestamp; quote it to make it a string", pyvalue.StrRepr(s))
	}
	return pyvalue.Value{}, errorf("cannot read %s as %s", pyvalue.StrRepr(s), kind)
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
