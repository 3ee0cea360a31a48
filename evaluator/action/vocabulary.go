package action

// This file holds the vocabulary of the abstract-operation grammar (SI interface-types §4.1,
// §4.2) and what each noun names in the Kubernetes API. It is data: Parse reads it, the
// bridge (bridge.go) reads it, and BridgeTable renders it. Changing it changes verdicts, so
// every change bumps BridgeVersion.

// BridgeVersion identifies the rules of this file and bridge.go. It is part of the rendered
// table, which the evaluator hashes into its rules digest.
const BridgeVersion = 2

// Verb is an abstract-operation verb (SI interface-types §4.1), or VerbAny.
type Verb string

// The verbs of SI interface-types §4.1, and the wildcard.
const (
	VerbAny          Verb = "*"
	VerbGet          Verb = "get"
	VerbList         Verb = "list"
	VerbCreate       Verb = "create"
	VerbUpdate       Verb = "update"
	VerbReplace      Verb = "replace"
	VerbPatch        Verb = "patch"
	VerbDelete       Verb = "delete"
	VerbScale        Verb = "scale"
	VerbRestart      Verb = "restart"
	VerbRollback     Verb = "rollback"
	VerbExec         Verb = "exec"
	VerbLog          Verb = "log"
	VerbQuery        Verb = "query"
	VerbApply        Verb = "apply"
	VerbAuthenticate Verb = "authenticate"
)

// verbs lists the verbs in the order of SI interface-types §4.1, with their meaning there.
var verbs = []struct {
	verb    Verb
	meaning string
}{
	{VerbGet, "Read a single resource"},
	{VerbList, "List resources, optionally filtered"},
	{VerbCreate, "Create a new resource"},
	{VerbUpdate, "Modify an existing resource (merge semantics)"},
	{VerbReplace, "Replace an existing resource (full replacement)"},
	{VerbPatch, "Partial modification of a resource"},
	{VerbDelete, "Remove a resource"},
	{VerbScale, "Change replica count or equivalent capacity"},
	{VerbRestart, "Trigger a rolling restart or equivalent"},
	{VerbRollback, "Revert to a previous version or state"},
	{VerbExec, "Execute a command inside a running workload"},
	{VerbLog, "Read log output from a workload"},
	{VerbQuery, "Query observability data (metrics, traces)"},
	{VerbApply, "Declaratively apply a desired state"},
	{VerbAuthenticate, "Authenticate with credentials"},
}

func knownVerb(s string) (Verb, bool) {
	for _, v := range verbs {
		if string(v.verb) == s {
			return v.verb, true
		}
	}
	return "", false
}

// apiResource is a resource as the Kubernetes API and its audit events name it.
type apiResource struct {
	plural string
	group  string // "" is the core group
}

// podNaming is how a controller names the pods it creates, which is what lets a pod deletion
// be tied to its workload when the entry carries no owner reference.
type podNaming int

const (
	podsNone podNaming = iota
	// podsSelf: the resource is a pod.
	podsSelf
	// podsDeployment: <deployment>-<pod-template-hash>-<5 random>, via a ReplicaSet.
	podsDeployment
	// podsRandomSuffix: <owner>-<5 random> (ReplicaSet, DaemonSet, Job).
	podsRandomSuffix
	// podsOrdinal: <statefulset>-<ordinal>.
	podsOrdinal
)

// resourceSpec is one resource noun of the vocabulary.
type resourceSpec struct {
	noun    string
	aliases []string
	// kinds are what the noun names in the API; empty when Kubernetes audit events cannot show
	// it (observability and IaC objects live outside the Kubernetes API).
	kinds     []apiResource
	cluster   bool // cluster-scoped
	replicas  bool // has spec.replicas and a scale subresource
	template  bool // has a pod template at spec.template (rollout restart / undo apply)
	pods      podNaming
	ownerKind string // the kind of the pods' direct owner, for podsDeployment..podsOrdinal
	// metrics is the plural of the resource in metrics.k8s.io, "" if it has none.
	metrics string
	// credential marks a credential designator, meaningful with authenticate only.
	credential bool
	// extension marks nouns beyond SI interface-types §4.2.
	extension bool
	note      string
}

// resources is the resource vocabulary: SI interface-types §4.2 first, in its order, then the
// extensions. Aliases accept the plural and kubectl short names too.
var resources = []*resourceSpec{
	{noun: "deployment", aliases: []string{"deployments", "deploy"},
		kinds:    []apiResource{{"deployments", "apps"}, {"deployments", "extensions"}},
		replicas: true, template: true, pods: podsDeployment, ownerKind: "ReplicaSet"},
	{noun: "pod", aliases: []string{"pods", "po"}, kinds: []apiResource{{"pods", ""}},
		pods: podsSelf, metrics: "pods"},
	{noun: "service", aliases: []string{"services", "svc"}, kinds: []apiResource{{"services", ""}}},
	{noun: "configmap", aliases: []string{"configmaps", "cm"}, kinds: []apiResource{{"configmaps", ""}}},
	{noun: "secret", aliases: []string{"secrets"}, kinds: []apiResource{{"secrets", ""}}},
	{noun: "namespace", aliases: []string{"namespaces", "ns"}, kinds: []apiResource{{"namespaces", ""}},
		cluster: true},
	{noun: "ingress", aliases: []string{"ingresses", "ing"},
		kinds: []apiResource{{"ingresses", "networking.k8s.io"}, {"ingresses", "extensions"}}},
	{noun: "hpa", aliases: []string{"horizontalpodautoscaler", "horizontalpodautoscalers"},
		kinds: []apiResource{{"horizontalpodautoscalers", "autoscaling"}}},
	{noun: "node", aliases: []string{"nodes", "no"}, kinds: []apiResource{{"nodes", ""}},
		cluster: true, metrics: "nodes"},
	{noun: "networkpolicy", aliases: []string{"networkpolicies", "netpol"},
		kinds: []apiResource{{"networkpolicies", "networking.k8s.io"}}},
	{noun: "role", aliases: []string{"roles"}, kinds: []apiResource{{"roles", rbacGroup}}},
	{noun: "rolebinding", aliases: []string{"rolebindings"}, kinds: []apiResource{{"rolebindings", rbacGroup}}},
	{noun: "clusterrole", aliases: []string{"clusterroles"}, kinds: []apiResource{{"clusterroles", rbacGroup}},
		cluster: true},
	{noun: "clusterrolebinding", aliases: []string{"clusterrolebindings"},
		kinds: []apiResource{{"clusterrolebindings", rbacGroup}}, cluster: true},
	{noun: "pvc", aliases: []string{"persistentvolumeclaim", "persistentvolumeclaims"},
		kinds: []apiResource{{"persistentvolumeclaims", ""}}},
	{noun: "gitops-application", kinds: []apiResource{
		{"applications", "argoproj.io"},
		{"kustomizations", "kustomize.toolkit.fluxcd.io"},
		{"helmreleases", "helm.toolkit.fluxcd.io"}},
		note: "Argo CD Application, Flux Kustomization or HelmRelease"},
	{noun: "iac-state", note: "IaC state lives in the IaC backend, outside the Kubernetes API"},
	{noun: "alert", note: "alert state lives in the alerting system, outside the Kubernetes API"},
	{noun: "trace", note: "traces live in the tracing backend, outside the Kubernetes API"},
	{noun: "dashboard", note: "dashboards live in the dashboard service, outside the Kubernetes API"},
	{noun: "external-credentials", credential: true,
		note: "credentials other than the agent's own (SI interface-types §4.4); authenticate only"},

	{noun: "statefulset", aliases: []string{"statefulsets", "sts"}, kinds: []apiResource{{"statefulsets", "apps"}},
		replicas: true, template: true, pods: podsOrdinal, ownerKind: "StatefulSet", extension: true},
	{noun: "daemonset", aliases: []string{"daemonsets", "ds"},
		kinds:    []apiResource{{"daemonsets", "apps"}, {"daemonsets", "extensions"}},
		template: true, pods: podsRandomSuffix, ownerKind: "DaemonSet", extension: true},
	{noun: "replicaset", aliases: []string{"replicasets", "rs"},
		kinds:    []apiResource{{"replicasets", "apps"}, {"replicasets", "extensions"}},
		replicas: true, pods: podsRandomSuffix, ownerKind: "ReplicaSet", extension: true},
	{noun: "job", aliases: []string{"jobs"}, kinds: []apiResource{{"jobs", "batch"}},
		pods: podsRandomSuffix, ownerKind: "Job", extension: true},
	{noun: "cronjob", aliases: []string{"cronjobs", "cj"}, kinds: []apiResource{{"cronjobs", "batch"}},
		extension: true},
	{noun: "serviceaccount", aliases: []string{"serviceaccounts", "sa"},
		kinds: []apiResource{{"serviceaccounts", ""}}, extension: true},
	{noun: "persistentvolume", aliases: []string{"persistentvolumes", "pv"},
		kinds: []apiResource{{"persistentvolumes", ""}}, cluster: true, extension: true},
	{noun: "event", aliases: []string{"events", "ev"},
		kinds: []apiResource{{"events", ""}, {"events", "events.k8s.io"}}, extension: true},
	{noun: "customresourcedefinition", aliases: []string{"customresourcedefinitions", "crd"},
		kinds: []apiResource{{"customresourcedefinitions", "apiextensions.k8s.io"}}, cluster: true,
		extension: true},
}

const rbacGroup = "rbac.authorization.k8s.io"

// metricsGroups are the API groups an observability query through the Kubernetes API reads.
var metricsGroups = []string{"metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"}

// lookupResource finds a noun or one of its aliases.
func lookupResource(s string) (*resourceSpec, bool) {
	for _, r := range resources {
		if r.noun == s {
			return r, true
		}
		for _, a := range r.aliases {
			if a == s {
				return r, true
			}
		}
	}
	return nil, false
}

// specOf finds the noun an audited resource belongs to. Unknown resources (custom resources
// outside the table) return nil.
func specOf(plural, group string, groupKnown bool) *resourceSpec {
	for _, r := range resources {
		for _, k := range r.kinds {
			if k.plural == plural && (!groupKnown || k.group == group) {
				return r
			}
		}
	}
	return nil
}

// nounSpec finds a noun by its own name only, not by its aliases.
func nounSpec(noun string) *resourceSpec {
	for _, r := range resources {
		if r.noun == noun {
			return r
		}
	}
	return nil
}

// observable reports whether the noun can appear in a Kubernetes audit event at all.
func (r *resourceSpec) observable() bool { return len(r.kinds) > 0 || r.credential }
