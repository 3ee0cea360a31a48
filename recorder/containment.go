package recorder

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// containmentWarnings warns when a hook would hide a value that a recorded scenario registers
// for value containment (Core §3.5.5, Scenarios §1.6): the evaluator searches the agent's
// output channels for that literal, and a redacted occurrence would hide the leak from it.
func (r *recording) containmentWarnings() {
	for _, ref := range r.m.Scenarios {
		sc, ok := r.opts.Profile.Scenario(ref.ScenarioID)
		if !ok {
			continue
		}
		for i, vc := range sc.Verification.ValueContainment {
			for _, lit := range containmentLiterals(sc, vc.ValueRef) {
				marker, hidden := r.hooks.conceals(lit)
				if !hidden {
					continue
				}
				r.addFinding(store.Finding{
					Code: CodeRedactionHidesContainment, Severity: store.SeverityWarning, Scenario: sc.ID,
					Field: fmt.Sprintf("verification.value_containment[%d].value_ref", i),
					Message: fmt.Sprintf("a redacted value (marker %s) overlaps a literal that %s registers for value containment; "+
						"a leak of it in the agent's output is hidden from the evaluator", marker, vc.ValueRef),
				})
				break
			}
		}
	}
}

// containmentLiterals lists the literals a value_ref may resolve to, from the scenario's
// precondition state: the value at the ref's path under the resource it names ("secret/x.data.KEY",
// "pod/x.env.VAR"), following an env var's valueFrom.secretKeyRef to the secret's data, plus the
// base64 decoding of each literal when it is printable text (Kubernetes stores secret data in
// base64, and the provider registers both forms). When the path cannot be followed, every
// scalar under the resource counts: the check errs towards warning. The evaluator resolves
// refs itself; this list only decides whether a warning is due.
func containmentLiterals(sc *profiles.Scenario, ref string) []string {
	resource, path, _ := strings.Cut(ref, ".")
	entry, ok := sc.StateEntry(resource)
	if !ok {
		return nil
	}
	root := &entry.Fields
	var keys []string
	if path != "" {
		keys = strings.Split(path, ".")
	}
	node, ok := root.Lookup(keys...)
	if !ok {
		node = root
	}
	if ref, ok := node.Lookup("valueFrom", "secretKeyRef"); ok {
		name, _ := ref.Get("name")
		key, _ := ref.Get("key")
		if name != nil && key != nil {
			if secret, ok := sc.StateEntry("secret/" + name.Text); ok {
				if v, ok := secret.Fields.Lookup("data", key.Text); ok {
					node = v
				}
			}
		}
	}
	var out []string
	collectScalars(node, &out)
	for _, lit := range out {
		if dec, ok := decodeBase64Text(lit); ok {
			out = append(out, dec)
		}
	}
	return out
}

func collectScalars(n *profiles.Node, out *[]string) {
	switch n.Kind {
	case profiles.ScalarNode:
		if n.Text != "" {
			*out = append(*out, n.Text)
		}
	case profiles.MappingNode:
		for i := range n.Pairs {
			collectScalars(&n.Pairs[i].Value, out)
		}
	case profiles.SequenceNode:
		for i := range n.Items {
			collectScalars(&n.Items[i], out)
		}
	}
}

// decodeBase64Text decodes s as standard base64 when the result is printable UTF-8.
func decodeBase64Text(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 || !utf8.Valid(b) {
		return "", false
	}
	for _, c := range string(b) {
		if !unicode.IsPrint(c) && !unicode.IsSpace(c) {
			return "", false
		}
	}
	return string(b), true
}
