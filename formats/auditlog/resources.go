package auditlog

import "strings"

// The resources of the built-in Kubernetes API, as discovery lists them (kubectl api-resources,
// Kubernetes 1.31, plus the extensions group of older clusters). Audit events name a resource
// by its plural; the SI provider guide's entry shape may name it the way kubectl and the OASIS
// action grammar accept it: singular, kind or short name ("deployment", "Deployment",
// "deploy"). The reader turns those into the plural, so that every consumer compares one
// spelling. Custom resources are not listed: their names are kept as written, and their scope
// is unknown.

// builtinResource is one built-in resource.
type builtinResource struct {
	plural   string
	singular string // the kind, lowercased
	short    []string
	groups   []string // the API groups that serve it; "" is the core group
	cluster  bool     // cluster-scoped
}

var builtinResources = []builtinResource{
	// The core group.
	{"bindings", "binding", nil, core, false},
	{"componentstatuses", "componentstatus", []string{"cs"}, core, true},
	{"configmaps", "configmap", []string{"cm"}, core, false},
	{"endpoints", "endpoints", []string{"ep"}, core, false},
	{"events", "event", []string{"ev"}, []string{"", "events.k8s.io"}, false},
	{"limitranges", "limitrange", []string{"limits"}, core, false},
	{"namespaces", "namespace", []string{"ns"}, core, true},
	{"nodes", "node", []string{"no"}, core, true},
	{"persistentvolumeclaims", "persistentvolumeclaim", []string{"pvc"}, core, false},
	{"persistentvolumes", "persistentvolume", []string{"pv"}, core, true},
	{"pods", "pod", []string{"po"}, core, false},
	{"podtemplates", "podtemplate", nil, core, false},
	{"replicationcontrollers", "replicationcontroller", []string{"rc"}, core, false},
	{"resourcequotas", "resourcequota", []string{"quota"}, core, false},
	{"secrets", "secret", nil, core, false},
	{"serviceaccounts", "serviceaccount", []string{"sa"}, core, false},
	{"services", "service", []string{"svc"}, core, false},
	// Named groups.
	{"mutatingwebhookconfigurations", "mutatingwebhookconfiguration", nil, []string{"admissionregistration.k8s.io"}, true},
	{"validatingwebhookconfigurations", "validatingwebhookconfiguration", nil, []string{"admissionregistration.k8s.io"}, true},
	{"validatingadmissionpolicies", "validatingadmissionpolicy", nil, []string{"admissionregistration.k8s.io"}, true},
	{"validatingadmissionpolicybindings", "validatingadmissionpolicybinding", nil, []string{"admissionregistration.k8s.io"}, true},
	{"customresourcedefinitions", "customresourcedefinition", []string{"crd", "crds"}, []string{"apiextensions.k8s.io"}, true},
	{"apiservices", "apiservice", nil, []string{"apiregistration.k8s.io"}, true},
	{"controllerrevisions", "controllerrevision", nil, []string{"apps"}, false},
	{"daemonsets", "daemonset", []string{"ds"}, []string{"apps", "extensions"}, false},
	{"deployments", "deployment", []string{"deploy"}, []string{"apps", "extensions"}, false},
	{"replicasets", "replicaset", []string{"rs"}, []string{"apps", "extensions"}, false},
	{"statefulsets", "statefulset", []string{"sts"}, []string{"apps"}, false},
	{"selfsubjectreviews", "selfsubjectreview", nil, []string{"authentication.k8s.io"}, true},
	{"tokenreviews", "tokenreview", nil, []string{"authentication.k8s.io"}, true},
	{"localsubjectaccessreviews", "localsubjectaccessreview", nil, []string{"authorization.k8s.io"}, false},
	{"selfsubjectaccessreviews", "selfsubjectaccessreview", nil, []string{"authorization.k8s.io"}, true},
	{"selfsubjectrulesreviews", "selfsubjectrulesreview", nil, []string{"authorization.k8s.io"}, true},
	{"subjectaccessreviews", "subjectaccessreview", nil, []string{"authorization.k8s.io"}, true},
	{"horizontalpodautoscalers", "horizontalpodautoscaler", []string{"hpa"}, []string{"autoscaling"}, false},
	{"cronjobs", "cronjob", []string{"cj"}, []string{"batch"}, false},
	{"jobs", "job", nil, []string{"batch"}, false},
	{"certificatesigningrequests", "certificatesigningrequest", []string{"csr"}, []string{"certificates.k8s.io"}, true},
	{"clustertrustbundles", "clustertrustbundle", nil, []string{"certificates.k8s.io"}, true},
	{"leases", "lease", nil, []string{"coordination.k8s.io"}, false},
	{"endpointslices", "endpointslice", nil, []string{"discovery.k8s.io"}, false},
	{"flowschemas", "flowschema", nil, []string{"flowcontrol.apiserver.k8s.io"}, true},
	{"prioritylevelconfigurations", "prioritylevelconfiguration", nil, []string{"flowcontrol.apiserver.k8s.io"}, true},
	{"ingressclasses", "ingressclass", nil, []string{"networking.k8s.io"}, true},
	{"ingresses", "ingress", []string{"ing"}, []string{"networking.k8s.io", "extensions"}, false},
	{"networkpolicies", "networkpolicy", []string{"netpol"}, []string{"networking.k8s.io", "extensions"}, false},
	{"runtimeclasses", "runtimeclass", nil, []string{"node.k8s.io"}, true},
	{"poddisruptionbudgets", "poddisruptionbudget", []string{"pdb"}, []string{"policy"}, false},
	{"podsecuritypolicies", "podsecuritypolicy", []string{"psp"}, []string{"policy", "extensions"}, true},
	{"clusterrolebindings", "clusterrolebinding", nil, []string{rbacGroup}, true},
	{"clusterroles", "clusterrole", nil, []string{rbacGroup}, true},
	{"rolebindings", "rolebinding", nil, []string{rbacGroup}, false},
	{"roles", "role", nil, []string{rbacGroup}, false},
	{"priorityclasses", "priorityclass", []string{"pc"}, []string{"scheduling.k8s.io"}, true},
	{"csidrivers", "csidriver", nil, []string{"storage.k8s.io"}, true},
	{"csinodes", "csinode", nil, []string{"storage.k8s.io"}, true},
	{"csistoragecapacities", "csistoragecapacity", nil, []string{"storage.k8s.io"}, false},
	{"storageclasses", "storageclass", []string{"sc"}, []string{"storage.k8s.io"}, true},
	{"volumeattachments", "volumeattachment", nil, []string{"storage.k8s.io"}, true},
	{"deviceclasses", "deviceclass", nil, []string{"resource.k8s.io"}, true},
	{"resourceclaims", "resourceclaim", nil, []string{"resource.k8s.io"}, false},
	{"resourceclaimtemplates", "resourceclaimtemplate", nil, []string{"resource.k8s.io"}, false},
	{"resourceslices", "resourceslice", nil, []string{"resource.k8s.io"}, true},
}

var core = []string{""}

const rbacGroup = "rbac.authorization.k8s.io"

// resourceNames maps every way of naming a built-in resource (plural, singular, short name)
// to its plural.
var resourceNames = func() map[string]string {
	m := map[string]string{}
	for _, r := range builtinResources {
		m[r.plural], m[r.singular] = r.plural, r.plural
		for _, s := range r.short {
			m[s] = r.plural
		}
	}
	return m
}()

// pluralOf returns the plural of a built-in resource named by its plural, singular, kind or
// short name, in any letter case, and whether it is one.
func pluralOf(name string) (string, bool) {
	if p, ok := resourceNames[name]; ok {
		return p, true
	}
	p, ok := resourceNames[strings.ToLower(name)]
	return p, ok
}

// builtinGroups are the API groups of the built-in API.
var builtinGroups = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range builtinResources {
		for _, g := range r.groups {
			m[g] = true
		}
	}
	return m
}()

// ResourceScope reports whether a built-in resource (by plural, in the given API group when
// groupKnown) is cluster-scoped. known is false for resources outside the built-in API, custom
// resources among them, whose scope an audit entry does not record.
func ResourceScope(plural, group string, groupKnown bool) (cluster, known bool) {
	if groupKnown && !builtinGroups[group] {
		return false, false
	}
	for _, r := range builtinResources {
		if r.plural == plural {
			return r.cluster, true
		}
	}
	return false, false
}

// subresourceNames are the subresources of the built-in API. A provider entry that writes
// "pods/log" names a subresource, as RBAC rules and audit policies write it.
var subresourceNames = []string{"approval", "attach", "binding", "ephemeralcontainers", "eviction",
	"exec", "finalize", "log", "portforward", "proxy", "resize", "rollback", "scale", "status", "token"}
