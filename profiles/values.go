package profiles

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// A scenario's preconditions (Scenarios §1.3) declare the state a provider provisions; the
// values value_ref names are registered from it (Core §3.5.5: "the evaluator resolves each
// value_ref from the scenario's preconditions", as the reference runner does). The evaluator
// checks value containment with them, and the recorder warns when redaction would hide one,
// so both read them here, the same way.

// ErrValueRef: a value_ref or a containment scope does not resolve against the scenario's
// preconditions.
var ErrValueRef = errclass.New(errclass.Input, "profiles: unresolvable value_ref")

// RegisteredValue is one literal registered for value containment.
type RegisteredValue struct {
	// Ref is the value_ref of the value's source, after following secretKeyRef.
	Ref string
	// Form is FormDeclared or FormDecoded.
	Form      string
	Literal   string
	Namespace string
}

// Literal forms of a registered value.
const (
	FormDeclared = "as_declared"
	FormDecoded  = "base64_decoded"
)

// PreconditionResources returns the precondition state entries that name an object
// ("kind/name") as resources, with the entry each came from: the before state when no before
// snapshot was recorded. Entries without a name ("nodes", "logs") declare capacity or content,
// not objects, and are left out.
func (s *Scenario) PreconditionResources() ([]snapshot.Resource, []*StateEntry) {
	var resources []snapshot.Resource
	var entries []*StateEntry
	for i := range s.Preconditions.State {
		e := &s.Preconditions.State[i]
		kind, name, ok := strings.Cut(e.Resource, "/")
		if !ok || name == "" {
			continue
		}
		fields, _ := Value(e.Fields).(map[string]any)
		ns, _ := fields["namespace"].(string)
		resources = append(resources, snapshot.Resource{Kind: snapshot.NormalizeKind(kind), Name: name, Namespace: ns, Doc: fields, Index: i})
		entries = append(entries, e)
	}
	return resources, entries
}

// precondState is the precondition resources and the entries they come from, in parallel.
type precondState struct {
	resources []snapshot.Resource
	entries   []*StateEntry
}

// RegisteredValues returns the literals a value_ref of the scenario registers for value
// containment (Scenarios §1.6, Core §3.5.5), resolved against the preconditions:
// "<kind>/<name>.<path>" where path follows mapping keys; a mapping at the end of the path
// stands for all its values ("secret/x.data" is every key). An env var declared with
// valueFrom.secretKeyRef resolves to that secret key. Each value is registered as declared and,
// when it is standard base64 of printable UTF-8, decoded too (the SI scenarios' comment: "the
// provider registers both the stored base64-encoded form and its decoded plaintext").
func (s *Scenario) RegisteredValues(ref string) ([]RegisteredValue, error) {
	resources, entries := s.PreconditionResources()
	return precondState{resources, entries}.resolve(ref, 0)
}

func (p precondState) resolve(ref string, depth int) ([]RegisteredValue, error) {
	if depth > 4 {
		return nil, fmt.Errorf("%w: %q: secretKeyRef chain too long", ErrValueRef, ref)
	}
	best := -1
	for i, e := range p.entries {
		prefix := e.Resource + "."
		if strings.HasPrefix(ref, prefix) && (best < 0 || len(e.Resource) > len(p.entries[best].Resource)) {
			best = i
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("%w: %q names no resource of the preconditions", ErrValueRef, ref)
	}
	res, path := &p.resources[best], ref[len(p.entries[best].Resource)+1:]
	node := any(res.Doc)
	for _, key := range strings.Split(path, ".") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %q: %s is not a mapping", ErrValueRef, ref, key)
		}
		if node, ok = m[key]; !ok {
			return nil, fmt.Errorf("%w: %q: no field %s", ErrValueRef, ref, key)
		}
	}
	var out []RegisteredValue
	if err := p.collect(ref, res, node, depth, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %q resolves to no value", ErrValueRef, ref)
	}
	return out, nil
}

// collect registers the values under node: a scalar, a secretKeyRef, or every value of a
// mapping in key order (keys sorted, so the order never depends on the document's map).
func (p precondState) collect(ref string, res *snapshot.Resource, node any, depth int, out *[]RegisteredValue) error {
	switch v := node.(type) {
	case map[string]any:
		if sk, ok := secretKeyRef(v); ok {
			vals, err := p.resolve("secret/"+sk[0]+".data."+sk[1], depth+1)
			*out = append(*out, vals...)
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := p.collect(ref+"."+k, res, v[k], depth, out); err != nil {
				return err
			}
		}
		return nil
	case nil, []any:
		return fmt.Errorf("%w: %q is not a value", ErrValueRef, ref)
	}
	literal := snapshot.Text(node)
	if literal == "" {
		return fmt.Errorf("%w: %q is empty", ErrValueRef, ref)
	}
	*out = appendValue(*out, RegisteredValue{Ref: ref, Form: FormDeclared, Literal: literal, Namespace: res.Namespace})
	if decoded, ok := decodeBase64Text(literal); ok {
		*out = appendValue(*out, RegisteredValue{Ref: ref, Form: FormDecoded, Literal: decoded, Namespace: res.Namespace})
	}
	return nil
}

func appendValue(list []RegisteredValue, v RegisteredValue) []RegisteredValue {
	for _, have := range list {
		if have.Literal == v.Literal {
			return list
		}
	}
	return append(list, v)
}

// secretKeyRef reads {valueFrom: {secretKeyRef: {name, key}}}.
func secretKeyRef(m map[string]any) ([2]string, bool) {
	vf, ok := m["valueFrom"].(map[string]any)
	if !ok {
		return [2]string{}, false
	}
	sk, ok := vf["secretKeyRef"].(map[string]any)
	if !ok {
		return [2]string{}, false
	}
	name, _ := sk["name"].(string)
	key, _ := sk["key"].(string)
	return [2]string{name, key}, name != "" && key != ""
}

// decodeBase64Text decodes standard base64 (padded) into printable UTF-8 text; ok is false for
// anything else, so plain words are never "decoded" into noise.
func decodeBase64Text(s string) (string, bool) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) == 0 || !utf8.Valid(b) {
		return "", false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && r != '\n' && r != '\t' && r != '\r' {
			return "", false
		}
	}
	return string(b), true
}

// Boundary reads a contextual containment scope: a key of preconditions.agent.scope
// ("namespaces"), a key and value ("namespaces/frontend") or a value listed under a key. It
// returns the values that make up the boundary.
func (s *Scenario) Boundary(scope string) ([]string, error) {
	sc := s.Preconditions.Agent.Scope
	if sc != nil {
		for _, pair := range sc.Members() {
			values := scalarList(pair.Value)
			switch {
			case pair.Key == scope:
				return values, nil
			case strings.HasPrefix(scope, pair.Key+"/"):
				return []string{strings.TrimPrefix(scope, pair.Key+"/")}, nil
			}
			for _, v := range values {
				if v == scope {
					return []string{v}, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("%w: scope %q is neither %q nor a boundary of preconditions.agent.scope", ErrValueRef, scope, ScopeAbsolute)
}

func scalarList(n *doc.Node) []string {
	switch n.Kind() {
	case doc.Object:
		return nil
	case doc.Array:
	default:
		return []string{n.Text()}
	}
	var out []string
	for _, item := range n.Items() {
		if item.Kind() != doc.Array && item.Kind() != doc.Object {
			out = append(out, item.Text())
		}
	}
	return out
}
