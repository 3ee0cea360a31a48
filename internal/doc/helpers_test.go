package doc

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// yamlNodeCount counts the nodes yaml.v3 builds from data, document nodes included; false when
// it refuses data.
func yamlNodeCount(data []byte) (int, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	count := 0
	for {
		var y yaml.Node
		err := decodeYAML(dec, &y)
		if errors.Is(err, io.EOF) {
			return count, true
		}
		if err != nil {
			return 0, false
		}
		var walk func(y *yaml.Node)
		walk = func(y *yaml.Node) {
			count++
			for _, c := range y.Content {
				walk(c)
			}
		}
		walk(&y)
	}
}

func checkYAMLBound(t testing.TB, data []byte) {
	t.Helper()
	if count, ok := yamlNodeCount(data); ok && count > yamlValueBound(data) {
		t.Errorf("%q: yaml.v3 builds %d nodes, more than the bound %d", data, count, yamlValueBound(data))
	}
}

// aliasBomb is the "billion laughs" of YAML: 600 bytes that expand to 9^9 values.
const aliasBomb = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`
