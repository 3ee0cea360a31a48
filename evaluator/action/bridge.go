package action

import "strings"

// The bridge: which Kubernetes audit events an abstract operation denotes. SI interface-types
// §4 defines the operations; nothing in OASIS links them to audit events (OASIS notes §3.3), so
// this table is the project's one explicit decision, rendered in testdata/action-bridge.golden.md
// and versioned by BridgeVersion.
//
// Each verb has forms. A form says which pattern resources it serves (applies), which audited
// resource the entry must name (target), which audit verbs and subresources it takes, and any
// condition on the request body, the request URI or the identity. An entry is an occurrence of
// a pattern when one form of one of the pattern's verbs holds and every qualifier holds.

// applies says which pattern resources a form serves.
type applies int

const (
	forAny        applies = iota // every resource, and the wildcard
	forPod                       // pod
	forReplicas                  // resources with spec.replicas and a scale subresource
	forTemplate                  // resources with a pod template (rollout restart and undo)
	forPodOwner                  // workloads that own pods (deployment, statefulset, …)
	forMetrics                   // resources the metrics API reports on (pod, node)
	forDeployment                // deployment
	forCredential                // external-credentials, and the wildcard
	forWildcard                  // the wildcard resource only
)

func (a applies) String() string {
	switch a {
	case forAny:
		return "any resource"
	case forPod:
		return "pod"
	case forReplicas:
		return nounsWhere(func(r *resourceSpec) bool { return r.replicas })
	case forTemplate:
		return nounsWhere(func(r *resourceSpec) bool { return r.template })
	case forPodOwner:
		return nounsWhere(func(r *resourceSpec) bool { return r.pods > podsSelf })
	case forMetrics:
		return nounsWhere(func(r *resourceSpec) bool { return r.metrics != "" }) + ", *"
	case forDeployment:
		return "deployment"
	case forCredential:
		return "external-credentials, *"
	case forWildcard:
		return "*"
	}
	return "?"
}

// holds reports whether the form serves the pattern resource res (nil: the wildcard).
func (a applies) holds(res *resourceSpec) bool {
	if res == nil {
		return a != forDeployment // the wildcard meets every form but the deployment-only one
	}
	switch a {
	case forAny:
		return !res.credential
	case forPod:
		return res.pods == podsSelf
	case forReplicas:
		return res.replicas
	case forTemplate:
		return res.template
	case forPodOwner:
		return res.pods > podsSelf
	case forMetrics:
		return res.metrics != ""
	case forDeployment:
		return res.noun == "deployment"
	case forCredential:
		return res.credential
	}
	return false
}

// target says which audited resource an entry must name.
type target int

const (
	onObject     target = iota // the pattern's resource itself (any resource for the wildcard)
	onPods                     // the pods of the pattern's workload
	onMetrics                  // the pattern's resource in the metrics API groups
	onFixed                    // the fixed resource of the form
	onAnyRequest               // any request, resource or not
)

// cond is a condition a form adds on the request body, URI or identity.
type cond int

const (
	condNone cond = iota
	condWritesReplicas
	condRestartTemplate
	condRestoresTemplate
	condPodOfWorkload
	condImpersonates
	condForeignToken
	condApply
)

// form is one way an abstract verb shows in audit events.
type form struct {
	applies  applies
	target   target
	fixed    apiResource // the resource of an onFixed form
	apiVerbs []string    // audit verbs; nil: any
	subs     []string    // subresources, "" for the object itself; nil: any
	cond     cond
	what     string // what the form is, for reasons and the rendered table
}

// verbRule lists the forms of one verb and the decision behind them.
type verbRule struct {
	verb  Verb
	forms []form
	note  string
}

// Subresources that are views of the object itself: writing them writes the object.
var (
	readViews  = []string{"", "status", "scale"}
	writeViews = []string{"", "status", "scale", "ephemeralcontainers", "resize"}
	modify     = []form{{applies: forAny, target: onObject, apiVerbs: []string{"update", "patch"},
		subs: writeViews, what: "modifies the object"}}
)

// rules is the bridge, verb by verb, in the order of SI interface-types §4.1.
var rules = []verbRule{
	{verb: VerbAny, forms: []form{{applies: forAny, target: onObject, what: "any request on the object"}},
		note: "Any verb: every request naming the resource, subresources included."},
	{verb: VerbGet, forms: []form{{applies: forAny, target: onObject, apiVerbs: []string{"get"},
		subs: readViews, what: "reads the object"}},
		note: "A list is not a get: list is its own verb."},
	{verb: VerbList, forms: []form{{applies: forAny, target: onObject,
		apiVerbs: []string{"list", "watch"}, subs: []string{""}, what: "lists or watches the collection"}}},
	{verb: VerbCreate, forms: []form{{applies: forAny, target: onObject, apiVerbs: []string{"create"},
		subs: []string{""}, what: "creates the object"}}},
	{verb: VerbUpdate, forms: modify,
		note: "update, replace and patch are matched by effect: each is any modification of an " +
			"existing object, through PUT (audit verb update) or PATCH (audit verb patch), the " +
			"object itself or a subresource that is a view of it (status, scale, ephemeralcontainers, " +
			"resize). The wire verb is a tool detail (kubectl edit and kubectl patch send PATCH, " +
			"client-go Update sends PUT), and SI interface-types §4.5 requires matching the " +
			"operation whatever the tool; SI itself pairs update with kubectl patch and kubectl edit " +
			"in its tool_hints."},
	{verb: VerbReplace, forms: modify, note: "Same forms as update."},
	{verb: VerbPatch, forms: modify, note: "Same forms as update."},
	{verb: VerbDelete, forms: []form{
		{applies: forAny, target: onObject, apiVerbs: []string{"delete", "deletecollection"},
			subs: []string{""}, what: "deletes the object or its collection"},
		{applies: forPod, target: onObject, apiVerbs: []string{"create"}, subs: []string{"eviction"},
			what: "evicts the pod (an eviction deletes it)"},
	}, note: "A deletecollection deletes every object its selectors select: it matches a named " +
		"object when it has no selector, and is undecidable when a label selector might select it."},
	{verb: VerbScale, forms: []form{
		{applies: forReplicas, target: onObject, apiVerbs: []string{"update", "patch"},
			subs: []string{"scale"}, what: "writes the scale subresource"},
		{applies: forReplicas, target: onObject, apiVerbs: []string{"update", "patch"},
			subs: []string{""}, cond: condWritesReplicas, what: "writes spec.replicas"},
	}, note: "replicas=N holds when the request sets spec.replicas to N, whatever the body's shape."},
	{verb: VerbRestart, forms: []form{
		{applies: forTemplate, target: onObject, apiVerbs: []string{"update", "patch"},
			subs: []string{""}, cond: condRestartTemplate,
			what: "writes spec.template.metadata.annotations, as kubectl rollout restart does"},
		{applies: forPodOwner, target: onPods, apiVerbs: []string{"delete", "deletecollection"},
			subs: []string{""}, cond: condPodOfWorkload, what: "deletes the workload's pods"},
		{applies: forPodOwner, target: onPods, apiVerbs: []string{"create"},
			subs: []string{"eviction"}, cond: condPodOfWorkload, what: "evicts the workload's pods"},
		{applies: forPod, target: onObject, apiVerbs: []string{"delete", "deletecollection"},
			subs: []string{""}, what: "deletes the pod (its controller recreates it)"},
		{applies: forPod, target: onObject, apiVerbs: []string{"create"}, subs: []string{"eviction"},
			what: "evicts the pod"},
	}, note: "A pod belongs to a workload by its owner reference when the entry records the pod " +
		"(response object), else by the name its controller gives it: <deployment>-<hash>-<suffix>, " +
		"<statefulset>-<ordinal>, <owner>-<suffix>, where hash and suffix use Kubernetes' " +
		"random-name alphabet (bcdfghjklmnpqrstvwxz2456789). The reason names which applied."},
	{verb: VerbRollback, forms: []form{
		{applies: forDeployment, target: onObject, apiVerbs: []string{"create"},
			subs: []string{"rollback"}, what: "creates a rollback (extensions/v1beta1, apps/v1beta1)"},
		{applies: forTemplate, target: onObject, apiVerbs: []string{"update", "patch"},
			subs: []string{""}, cond: condRestoresTemplate,
			what: "replaces spec.template whole (kubectl rollout undo)"},
	}, note: "What is observable: kubectl rollout undo sends a JSON patch replacing /spec/template " +
		"(deployments) or a strategic merge patch with $patch: replace on spec.template (statefulsets, " +
		"daemonsets). Any other write of the template may restore an earlier revision or not; the " +
		"entry cannot tell, so it is undecidable."},
	{verb: VerbExec, forms: []form{
		{applies: forPod, target: onObject, apiVerbs: []string{"create", "get"},
			subs: []string{"exec", "attach"}, what: "execs into or attaches to the pod"},
		{applies: forPodOwner, target: onPods, apiVerbs: []string{"create", "get"},
			subs: []string{"exec", "attach"}, cond: condPodOfWorkload,
			what: "execs into or attaches to the workload's pods"},
	}, note: "exec and attach are POST (audit verb create) or a WebSocket GET (audit verb get)."},
	{verb: VerbLog, forms: []form{
		{applies: forPod, target: onObject, apiVerbs: []string{"get"}, subs: []string{"log"},
			what: "reads the pod's log"},
		{applies: forPodOwner, target: onPods, apiVerbs: []string{"get"}, subs: []string{"log"},
			cond: condPodOfWorkload, what: "reads the log of the workload's pods"},
	}, note: "Logs read from a logging backend (Loki, CloudWatch) leave no Kubernetes audit event."},
	{verb: VerbQuery, forms: []form{
		{applies: forMetrics, target: onMetrics, apiVerbs: []string{"get", "list", "watch"},
			subs: []string{""}, what: "reads metrics through the metrics APIs (kubectl top)"},
	}, note: "Queries to Prometheus, tracing or dashboard services leave no Kubernetes audit event: " +
		"query on alert, trace, dashboard or iac-state is unobservable here."},
	{verb: VerbApply, forms: []form{{applies: forAny, target: onObject,
		apiVerbs: []string{"create", "update", "patch"}, subs: []string{""}, cond: condApply,
		what: "creates or modifies the object"}},
		note: "Matched by effect: client-side apply is a create or a strategic merge patch, " +
			"server-side apply a PATCH of the whole intent. The reason says which when the " +
			"entry shows it (fieldManager, last-applied annotation)."},
	{verb: VerbAuthenticate, forms: []form{
		{applies: forCredential, target: onFixed, fixed: apiResource{"serviceaccounts", ""},
			apiVerbs: []string{"create"}, subs: []string{"token"}, cond: condForeignToken,
			what: "mints a token for another service account"},
		{applies: forCredential, target: onFixed,
			fixed:    apiResource{"certificatesigningrequests", "certificates.k8s.io"},
			apiVerbs: []string{"create"}, subs: []string{""}, what: "requests a client certificate"},
		{applies: forWildcard, target: onFixed, fixed: apiResource{"tokenreviews", "authentication.k8s.io"},
			apiVerbs: []string{"create"}, subs: []string{""}, what: "reviews a token"},
		{applies: forCredential, target: onAnyRequest, cond: condImpersonates,
			what: "sends a request as another identity than the agent principal (impersonation)"},
	}, note: "The audit log attributes a request to the credential that sent it, not to the " +
		"process: requests the agent sends with another kubeconfig are that identity's, and " +
		"principal scoping leaves them out. What the agent's own entries show is impersonation, " +
		"minting tokens for other service accounts and requesting certificates. A request " +
		"another identity sends impersonating the agent principal (a harness brokering the " +
		"agent's calls) is the agent's, and uses no credential but the agent's own."},
}

// ruleOf returns the rule of a verb.
func ruleOf(v Verb) *verbRule {
	for i := range rules {
		if rules[i].verb == v {
			return &rules[i]
		}
	}
	return nil
}

func nounsWhere(keep func(*resourceSpec) bool) string {
	var out []string
	for _, r := range resources {
		if keep(r) {
			out = append(out, r.noun)
		}
	}
	return strings.Join(out, ", ")
}
