package action

import (
	"bytes"
	"strings"
)

// Labels and owners of the object an entry names, and which workload a pod belongs to.

// objectMeta is what the entry records about the object itself.
type objectMeta struct {
	known  bool // the entry holds the object
	labels map[string]string
	owners []ownerRef
}

type ownerRef struct {
	kind, name string
	controller bool
}

// objectMeta reads the object's labels and owners from the response object (the object as the
// apiserver returned it: the one read, the one deleted) or, for a create or update, from the
// request object.
func (v *view) objectMeta() *objectMeta {
	if v.meta != nil {
		return v.meta
	}
	v.meta = &objectMeta{}
	for _, raw := range [][]byte{v.e.ResponseBody, v.requestObject()} {
		if m, ok := metaOf(raw); ok {
			v.meta = m
			break
		}
	}
	return v.meta
}

// requestObject is the request body when it is a whole object.
func (v *view) requestObject() []byte {
	if v.e.Verb == "create" || v.e.Verb == "update" {
		return v.e.RequestBody
	}
	return nil
}

// metaOf reads metadata.labels and metadata.ownerReferences of a Kubernetes object. A Status
// (what a delete may return instead of the object) and a List are not the object.
func metaOf(raw []byte) (*objectMeta, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, false
	}
	doc, ok := decodeJSON(raw)
	obj, isObj := doc.(map[string]any)
	if !ok || !isObj {
		return nil, false
	}
	if kind, _ := obj["kind"].(string); kind == "Status" || strings.HasSuffix(kind, "List") {
		return nil, false
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, false
	}
	m := &objectMeta{known: true, labels: map[string]string{}}
	labels, _ := meta["labels"].(map[string]any)
	for k, val := range labels {
		if s, ok := val.(string); ok {
			m.labels[k] = s
		}
	}
	owners, _ := meta["ownerReferences"].([]any)
	for _, o := range owners {
		om, _ := o.(map[string]any)
		kind, _ := om["kind"].(string)
		name, _ := om["name"].(string)
		controller, _ := om["controller"].(bool)
		m.owners = append(m.owners, ownerRef{kind, name, controller})
	}
	return m, true
}

// labelsOf checks labels= qualifiers. For a collection request the selectors in its URI
// decide; for one object, its labels as the entry records them, else as the label source
// knows them. On the pods of a workload the labels asked about are the workload's (owner).
func (c *compiled) labelsOf(f *form, v *view, owner string) tri {
	e := v.e
	if f.target != onObject && f.target != onMetrics && f.target != onPods {
		return isYes("")
	}
	if f.target == onObject && e.Name == "" && collectionVerb(e.Verb) {
		sel := v.selectors()
		switch {
		case sel.broken != "":
			return isUnknown(sel.broken)
		case c.p.AnyLabels:
			return isYes("")
		}
		return sel.selects(c.p.Labels)
	}
	var labels map[string]string
	known := false
	what := e.Resource + " " + e.Name
	switch {
	case f.target == onPods:
		if owner == "" || v.labels == nil {
			return isUnknown("the labels of the workload owning pod " + e.Name + " are not recorded")
		}
		what = c.res.noun + " " + owner
		labels, known = v.labels.Labels(c.res.noun, e.Namespace, owner)
	default:
		if m := v.objectMeta(); m.known {
			labels, known = m.labels, true
		} else if v.labels != nil && e.Name != "" {
			labels, known = v.labels.Labels(c.nounFor(v), e.Namespace, e.Name)
		}
	}
	if !known {
		return isUnknown("the labels of " + what + " are not recorded")
	}
	if c.p.AnyLabels {
		if len(labels) > 0 {
			return isYes("")
		}
		return isNo("the object has no labels")
	}
	for _, l := range c.p.Labels {
		if labels[l.Key] != l.Value {
			return isNo("label " + l.Key + " differs")
		}
	}
	return isYes("labelled " + labelsText(c.p.Labels))
}

// podOfWorkload decides whether the pod an entry names belongs to the pattern's workload, and
// returns the workload's name when it can tell.
func (c *compiled) podOfWorkload(v *view) (tri, string) {
	e, res := v.e, c.res
	if e.Name == "" {
		if !collectionVerb(e.Verb) {
			return isUnknown("the entry records no pod name"), ""
		}
		sel := v.selectors()
		if sel.broken == "" && len(sel.labels) == 0 && !sel.fieldOther && sel.name == "" {
			return isYes("deletes every pod of the namespace, the workload's included"), ""
		}
		if sel.broken != "" {
			return isUnknown(sel.broken), ""
		}
		return isUnknown("the request selects pods by " + sel.describe() +
			"; whether they are the workload's is not in the entry"), ""
	}
	if m := v.objectMeta(); m.known && len(m.owners) > 0 {
		return c.byOwnerReference(m.owners, e.Name)
	}
	owner, ok := podOwner(res.pods, e.Name)
	if !ok {
		return isNo("pod " + e.Name + " is not named like a " + res.noun + "'s pod"), ""
	}
	if !nameMatchesOwner(c.p.Name, owner) {
		return isNo("the pod belongs to another " + res.noun), owner
	}
	return isYes("pod name " + e.Name + " has the form of " + res.noun + " " + owner + "'s pods"), owner
}

// byOwnerReference decides pod ownership from the pod's controller reference.
func (c *compiled) byOwnerReference(owners []ownerRef, pod string) (tri, string) {
	res := c.res
	for _, o := range owners {
		if !o.controller || o.kind != res.ownerKind {
			continue
		}
		owner := o.name
		if res.pods == podsDeployment {
			// A Deployment's pods are owned by its ReplicaSet <deployment>-<hash>.
			i := strings.LastIndexByte(owner, '-')
			if i <= 0 || !randomRun(owner[i+1:], 1, 10) {
				continue
			}
			owner = owner[:i]
		}
		if nameMatchesOwner(c.p.Name, owner) {
			return isYes("pod " + pod + " is controlled by " + res.noun + " " + owner), owner
		}
		return isNo("the pod belongs to another " + res.noun), owner
	}
	return isNo("pod " + pod + " is not controlled by a " + res.noun), ""
}

func nameMatchesOwner(n Name, owner string) bool {
	switch n.Kind {
	case NameExact, NameGlob:
		return nameMatches(n, owner)
	}
	return true
}

// randomAlphabet is the alphabet Kubernetes draws generated name suffixes and pod-template
// hashes from (k8s.io/apimachinery/pkg/util/rand): no vowels, no confusable digits.
const randomAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func randomRun(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(randomAlphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}

// podOwner returns the name of the workload a pod name implies, by the naming of its kind.
func podOwner(naming podNaming, pod string) (string, bool) {
	cut := func(s string) (string, string, bool) {
		i := strings.LastIndexByte(s, '-')
		if i <= 0 {
			return "", "", false
		}
		return s[:i], s[i+1:], true
	}
	rest, last, ok := cut(pod)
	if !ok {
		return "", false
	}
	switch naming {
	case podsDeployment:
		owner, hash, ok := cut(rest)
		return owner, ok && randomRun(last, 5, 5) && randomRun(hash, 1, 10)
	case podsRandomSuffix:
		return rest, randomRun(last, 5, 5)
	case podsOrdinal:
		return rest, isIndex(last) && last != "-"
	}
	return "", false
}
