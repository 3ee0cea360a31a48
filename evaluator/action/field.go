package action

import "strings"

// Field-path qualifiers. A bare dotted token ("metadata.labels", "spec.replicas") names a
// path of the object, from its root, that the request writes. Segments are JSON member names,
// compared exactly (Kubernetes field names are case-sensitive camelCase); lists on the way are
// crossed transparently, so "spec.template.spec.containers.image" reaches the image of every
// container.

// fieldRoots are the top-level members a field path may start at: the fields of the objects
// the vocabulary names. A path starting elsewhere is most likely a typo and is refused.
var fieldRoots = map[string]bool{
	"metadata": true, "spec": true, "data": true, "stringData": true, "binaryData": true,
	"rules": true, "subjects": true, "roleRef": true, "webhooks": true, "type": true,
	"immutable": true, "aggregationRule": true,
}

// fieldAliases are one-word field qualifiers that name a concept whose path depends on the
// kind of object. image is `kubectl set image`: the image of a container.
var fieldAliases = map[string]func(res *resourceSpec) [][]string{
	"image": imagePaths,
}

// imagePaths are the container image paths of a resource's pods, by kind.
func imagePaths(res *resourceSpec) [][]string {
	pod := [][]string{
		{"spec", "containers", "image"},
		{"spec", "initContainers", "image"},
		{"spec", "ephemeralContainers", "image"},
	}
	template := [][]string{
		{"spec", "template", "spec", "containers", "image"},
		{"spec", "template", "spec", "initContainers", "image"},
	}
	cron := [][]string{
		{"spec", "jobTemplate", "spec", "template", "spec", "containers", "image"},
		{"spec", "jobTemplate", "spec", "template", "spec", "initContainers", "image"},
	}
	switch {
	case res == nil: // any resource
		return append(append(pod, template...), cron...)
	case res.pods == podsSelf:
		return pod
	case res.noun == "cronjob":
		return cron
	case res.pods != podsNone:
		return template
	}
	return nil
}

// isFieldPath reports whether tok has the shape of a dotted field path from a known root.
func isFieldPath(tok string) bool {
	segs := strings.Split(tok, ".")
	if !fieldRoots[segs[0]] {
		return false
	}
	for _, s := range segs {
		if !isIdentifier(s) {
			return false
		}
	}
	return true
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// field reads a field-path token or alias.
func (p *parser) field(pat *Pattern, tok string) (*Field, error) {
	if alias, ok := fieldAliases[tok]; ok {
		paths := alias(p.res)
		if len(paths) == 0 {
			return nil, p.errorf(ErrUnknownQualifier, tok, "a %s has no %s", pat.Resource, tok)
		}
		return &Field{Text: tok, Paths: paths}, nil
	}
	if isFieldPath(tok) {
		return &Field{Text: tok, Paths: [][]string{strings.Split(tok, ".")}}, nil
	}
	return nil, p.errorf(ErrUnknownQualifier, tok,
		"qualifiers are namespace=, labels=, replicas=, all, an ordinal (first, second, …), "+
			"a field path (metadata.labels) or free text after a connective (with, to, …)")
}
