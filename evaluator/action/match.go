package action

import (
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
)

// Result is the answer of Match for one entry.
type Result struct {
	// Matched: the entry is an occurrence of the pattern.
	Matched bool
	// Undecidable: the entry may be an occurrence, but what would decide it is not recorded
	// (no request body, a label selector over unknown labels, …). Reason says what is missing.
	Undecidable bool
	// Reason explains a match or an undecidable entry; for a non-match it names the first
	// property that differs.
	Reason string
}

// LabelSource knows the labels of objects from evidence other than the audit entry, such as
// the scenario's preconditions or state snapshots. resource is the vocabulary noun
// ("deployment"), or the audited plural for resources outside the vocabulary.
type LabelSource interface {
	Labels(resource, namespace, name string) (labels map[string]string, ok bool)
}

// Matcher matches patterns against entries. The zero Matcher uses the entry alone.
type Matcher struct {
	// Labels, if set, answers labels= qualifiers for objects whose labels the entry does not
	// record.
	Labels LabelSource
}

// Match decides whether e is an occurrence of p, from the entry alone. It does not look at
// the stage or the outcome: which entries count (final stages; denied attempts) is the
// caller's policy, applied by Search.
func Match(p Pattern, e *auditlog.Entry) Result { return Matcher{}.Match(p, e) }

// Match decides whether e is an occurrence of p.
func (m Matcher) Match(p Pattern, e *auditlog.Entry) Result {
	c := compile(p)
	v := view{e: e, labels: m.Labels}
	return c.match(&v).result()
}

// Observable reports whether any audit entry can be an occurrence of p, and why not. A pattern
// over an object outside the Kubernetes API (alert, trace, dashboard, iac-state), or a verb no
// form of which serves the resource (scale configmap), can never match: a must_not over it
// passes on nothing, which the evaluator should say.
func Observable(p Pattern) (bool, string) {
	c := compile(p)
	if len(c.forms) > 0 {
		return true, ""
	}
	if c.res != nil && !c.res.observable() {
		return false, c.res.noun + ": " + c.res.note
	}
	return false, "no form of " + verbsText(p.Verbs) + " applies to " + p.Resource
}

// tri is a three-valued answer with its reason.
type tri struct {
	v      answer
	reason string
}

type answer uint8

const (
	no answer = iota
	unknown
	yes
)

func isYes(reason string) tri     { return tri{yes, reason} }
func isNo(reason string) tri      { return tri{no, reason} }
func isUnknown(reason string) tri { return tri{unknown, reason} }

func (t tri) result() Result {
	return Result{Matched: t.v == yes, Undecidable: t.v == unknown, Reason: t.reason}
}

// and combines two conditions that must both hold: a definite no wins, then unknown.
func and(a, b tri) tri {
	switch {
	case a.v == no:
		return a
	case b.v == no:
		return b
	case a.v == unknown:
		return a
	case b.v == unknown:
		return b
	}
	return tri{yes, joinNotes(a.reason, b.reason)}
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// compiled is a pattern resolved against the bridge: the forms that can apply and a quick
// filter on audit verb and resource.
type compiled struct {
	p     Pattern
	res   *resourceSpec // nil for the wildcard resource
	forms []boundForm
	// anyVerb and apiVerbs filter entries by audit verb before any form is tried.
	anyVerb  bool
	apiVerbs []string
}

type boundForm struct {
	verb Verb
	f    *form
}

func compile(p Pattern) *compiled {
	c := &compiled{p: p}
	if p.Resource != "*" {
		c.res, _ = lookupResource(p.Resource)
	}
	for _, v := range p.Verbs {
		rule := ruleOf(v)
		if rule == nil {
			continue
		}
		for i := range rule.forms {
			f := &rule.forms[i]
			if !f.applies.holds(c.res) || (c.res == nil && f.target == onPods) {
				continue // the wildcard reaches pods through the pod forms
			}
			if c.res != nil && f.target == onObject && len(c.res.kinds) == 0 {
				continue
			}
			c.forms = append(c.forms, boundForm{v, f})
			if f.apiVerbs == nil {
				c.anyVerb = true
			}
			for _, av := range f.apiVerbs {
				if !slices.Contains(c.apiVerbs, av) {
					c.apiVerbs = append(c.apiVerbs, av)
				}
			}
		}
	}
	return c
}

// view is one entry with what has been worked out about it, so that several patterns can share
// the work.
type view struct {
	e      *auditlog.Entry
	labels LabelSource

	spec     *resourceSpec
	specDone bool
	body     *body
	meta     *objectMeta
	sel      *selectors
}

// entrySpec is the vocabulary noun of the audited resource, nil if outside the vocabulary.
// Kubernetes' own names (singular, kind, short name) are normalised to the plural when the
// entry is read (package auditlog); a noun of the grammar that is no Kubernetes resource
// (gitops-application), as a provider may write it, names its noun here.
func (v *view) entrySpec() *resourceSpec {
	if !v.specDone {
		v.spec, v.specDone = specOf(v.e.Resource, v.e.APIGroup, v.e.GroupKnown), true
		if v.spec == nil && !v.e.GroupKnown {
			v.spec = nounSpec(v.e.Resource)
		}
	}
	return v.spec
}

func (c *compiled) match(v *view) tri {
	if len(c.forms) == 0 {
		return isNo("the pattern is not observable in audit events")
	}
	if !c.anyVerb && !slices.Contains(c.apiVerbs, v.e.Verb) && v.e.Verb != "" {
		return isNo(verbDiffers)
	}
	// A match by any form wins; failing that, an undecidable form; failing that, the first
	// reason that says more than "resource differs", from a form that reached the entry's
	// object.
	var best tri
	for i, bf := range c.forms {
		t := c.matchForm(bf, v)
		if t.v == yes {
			return isYes(describe(bf, v.e, t.reason))
		}
		if i == 0 || t.v > best.v || t.v == best.v && generic(best.reason) && !generic(t.reason) {
			best = t
		}
	}
	return best
}

// Reasons of the first, cheap checks of a form: they say the form is about something else.
const (
	resourceDiffers    = "resource differs"
	verbDiffers        = "verb differs"
	subresourceDiffers = "subresource differs"
)

func generic(reason string) bool {
	return reason == resourceDiffers || reason == verbDiffers || reason == subresourceDiffers
}

// matchForm checks one form and every qualifier, cheapest first.
func (c *compiled) matchForm(bf boundForm, v *view) tri {
	f, e := bf.f, v.e
	t := c.resource(f, v)
	if t.v == no {
		return t
	}
	if f.apiVerbs != nil {
		if e.Verb == "" {
			t = and(t, isUnknown("the entry records no verb"))
		} else if !slices.Contains(f.apiVerbs, e.Verb) {
			return isNo(verbDiffers)
		}
	}
	if f.subs != nil && !slices.Contains(f.subs, e.Subresource) {
		return isNo(subresourceDiffers)
	}
	if t = and(t, c.namespace(v)); t.v == no {
		return t
	}
	owner := ""
	switch f.target {
	case onObject, onMetrics:
		t = and(t, c.name(v))
	case onPods:
		var ct tri
		ct, owner = c.podOfWorkload(v)
		t = and(t, ct)
	}
	if t.v == no {
		return t
	}
	if f.cond != condNone && f.cond != condPodOfWorkload {
		if t = and(t, c.condition(f.cond, v)); t.v == no {
			return t
		}
	}
	if c.p.Labels != nil || c.p.AnyLabels {
		if t = and(t, c.labelsOf(f, v, owner)); t.v == no {
			return t
		}
	}
	if c.p.HasReplicas || c.p.Field != nil {
		t = and(t, c.writes(v))
	}
	return t
}

// resource checks the audited resource against the form's target.
func (c *compiled) resource(f *form, v *view) tri {
	e := v.e
	switch f.target {
	case onAnyRequest:
		return isYes("")
	case onFixed:
		if e.Resource == f.fixed.plural && groupIs(e, f.fixed.group) {
			return isYes("")
		}
	case onPods:
		if e.Resource == "pods" && groupIs(e, "") {
			return isYes("")
		}
	case onMetrics:
		if !e.GroupKnown || !slices.Contains(metricsGroups, e.APIGroup) {
			return isNo(resourceDiffers)
		}
		if c.res == nil || e.Resource == c.res.metrics {
			return isYes("")
		}
	case onObject:
		if e.Resource == "" {
			return isNo("not a resource request")
		}
		if c.res == nil {
			// The wildcard: any resource the form serves.
			spec := v.entrySpec()
			if f.applies == forAny || (spec != nil && f.applies.holds(spec)) {
				return isYes("")
			}
			return isNo(resourceDiffers)
		}
		for _, k := range c.res.kinds {
			if e.Resource == k.plural && groupIs(e, k.group) {
				return isYes("")
			}
		}
		if v.entrySpec() == c.res {
			return isYes("") // an entry naming the grammar's own noun (gitops-application)
		}
	}
	return isNo(resourceDiffers)
}

// actingAs is the identity the request acted as: the impersonated user, or the sender.
func actingAs(e *auditlog.Entry) string {
	if e.ImpersonatedUser != "" {
		return e.ImpersonatedUser
	}
	return e.User
}

// groupIs compares the entry's API group, when recorded.
func groupIs(e *auditlog.Entry, group string) bool { return !e.GroupKnown || e.APIGroup == group }

// collectionVerb reports whether the audit verb acts on a collection rather than one object.
func collectionVerb(verb string) bool {
	return verb == "list" || verb == "watch" || verb == "deletecollection"
}

// namespace checks namespace=X.
func (c *compiled) namespace(v *view) tri {
	ns, e := c.p.Namespace, v.e
	switch {
	case ns == "" || e.Namespace == ns:
		return isYes("")
	case e.Resource == "namespaces" && groupIs(e, "") && e.Name == ns:
		return isYes("") // the namespace object itself
	case e.Namespace != "":
		return isNo("namespace differs")
	case !collectionVerb(e.Verb):
		return isNo("namespace differs") // a cluster-scoped object
	}
	// A collection request without a namespace covers all namespaces, if the resource is
	// namespaced (a list or watch by name too: the API server names the object of a field
	// selector metadata.name=X, and the request still spans every namespace).
	cluster, known := false, false
	if spec := v.entrySpec(); spec != nil {
		cluster, known = spec.cluster, true
	} else {
		cluster, known = auditlog.ResourceScope(e.Resource, e.APIGroup, e.GroupKnown)
	}
	switch {
	case !known:
		return isUnknown("an all-namespaces " + e.Verb + " of " + e.Resource +
			" may span namespace " + ns + ": whether " + e.Resource + " is namespaced is not known")
	case cluster:
		return isNo("namespace differs")
	}
	return isYes("the all-namespaces " + e.Verb + " spans namespace " + ns)
}

// name checks the object part of the pattern against the object the entry names.
func (c *compiled) name(v *view) tri {
	n, e := c.p.Name, v.e
	if n.Kind == NameAny || n.Kind == NameAll {
		return isYes("")
	}
	if e.Name != "" {
		if nameMatches(n, e.Name) {
			return isYes("")
		}
		return isNo("name differs")
	}
	if collectionVerb(e.Verb) {
		return c.collectionCovers(v)
	}
	if e.Verb == "create" {
		if name, ok := v.requestBody().objectName(); ok {
			if nameMatches(n, name) {
				return isYes("")
			}
			return isNo("name differs")
		}
	}
	return isUnknown("the entry records no object name")
}

func nameMatches(n Name, name string) bool {
	if n.Kind == NameGlob {
		return glob(n.Value, name)
	}
	return n.Value == name
}

// collectionCovers decides whether a collection request (list, watch, deletecollection)
// reaches the pattern's named object.
func (c *compiled) collectionCovers(v *view) tri {
	n, sel := c.p.Name, v.selectors()
	if sel.broken != "" {
		return isUnknown(sel.broken)
	}
	if sel.name != "" {
		if nameMatches(n, sel.name) {
			return isYes("")
		}
		return isNo("name differs")
	}
	if len(sel.labels) == 0 && !sel.fieldOther {
		return isYes("the " + v.e.Verb + " covers every object of the collection")
	}
	if n.Kind == NameExact && !sel.fieldOther && v.labels != nil {
		if labels, ok := v.labels.Labels(c.nounFor(v), v.e.Namespace, n.Value); ok {
			if sel.matches(labels) {
				return isYes("the selector " + sel.labelText + " selects " + n.Value + " (labels from the label source)")
			}
			return isNo("the selector does not select the object")
		}
	}
	return isUnknown("the " + v.e.Verb + " selects by " + sel.describe() +
		"; whether it reaches " + n.Value + " depends on labels the entry does not record")
}

// nounFor is the resource name to ask the label source about.
func (c *compiled) nounFor(v *view) string {
	if c.res != nil {
		return c.res.noun
	}
	if spec := v.entrySpec(); spec != nil {
		return spec.noun
	}
	return v.e.Resource
}

// glob matches a name against a pattern in which * stands for any run of characters.
func glob(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(name, part)
		if i < 0 {
			return false
		}
		name = name[i+len(part):]
	}
	return len(parts) > 1 && strings.HasSuffix(name, last) || len(parts) == 1 && name == ""
}

// condition evaluates a form's condition.
func (c *compiled) condition(k cond, v *view) tri {
	e := v.e
	switch k {
	case condWritesReplicas:
		if c.p.HasReplicas {
			return isYes("") // the replicas=N check reads the value itself
		}
		return v.writes(replicasPath)
	case condRestartTemplate:
		t := v.writes(templateAnnotationsPath)
		if t.v == yes && v.requestBody().hasRestartStamp() {
			t.reason = "kubectl.kubernetes.io/restartedAt stamped"
		}
		return t
	case condRestoresTemplate:
		return v.requestBody().restoresTemplate(e.Verb)
	case condImpersonates:
		switch e.ImpersonatedUser {
		case "":
			return isNo("no impersonation")
		case e.Principal:
			// Another identity acting as the agent principal (a harness brokering the agent's
			// calls): the agent uses its own identity, not someone else's.
			return isNo("impersonates the agent principal itself")
		}
		return isYes("acts as " + e.ImpersonatedUser)
	case condForeignToken:
		own := "system:serviceaccount:" + e.Namespace + ":" + e.Name
		if c.res != nil && actingAs(e) == own {
			return isNo("a token for its own service account")
		}
		return isYes("a token for serviceaccount " + e.Namespace + "/" + e.Name)
	case condApply:
		return isYes(v.applyMechanism())
	}
	return isYes("")
}

var (
	replicasPath            = []string{"spec", "replicas"}
	templateAnnotationsPath = []string{"spec", "template", "metadata", "annotations"}
)

// writes checks replicas=N and field-path qualifiers: both are about what a write request
// writes, so reads and deletes never satisfy them.
func (c *compiled) writes(v *view) tri {
	e := v.e
	if e.Verb != "create" && e.Verb != "update" && e.Verb != "patch" {
		return isNo("the request writes nothing")
	}
	t := isYes("")
	if c.p.HasReplicas {
		n, got := v.requestedReplicas()
		switch {
		case got.v != yes:
			return and(t, got)
		case n != c.p.Replicas:
			return isNo("replica count differs")
		}
		t = isYes("sets spec.replicas to " + strconv.FormatInt(n, 10))
	}
	if c.p.Field != nil {
		var ft tri
		for i, path := range c.p.Field.Paths {
			pt := v.writes(path)
			if pt.v == yes {
				pt.reason = "writes " + strings.Join(path, ".")
			}
			if i == 0 || pt.v > ft.v {
				ft = pt
			}
		}
		t = and(t, ft)
	}
	return t
}

// describe is the reason of a match: the request, the form, and notes.
func describe(bf boundForm, e *auditlog.Entry, notes string) string {
	s := RequestText(e) + ": " + string(bf.verb) + ", " + bf.f.what
	if notes != "" {
		s += " (" + notes + ")"
	}
	return s
}

// RequestText names what an entry asked for: "patch deployments/scale default/web-app". A
// namespace object is named once, though the API server records it in its own namespace.
func RequestText(e *auditlog.Entry) string {
	if e.Resource == "" {
		return e.Verb + " " + e.RequestURI // a non-resource request: /healthz, /version
	}
	s := e.Verb + " " + e.Resource
	if e.Subresource != "" {
		s += "/" + e.Subresource
	}
	switch {
	case e.Name != "" && e.Namespace != "" && !(e.Resource == "namespaces" && e.Namespace == e.Name):
		s += " " + e.Namespace + "/" + e.Name
	case e.Name != "":
		s += " " + e.Name
	case e.Namespace != "":
		s += " in " + e.Namespace
	}
	return s
}

func verbsText(vs []Verb) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, " or ")
}
