package action

import (
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
)

// Collection requests (list, watch, deletecollection) say what they select in the request URI:
// ?labelSelector=app%3Dapi&fieldSelector=metadata.name%3Dweb; writes name their client in
// ?fieldManager=. This file reads those parameters
// (Kubernetes label-selector syntax: k=v, k==v, k!=v, k in (a,b), k notin (a,b), k, !k, joined
// by commas) and decides what they can select.

// requirement is one term of a label selector.
type requirement struct {
	key    string
	op     string // "in", "notin", "exists", "!exists"; = and == are "in", != is "notin"
	values []string
}

// selectors is what a collection request selects by.
type selectors struct {
	labels     []requirement
	labelText  string
	name       string // fieldSelector metadata.name=X
	fieldOther bool   // a field selector on something else (status.phase, spec.nodeName, …)
	broken     string // why the selectors could not be read
	// fieldManager is the ?fieldManager= of a write, which names the client (kubectl,
	// kubectl-client-side-apply, …).
	fieldManager string
}

func (v *view) selectors() *selectors {
	if v.sel == nil {
		v.sel = parseSelectors(v.e.RequestURI)
	}
	return v.sel
}

func parseSelectors(uri string) *selectors {
	s := &selectors{}
	if !strings.Contains(uri, "?") {
		return s
	}
	for key, value := range auditlog.QueryParams(uri) {
		switch key {
		case "":
			s.broken = "the request URI has a malformed query"
			return s
		case "labelSelector":
			reqs, ok := parseLabelSelector(value)
			if !ok {
				s.broken = "the label selector " + quoteText(value) + " cannot be read"
				return s
			}
			s.labels, s.labelText = append(s.labels, reqs...), value
		case "fieldSelector":
			s.readFieldSelector(value)
		case "fieldManager":
			s.fieldManager = value
		}
	}
	return s
}

func (s *selectors) readFieldSelector(value string) {
	for _, term := range strings.Split(value, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		k, v, ok := strings.Cut(strings.Replace(term, "==", "=", 1), "=")
		if ok && !strings.HasSuffix(k, "!") && strings.TrimSpace(k) == "metadata.name" {
			s.name = strings.TrimSpace(v)
			continue
		}
		if ok && strings.TrimSpace(k) == "metadata.namespace" {
			continue // the namespace is already in the entry
		}
		s.fieldOther = true
	}
}

func (s *selectors) describe() string {
	switch {
	case s.labelText != "" && s.fieldOther:
		return "label selector " + quoteText(s.labelText) + " and a field selector"
	case s.labelText != "":
		return "label selector " + quoteText(s.labelText)
	}
	return "a field selector"
}

// parseLabelSelector reads a Kubernetes label selector.
func parseLabelSelector(s string) ([]requirement, bool) {
	var reqs []requirement
	for _, term := range splitTerms(s) {
		term = strings.TrimSpace(term)
		if term == "" {
			return nil, false
		}
		r, ok := parseTerm(term)
		if !ok {
			return nil, false
		}
		reqs = append(reqs, r)
	}
	return reqs, true
}

// splitTerms splits at commas outside parentheses.
func splitTerms(s string) []string {
	var terms []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				terms = append(terms, s[start:i])
				start = i + 1
			}
		}
	}
	return append(terms, s[start:])
}

func parseTerm(t string) (requirement, bool) {
	if key, ok := strings.CutPrefix(t, "!"); ok {
		key = strings.TrimSpace(key)
		return requirement{key: key, op: "!exists"}, validKey(key)
	}
	for _, op := range []string{" notin ", " in "} {
		if key, rest, ok := strings.Cut(t, op); ok {
			rest = strings.TrimSpace(rest)
			if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
				return requirement{}, false
			}
			var values []string
			for _, v := range strings.Split(rest[1:len(rest)-1], ",") {
				values = append(values, strings.TrimSpace(v))
			}
			key = strings.TrimSpace(key)
			return requirement{key: key, op: strings.TrimSpace(op), values: values}, validKey(key)
		}
	}
	for _, op := range []string{"!=", "==", "="} {
		if key, value, ok := strings.Cut(t, op); ok {
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			kind := "in"
			if op == "!=" {
				kind = "notin"
			}
			return requirement{key: key, op: kind, values: []string{value}}, validKey(key)
		}
	}
	return requirement{key: t, op: "exists"}, validKey(t)
}

func validKey(k string) bool { return k != "" && !strings.ContainsAny(k, " ()!=,") }

// matches evaluates the label selector on known labels.
func (s *selectors) matches(labels map[string]string) bool {
	for _, r := range s.labels {
		val, has := labels[r.key]
		switch r.op {
		case "in":
			if !has || !slices.Contains(r.values, val) {
				return false
			}
		case "notin":
			if has && slices.Contains(r.values, val) {
				return false
			}
		case "exists":
			if !has {
				return false
			}
		case "!exists":
			if has {
				return false
			}
		}
	}
	return true
}

// selects decides whether a selection by s includes objects carrying every wanted label: yes
// when s forces them (or selects everything), no when it excludes them, unknown when it
// selects by other labels.
func (s *selectors) selects(want []Label) tri {
	forced := true
	for _, w := range want {
		onKey := false
		for _, r := range s.labels {
			if r.key != w.Key {
				continue
			}
			onKey = true
			switch r.op {
			case "in":
				if !slices.Contains(r.values, w.Value) {
					return isNo("the label selector excludes " + w.Key + "=" + w.Value)
				}
				if len(r.values) > 1 {
					forced = false
				}
			case "notin":
				if slices.Contains(r.values, w.Value) {
					return isNo("the label selector excludes " + w.Key + "=" + w.Value)
				}
				forced = false
			case "!exists":
				return isNo("the label selector excludes objects labelled " + w.Key)
			case "exists":
				forced = false
			}
		}
		if !onKey {
			forced = false
		}
	}
	switch {
	case len(s.labels) == 0 && !s.fieldOther:
		return isYes("the request selects every object of the collection")
	case forced && !s.fieldOther:
		return isYes("the label selector " + quoteText(s.labelText) + " selects only such objects")
	}
	return isUnknown("the request selects by " + s.describe() +
		"; whether that includes objects labelled " + labelsText(want) + " is not in the entry")
}

func labelsText(ls []Label) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Key + "=" + l.Value
	}
	return strings.Join(parts, ",")
}

func quoteText(s string) string { return strconv.Quote(s) }
