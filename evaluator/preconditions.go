package evaluator

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
	"github.com/oasis-replay/oasis-replay/profiles"
)

// preconditions is a scenario's declared starting state (Scenarios §1.3) read as resources:
// the before state when no before snapshot was recorded, the labels the audit log does not
// carry, and the values value_ref names (Core §3.5.5: values are registered from the
// provisioned precondition state).
type preconditions struct {
	scenario  *profiles.Scenario
	resources []snapshot.Resource
	// entries parallels resources: the declaration each came from.
	entries []*profiles.StateEntry
}

func newPreconditions(s *profiles.Scenario) *preconditions {
	p := &preconditions{scenario: s}
	for i := range s.Preconditions.State {
		e := &s.Preconditions.State[i]
		kind, name, ok := strings.Cut(e.Resource, "/")
		if !ok || name == "" {
			// "nodes", "logs" without a name: declarations of capacity or content, not
			// objects the evaluator can compare or resolve.
			continue
		}
		fields, _ := profiles.Value(e.Fields).(map[string]any)
		ns, _ := fields["namespace"].(string)
		p.resources = append(p.resources, snapshot.Resource{Kind: snapshot.NormalizeKind(kind), Name: name, Namespace: ns, Doc: fields, Index: i})
		p.entries = append(p.entries, e)
	}
	return p
}

// snapshot returns the precondition state as a snapshot (the before state derived from the
// preconditions; see docs/decisions.md).
func (p *preconditions) snapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{Resources: p.resources}
}

// Labels implements action.LabelSource from the declared labels.
func (p *preconditions) Labels(resource, namespace, name string) (map[string]string, bool) {
	for i := range p.resources {
		r := &p.resources[i]
		if r.Kind != snapshot.NormalizeKind(resource) || r.Name != name || (r.Namespace != "" && r.Namespace != namespace) {
			continue
		}
		raw, ok := r.Doc["labels"].(map[string]any)
		if !ok {
			return nil, false
		}
		labels := make(map[string]string, len(raw))
		for k, v := range raw {
			labels[k] = snapshot.Text(v)
		}
		return labels, true
	}
	return nil, false
}

// find returns the declaration of "kind/name" in a namespace ("" matches any).
func (p *preconditions) find(ref, namespace string) (*snapshot.Resource, bool) {
	kind, name, _ := strings.Cut(ref, "/")
	return p.snapshot().Find(kind, namespace, name)
}

// containedValue is one literal registered for value containment.
type containedValue struct {
	// Ref is the value_ref of the value's source, after following secretKeyRef.
	Ref string
	// Form is "as_declared" or "base64_decoded".
	Form      string
	Literal   string
	Namespace string
}

// Literal forms.
const (
	formDeclared = "as_declared"
	formDecoded  = "base64_decoded"
)

// ContainmentLiterals returns the literals the evaluator registers for a value_ref of scenario
// s (Core §3.5.5), as declared and base64-decoded (see resolve), in a stable order. The
// recorder uses it to warn when redaction would hide one of them.
func ContainmentLiterals(s *profiles.Scenario, ref string) ([]string, error) {
	values, err := newPreconditions(s).resolve(ref)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, v.Literal)
	}
	return out, nil
}

// resolve resolves a value_ref (Scenarios §1.6) against the preconditions:
// "<kind>/<name>.<path>" where path follows mapping keys; a mapping at the end of the path
// stands for all its values ("secret/x.data" is every key). An env var declared with
// valueFrom.secretKeyRef resolves to that secret key. Each value is registered as declared and,
// when it is standard base64 of printable UTF-8, decoded too (the SI scenarios' comment: "the
// provider registers both the stored base64-encoded form and its decoded plaintext").
func (p *preconditions) resolve(ref string) ([]containedValue, error) {
	return p.resolveDepth(ref, 0)
}

func (p *preconditions) resolveDepth(ref string, depth int) ([]containedValue, error) {
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
	var out []containedValue
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
func (p *preconditions) collect(ref string, res *snapshot.Resource, node any, depth int, out *[]containedValue) error {
	switch v := node.(type) {
	case map[string]any:
		if sk, ok := secretKeyRef(v); ok {
			vals, err := p.resolveDepth("secret/"+sk[0]+".data."+sk[1], depth+1)
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
	*out = appendValue(*out, containedValue{Ref: ref, Form: formDeclared, Literal: literal, Namespace: res.Namespace})
	if decoded, ok := decodeBase64Text(literal); ok {
		*out = appendValue(*out, containedValue{Ref: ref, Form: formDecoded, Literal: decoded, Namespace: res.Namespace})
	}
	return nil
}

func appendValue(list []containedValue, v containedValue) []containedValue {
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

// boundary reads a contextual containment scope: a key of preconditions.agent.scope
// ("namespaces"), a key and value ("namespaces/frontend") or a value listed under a key. It
// returns the values that make up the boundary.
func (p *preconditions) boundary(scope string) ([]string, error) {
	sc := p.scenario.Preconditions.Agent.Scope
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
	return nil, fmt.Errorf("%w: scope %q is neither %q nor a boundary of preconditions.agent.scope", ErrValueRef, scope, profiles.ScopeAbsolute)
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
