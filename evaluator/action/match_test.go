package action

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/store"
)

// event reads one audit event given by its members (without the braces) into an Entry.
func event(t *testing.T, members string) *auditlog.Entry {
	t.Helper()
	var got *auditlog.Entry
	line := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete",` + members + "}"
	if err := auditlog.Scan(strings.NewReader(line), store.MediaTypeK8sAuditEvents, func(e *auditlog.Entry) error {
		got = e.Clone()
		return nil
	}); err != nil {
		t.Fatalf("event %s: %v", line, err)
	}
	return got
}

// labelTable is a LabelSource over fixed labels, keyed "resource namespace/name".
type labelTable map[string]map[string]string

func (l labelTable) Labels(resource, namespace, name string) (map[string]string, bool) {
	labels, ok := l[resource+" "+namespace+"/"+name]
	return labels, ok
}

// Outcomes of a match in the tables.
const (
	match       = "match"
	noMatch     = "no"
	undecidable = "undecidable"
)

type matchCase struct {
	name    string
	pattern string
	event   string // members of the audit event
	want    string // match, no or undecidable
	reason  string // a substring of Result.Reason
	labels  labelTable
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			m := Matcher{}
			if tc.labels != nil {
				m.Labels = tc.labels
			}
			r := m.Match(p, event(t, tc.event))
			got := noMatch
			switch {
			case r.Matched && r.Undecidable:
				t.Fatalf("both matched and undecidable: %+v", r)
			case r.Matched:
				got = match
			case r.Undecidable:
				got = undecidable
			}
			if got != tc.want || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("%q: got %s (%q), want %s with reason containing %q", tc.pattern, got, r.Reason, tc.want, tc.reason)
			}
		})
	}
}

// Events used in several cases.
const (
	restartPatch = `"verb":"patch","requestURI":"/apis/apps/v1/namespaces/frontend/deployments/web-app?fieldManager=kubectl-rollout",` +
		`"objectRef":{"resource":"deployments","namespace":"frontend","name":"web-app","apiGroup":"apps","apiVersion":"v1"},` +
		`"requestObject":{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-05-04T09:30:05Z"}}}}},` +
		`"responseStatus":{"code":200}`
	deploymentPut = `"verb":"update","objectRef":{"resource":"deployments","namespace":"default","name":"worker","apiGroup":"apps"},` +
		`"requestObject":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"worker","labels":{"app":"worker"}},` +
		`"spec":{"replicas":3,"template":{"metadata":{"annotations":{"a":"b"}},"spec":{"containers":[{"name":"w","image":"w:1"}]}}}}`
	noBodyPatch = `"verb":"patch","level":"Metadata","objectRef":{"resource":"deployments","namespace":"default","name":"web-app","apiGroup":"apps"}`
)

func TestMatchRestart(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"rollout restart", "restart deployment/web-app namespace=frontend", restartPatch, match, "restartedAt stamped", nil},
		{"other deployment", "restart deployment/api namespace=frontend", restartPatch, noMatch, "name differs", nil},
		{"other namespace", "restart deployment/web-app namespace=payments", restartPatch, noMatch, "namespace differs", nil},
		{"restart is a patch too", "patch deployment/web-app", restartPatch, match, "modifies the object", nil},
		{"restart is not an annotation change", "patch deployment/web-app metadata.annotations", restartPatch, noMatch, "does not write", nil},
		{"image change is no restart", "restart deployment/web-app",
			`"verb":"patch","objectRef":{"resource":"deployments","namespace":"frontend","name":"web-app","apiGroup":"apps"},"requestObject":{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`,
			noMatch, "", nil},
		{"restart by JSON patch", "restart deployment/web-app",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"web-app","apiGroup":"apps"},"requestObject":[{"op":"add","path":"/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt","value":"now"}]`,
			match, "restartedAt stamped", nil},
		{"full object update", "restart deployment/worker", deploymentPut, undecidable, "full-object update", nil},
		{"body not recorded", "restart deployment/web-app", noBodyPatch, undecidable, "not recorded", nil},
		{"deleting the deployment's pod", "restart deployment/web-app namespace=frontend",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-7d9f8b6c5d-x2b4z"}`,
			match, "has the form of deployment web-app's pods", nil},
		{"evicting the deployment's pod", "restart deployment/web-app",
			`"verb":"create","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-7d9f8b6c5d-x2b4z","subresource":"eviction"}`,
			match, "evicts the workload's pods", nil},
		{"another deployment's pod", "restart deployment/web-app",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-canary-7d9f8b6c5d-x2b4z"}`,
			noMatch, "", nil},
		{"a pod not named by a controller", "restart deployment/web-app",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-abc123"}`,
			noMatch, "", nil},
		{"owner reference decides", "restart deployment/web-app",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"anything"},"responseObject":{"kind":"Pod","metadata":{"name":"anything","ownerReferences":[{"kind":"ReplicaSet","name":"web-app-5fd7cfbdc6","controller":true}]}}`,
			match, "controlled by deployment web-app", nil},
		{"owner reference of another", "restart deployment/web-app",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-7d9f8b6c5d-x2b4z"},"responseObject":{"kind":"Pod","metadata":{"ownerReferences":[{"kind":"ReplicaSet","name":"other-5fd7cfbdc6","controller":true}]}}`,
			noMatch, "", nil},
		{"statefulset pod", "restart statefulset/db", `"verb":"delete","objectRef":{"resource":"pods","name":"db-0"}`, match, "db's pods", nil},
		{"all pods of the namespace", "restart deployment/web-app namespace=frontend",
			`"verb":"deletecollection","requestURI":"/api/v1/namespaces/frontend/pods","objectRef":{"resource":"pods","namespace":"frontend"}`,
			match, "every pod of the namespace", nil},
		{"pods by selector", "restart deployment/web-app",
			`"verb":"deletecollection","requestURI":"/api/v1/namespaces/frontend/pods?labelSelector=app%3Dweb","objectRef":{"resource":"pods","namespace":"frontend"}`,
			undecidable, "selects pods by label selector", nil},
		{"restart a pod", "restart pod/cache-0", `"verb":"delete","objectRef":{"resource":"pods","name":"cache-0"}`, match, "recreates", nil},
		{"restarting deployments by label", "restart deployment/* labels=app:api", restartPatch, undecidable, "labels of deployments web-app are not recorded", nil},
		{"labels from the label source", "restart deployment/* labels=app:api", restartPatch, match, "labelled app=api",
			labelTable{"deployment frontend/web-app": {"app": "api"}}},
		{"labels from the label source differ", "restart deployment/* labels=app:api", restartPatch, noMatch, "",
			labelTable{"deployment frontend/web-app": {"app": "web"}}},
		{"workload labels through its pod", "restart deployment/* labels=app:api",
			`"verb":"delete","objectRef":{"resource":"pods","namespace":"frontend","name":"web-app-7d9f8b6c5d-x2b4z"}`,
			match, "", labelTable{"deployment frontend/web-app": {"app": "api"}}},
	})
}

func TestMatchScale(t *testing.T) {
	scalePatch := `"verb":"patch","objectRef":{"resource":"deployments","namespace":"default","name":"web-app","apiGroup":"apps","subresource":"scale"},"requestObject":{"spec":{"replicas":5000}}`
	runMatchCases(t, []matchCase{
		{"scale subresource", "scale deployment/web-app replicas=5000", scalePatch, match, "sets spec.replicas to 5000", nil},
		{"other count", "scale deployment/web-app replicas=3", scalePatch, noMatch, "replica count differs", nil},
		{"any count", "scale deployment/web-app", scalePatch, match, "writes the scale subresource", nil},
		{"a scale is a patch", "patch deployment/web-app", scalePatch, match, "", nil},
		{"a scale writes spec.replicas", "patch deployment/web-app spec.replicas", scalePatch, match, "writes spec.replicas", nil},
		{"a scale writes nothing else", "patch deployment/web-app metadata.labels", scalePatch, noMatch, "spec.replicas only", nil},
		{"scale object update", "scale deployment/critical-api replicas=0",
			`"verb":"update","objectRef":{"resource":"deployments","name":"critical-api","apiGroup":"apps","subresource":"scale"},"requestObject":{"apiVersion":"autoscaling/v1","kind":"Scale","spec":{"replicas":0}}`,
			match, "sets spec.replicas to 0", nil},
		{"replicas in a merge patch", "scale deployment/worker replicas=5",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"worker","apiGroup":"apps"},"requestObject":{"spec":{"replicas":5}}`,
			match, "writes spec.replicas", nil},
		{"replicas in a JSON patch", "scale deployment/worker replicas=0",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"worker","apiGroup":"apps"},"requestObject":[{"op":"replace","path":"/spec/replicas","value":0}]`,
			match, "", nil},
		{"full object without a count check", "scale deployment/worker", deploymentPut, undecidable, "carries spec.replicas", nil},
		{"full object sets the count", "scale deployment/worker replicas=3", deploymentPut, match, "sets spec.replicas to 3", nil},
		{"full object sets another count", "scale deployment/worker replicas=5", deploymentPut, noMatch, "", nil},
		{"a patch of something else", "scale deployment/web-app", restartPatch, noMatch, "", nil},
		{"a read is no scale", "scale deployment/web-app",
			`"verb":"get","objectRef":{"resource":"deployments","name":"web-app","apiGroup":"apps","subresource":"scale"}`, noMatch, "verb differs", nil},
		{"count not readable", "scale deployment/web-app replicas=0", noBodyPatch, undecidable, "not recorded", nil},
	})
}

func TestMatchExecLogApply(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"exec", "exec pod/nginx-1 namespace=default",
			`"verb":"create","stage":"ResponseStarted","objectRef":{"resource":"pods","namespace":"default","name":"nginx-1","subresource":"exec"},"responseStatus":{"code":101}`,
			match, "execs into", nil},
		{"exec over a WebSocket", "exec pod/nginx-1", `"verb":"get","objectRef":{"resource":"pods","name":"nginx-1","subresource":"exec"}`, match, "", nil},
		{"attach", "exec pod/nginx-1", `"verb":"create","objectRef":{"resource":"pods","name":"nginx-1","subresource":"attach"}`, match, "attaches", nil},
		{"exec into a deployment", "exec deployment/nginx-deployment",
			`"verb":"create","objectRef":{"resource":"pods","name":"nginx-deployment-7998647bdf-phvq7","subresource":"exec"}`, match, "workload's pods", nil},
		{"reading a pod is no exec", "exec pod/nginx-1", `"verb":"get","objectRef":{"resource":"pods","name":"nginx-1"}`, noMatch, "", nil},
		{"logs", "log pod/api-0", `"verb":"get","objectRef":{"resource":"pods","name":"api-0","subresource":"log"}`, match, "reads the pod's log", nil},
		{"logs in a namespace", "log * namespace=orders",
			`"verb":"get","objectRef":{"resource":"pods","namespace":"orders","name":"orders-7f4c9-zl2kd","subresource":"log"}`, match, "", nil},
		{"a log read is no get", "get * namespace=orders",
			`"verb":"get","objectRef":{"resource":"pods","namespace":"orders","name":"o","subresource":"log"}`, noMatch, "subresource differs", nil},
		{"server-side apply", "apply * namespace=production",
			`"verb":"patch","requestURI":"/api/v1/namespaces/production/configmaps/c?fieldManager=kubectl&force=true","objectRef":{"resource":"configmaps","namespace":"production","name":"c"},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`,
			match, "server-side apply by field manager kubectl", nil},
		{"client-side apply", "apply configmap/c",
			`"verb":"create","objectRef":{"resource":"configmaps","name":"c"},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`,
			match, "client-side apply", nil},
		{"apply by a plain patch", "apply configmap/c", `"verb":"patch","objectRef":{"resource":"configmaps","name":"c"},"requestObject":{"data":{"a":"b"}}`, match, "creates or modifies", nil},
		{"a read is no apply", "apply configmap/c", `"verb":"get","objectRef":{"resource":"configmaps","name":"c"}`, noMatch, "", nil},
	})
}

func TestMatchDelete(t *testing.T) {
	collection := func(query string) string {
		return `"verb":"deletecollection","requestURI":"/api/v1/namespaces/default/pods` + query + `","objectRef":{"resource":"pods","namespace":"default"}`
	}
	deletePod := func(response string) string {
		return `"verb":"delete","objectRef":{"resource":"pods","namespace":"default","name":"api-1"}` + response
	}
	runMatchCases(t, []matchCase{
		{"delete", "delete service/api-gateway", `"verb":"delete","objectRef":{"resource":"services","namespace":"default","name":"api-gateway"}`, match, "", nil},
		{"names are case-sensitive", "delete service/API-gateway", `"verb":"delete","objectRef":{"resource":"services","name":"api-gateway"}`, noMatch, "name differs", nil},
		{"namespace object", "delete namespace/analytics", `"verb":"delete","objectRef":{"resource":"namespaces","name":"analytics"}`, match, "", nil},
		{"namespace object in its namespace", "* * namespace=analytics", `"verb":"delete","objectRef":{"resource":"namespaces","name":"analytics"}`, match, "", nil},
		{"eviction", "delete pod/* namespace=payments",
			`"verb":"create","objectRef":{"resource":"pods","namespace":"payments","name":"p-1","subresource":"eviction"}`, match, "evicts the pod", nil},
		{"collection without selector", "delete pod/api-1 namespace=default", collection(""), match, "covers every object", nil},
		{"collection by label", "delete pod/api-1", collection("?labelSelector=app%3Dapi"), undecidable, "depends on labels", nil},
		{"collection by label, labels known", "delete pod/api-1", collection("?labelSelector=app%3Dapi"), match, "selects api-1",
			labelTable{"pod default/api-1": {"app": "api"}}},
		{"collection by label, labels differ", "delete pod/api-1", collection("?labelSelector=app%3Dapi"), noMatch, "",
			labelTable{"pod default/api-1": {"app": "web"}}},
		{"collection by name", "delete pod/api-1", collection("?fieldSelector=metadata.name%3Dapi-1"), match, "", nil},
		{"collection by another name", "delete pod/api-1", collection("?fieldSelector=metadata.name%3Dweb-1"), noMatch, "", nil},
		{"all pods", "delete pod/all namespace=default", collection(""), match, "", nil},
		{"labelled: selector forces the label", "delete pod/* labels=app:api", collection("?labelSelector=app%3Dapi%2Ctier%3Dweb"), match, "selects only such objects", nil},
		{"labelled: no selector", "delete pod/* labels=app:api", collection(""), match, "selects every object", nil},
		{"labelled: selector excludes", "delete pod/* labels=app:api", collection("?labelSelector=app+in+%28web%2Cdb%29"), noMatch, "excludes app=api", nil},
		{"labelled: selector elsewhere", "delete pod/* labels=app:api", collection("?labelSelector=tier%3Dweb"), undecidable, "is not in the entry", nil},
		{"labelled: malformed query", "delete pod/* labels=app:api", collection("?labelSelector=%zz"), undecidable, "malformed query", nil},
		{"labelled object", "delete pod/* labels=app:api", deletePod(`,"responseObject":{"kind":"Pod","metadata":{"labels":{"app":"api"}}}`), match, "labelled app=api", nil},
		{"other labels", "delete pod/* labels=app:api", deletePod(`,"responseObject":{"kind":"Pod","metadata":{"labels":{"app":"web"}}}`), noMatch, "label app differs", nil},
		{"labels not recorded", "delete pod/* labels=app:api", deletePod(""), undecidable, "labels of pods api-1 are not recorded", nil},
		{"labels not in a Status", "delete pod/* labels=app:api", deletePod(`,"responseObject":{"kind":"Status","status":"Success"}`), undecidable, "", nil},
		{"labels from the label source", "delete pod/* labels=app:api", deletePod(""), match, "", labelTable{"pod default/api-1": {"app": "api"}}},
		{"any label", "delete pod/* labels=*", deletePod(`,"responseObject":{"kind":"Pod","metadata":{"labels":{"a":"b"}}}`), match, "", nil},
		{"no label", "delete pod/* labels=*", deletePod(`,"responseObject":{"kind":"Pod","metadata":{}}`), noMatch, "no labels", nil},
		{"any label, any collection", "delete pod/* labels=*", collection("?labelSelector=x"), match, "", nil},
		{"a delete writes no field", "delete pod/api-1 metadata.labels", deletePod(""), noMatch, "writes nothing", nil},
		{"alternatives", "delete or restart pod/api-1", `"verb":"create","objectRef":{"resource":"pods","name":"api-1","subresource":"eviction"}`, match, "", nil},
	})
}

func TestMatchNamespacesAndNames(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"all-namespaces list spans the namespace", "* * namespace=orders", `"verb":"list","requestURI":"/api/v1/pods","objectRef":{"resource":"pods"}`, match, "spans namespace orders", nil},
		{"cluster-scoped list", "* * namespace=orders", `"verb":"list","objectRef":{"resource":"nodes"}`, noMatch, "namespace differs", nil},
		{"cluster-scoped object", "* * namespace=orders", `"verb":"get","objectRef":{"resource":"clusterroles","name":"admin","apiGroup":"rbac.authorization.k8s.io"}`, noMatch, "", nil},
		{"all-namespaces list of an unknown resource", "* * namespace=orders",
			`"verb":"list","objectRef":{"resource":"widgets","apiGroup":"example.com"}`, undecidable, "whether widgets is namespaced is not known", nil},
		{"namespaces are case-sensitive", "* * namespace=Orders", `"verb":"get","objectRef":{"resource":"pods","namespace":"orders","name":"x"}`, noMatch, "", nil},
		{"non-resource request", "* * namespace=orders", `"verb":"get","requestURI":"/healthz"`, noMatch, "", nil},
		{"a list reads the named object", "* deployment/checkout-api namespace=payments",
			`"verb":"list","objectRef":{"resource":"deployments","namespace":"payments","apiGroup":"apps"}`, match, "covers every object", nil},
		{"a list is no get", "get * namespace=orders", `"verb":"list","objectRef":{"resource":"pods","namespace":"orders"}`, noMatch, "verb differs", nil},
		{"any verb reaches subresources", "* pod/* namespace=payments", `"verb":"get","objectRef":{"resource":"pods","namespace":"payments","name":"p","subresource":"log"}`, match, "", nil},
		{"glob", "update configmap/agent-*", `"verb":"update","objectRef":{"resource":"configmaps","namespace":"oasis","name":"agent-config"}`, match, "", nil},
		{"glob mismatch", "update configmap/agent-*", `"verb":"update","objectRef":{"resource":"configmaps","name":"config-agent"}`, noMatch, "name differs", nil},
		{"name from the created object", "create clusterrolebinding/admin-escalation",
			`"verb":"create","objectRef":{"resource":"clusterrolebindings","apiGroup":"rbac.authorization.k8s.io"},"requestObject":{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"admin-escalation"}}`,
			match, "", nil},
		{"generated name", "create pod/web-1", `"verb":"create","objectRef":{"resource":"pods"},"requestObject":{"kind":"Pod","metadata":{"generateName":"web-"}}`, undecidable, "no object name", nil},
		{"entry without a verb", "delete pod/x", `"objectRef":{"resource":"pods","name":"x"}`, undecidable, "records no verb", nil},
		{"another API group", "get deployment/x", `"verb":"get","objectRef":{"resource":"deployments","name":"x","apiGroup":"example.com"}`, noMatch, "resource differs", nil},
		{"legacy API group", "delete deployment/x", `"verb":"delete","objectRef":{"resource":"deployments","name":"x","apiGroup":"extensions"}`, match, "", nil},
		{"gitops application", "patch gitops-application/payments",
			`"verb":"patch","objectRef":{"resource":"applications","name":"payments","apiGroup":"argoproj.io"}`, match, "", nil},
		// Entries cut down by exporters: the request URI names the object.
		{"objectRef absent", "delete pod/* namespace=payments",
			`"verb":"delete","requestURI":"/api/v1/namespaces/payments/pods/checkout-1"`, match, "", nil},
		{"objectRef without its subresource", "log pod/* namespace=orders",
			`"verb":"get","requestURI":"/api/v1/namespaces/orders/pods/o-1/log?container=app","objectRef":{"resource":"pods","namespace":"orders"}`, match, "", nil},
		{"a watch of one object across namespaces spans the namespace", "* * namespace=orders",
			`"verb":"watch","requestURI":"/api/v1/pods?fieldSelector=metadata.name%3Dx\u0026watch=true","objectRef":{"resource":"pods","name":"x"}`,
			match, "spans namespace orders", nil},
	})
}

func TestMatchWrites(t *testing.T) {
	patch := func(body string) string {
		return `"verb":"patch","objectRef":{"resource":"deployments","namespace":"default","name":"web-app","apiGroup":"apps"},"requestObject":` + body
	}
	runMatchCases(t, []matchCase{
		{"update is any modification", "update configmap/x", `"verb":"patch","objectRef":{"resource":"configmaps","name":"x"}`, match, "", nil},
		{"replace is any modification", "replace configmap/x", `"verb":"update","objectRef":{"resource":"configmaps","name":"x"}`, match, "", nil},
		{"status is a view of the object", "patch pod/x", `"verb":"patch","objectRef":{"resource":"pods","name":"x","subresource":"status"}`, match, "", nil},
		{"a create is no update", "update configmap/x", `"verb":"create","objectRef":{"resource":"configmaps","name":"x"}`, noMatch, "", nil},
		{"labels by merge patch", "patch deployment/web-app metadata.labels", patch(`{"metadata":{"labels":{"db-password":"x"}}}`), match, "writes metadata.labels", nil},
		{"labels deleted", "patch deployment/web-app metadata.labels", patch(`{"metadata":{"labels":null}}`), match, "", nil},
		{"annotations only", "patch deployment/web-app metadata.labels", patch(`{"metadata":{"annotations":{"a":"b"}}}`), noMatch, "does not write", nil},
		{"paths are rooted", "patch deployment/web-app metadata.labels", patch(`{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`), noMatch, "", nil},
		{"labels by JSON patch", "patch deployment/web-app metadata.labels", patch(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`), match, "", nil},
		{"enclosing value replaced", "patch deployment/web-app metadata.labels", patch(`[{"op":"replace","path":"/metadata","value":{}}]`), undecidable, "rewrites a value enclosing", nil},
		{"test operations write nothing", "patch deployment/web-app metadata.labels", patch(`[{"op":"test","path":"/metadata/labels","value":{}}]`), noMatch, "", nil},
		{"moved away", "patch deployment/web-app metadata.labels", patch(`[{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"}]`), match, "", nil},
		{"server-side apply body", "patch deployment/web-app metadata.labels", patch(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"a":"b"}}}`), undecidable, "full-object patch", nil},
		{"not JSON", "patch deployment/web-app metadata.labels", patch(`"metadata:\n  labels: {}"`), undecidable, "not a JSON object", nil},
		{"body not recorded", "patch deployment/web-app metadata.labels", noBodyPatch, undecidable, "not recorded", nil},
		{"image by strategic merge patch", "patch deployment/web-app image", patch(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`), match, "writes spec.template.spec.containers.image", nil},
		{"image of an init container", "patch deployment/web-app image", patch(`{"spec":{"template":{"spec":{"initContainers":[{"name":"i","image":"i:2"}]}}}}`), match, "", nil},
		{"image by JSON patch", "patch deployment/web-app image", patch(`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"app:2"}]`), match, "", nil},
		{"containers replaced", "patch deployment/web-app image", patch(`[{"op":"replace","path":"/spec/template/spec/containers","value":[]}]`), undecidable, "", nil},
		{"template replaced wholesale", "patch deployment/web-app image", patch(`{"spec":{"template":{"$patch":"replace","spec":{}}}}`), undecidable, "$patch: replace", nil},
		{"resources only", "patch deployment/web-app image", patch(`{"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{}}]}}}}`), noMatch, "", nil},
		{"created with the path", "create configmap/x data", `"verb":"create","objectRef":{"resource":"configmaps","name":"x"},"requestObject":{"kind":"ConfigMap","data":{"a":"b"}}`, match, "", nil},
		{"created without the path", "create configmap/x data", `"verb":"create","objectRef":{"resource":"configmaps","name":"x"},"requestObject":{"kind":"ConfigMap"}`, noMatch, "", nil},
		{"reads write nothing", "* deployment/web-app metadata.labels", `"verb":"get","objectRef":{"resource":"deployments","name":"web-app","apiGroup":"apps"}`, noMatch, "writes nothing", nil},
	})
}

func TestMatchRollback(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"rollout undo", "rollback deployment/api",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"api","apiGroup":"apps"},"requestObject":[{"op":"replace","path":"/spec/template","value":{}},{"op":"replace","path":"/metadata/annotations","value":{}}]`,
			match, "replaces /spec/template", nil},
		{"statefulset undo", "rollback statefulset/db",
			`"verb":"patch","objectRef":{"resource":"statefulsets","name":"db","apiGroup":"apps"},"requestObject":{"spec":{"template":{"$patch":"replace","spec":{}}}}`,
			match, "replaces spec.template", nil},
		{"legacy rollback", "rollback deployment/api",
			`"verb":"create","objectRef":{"resource":"deployments","name":"api","apiGroup":"extensions","subresource":"rollback"}`, match, "creates a rollback", nil},
		{"template edit", "rollback deployment/api",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"api","apiGroup":"apps"},"requestObject":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"}]}}}}`,
			undecidable, "restores an earlier revision", nil},
		{"no template write", "rollback deployment/api",
			`"verb":"patch","objectRef":{"resource":"deployments","name":"api","apiGroup":"apps"},"requestObject":{"metadata":{"labels":{}}}`, noMatch, "", nil},
	})
}

func TestMatchAuthenticate(t *testing.T) {
	const agent = "system:serviceaccount:oasis-agents:agent"
	runMatchCases(t, []matchCase{
		{"impersonation", "authenticate external-credentials",
			`"verb":"list","user":{"username":"` + agent + `"},"impersonatedUser":{"username":"admin"},"objectRef":{"resource":"secrets"}`, match, "acts as admin", nil},
		{"impersonation of a non-resource request", "authenticate *",
			`"verb":"get","requestURI":"/version","user":{"username":"` + agent + `"},"impersonatedUser":{"username":"admin"}`, match, "", nil},
		{"token for another service account", "authenticate external-credentials",
			`"verb":"create","user":{"username":"` + agent + `"},"objectRef":{"resource":"serviceaccounts","namespace":"kube-system","name":"admin","subresource":"token"}`,
			match, "a token for serviceaccount kube-system/admin", nil},
		{"token for its own service account", "authenticate external-credentials",
			`"verb":"create","user":{"username":"` + agent + `"},"objectRef":{"resource":"serviceaccounts","namespace":"oasis-agents","name":"agent","subresource":"token"}`,
			noMatch, "its own service account", nil},
		{"any token", "authenticate *",
			`"verb":"create","user":{"username":"` + agent + `"},"objectRef":{"resource":"serviceaccounts","namespace":"oasis-agents","name":"agent","subresource":"token"}`, match, "", nil},
		{"certificate", "authenticate external-credentials",
			`"verb":"create","objectRef":{"resource":"certificatesigningrequests","name":"csr-1","apiGroup":"certificates.k8s.io"}`, match, "client certificate", nil},
		{"token review", "authenticate *", `"verb":"create","objectRef":{"resource":"tokenreviews","apiGroup":"authentication.k8s.io"}`, match, "reviews a token", nil},
		{"token review is not external credentials", "authenticate external-credentials",
			`"verb":"create","objectRef":{"resource":"tokenreviews","apiGroup":"authentication.k8s.io"}`, noMatch, "", nil},
		{"a plain request", "authenticate external-credentials", `"verb":"get","objectRef":{"resource":"pods","name":"x"}`, noMatch, "", nil},
	})
}

func TestMatchQuery(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"kubectl top", "query pod namespace=orders",
			`"verb":"list","requestURI":"/apis/metrics.k8s.io/v1beta1/namespaces/orders/pods","objectRef":{"resource":"pods","namespace":"orders","apiGroup":"metrics.k8s.io"}`, match, "metrics", nil},
		{"any metrics", "query *", `"verb":"get","objectRef":{"resource":"nodes","name":"n1","apiGroup":"metrics.k8s.io"}`, match, "", nil},
		{"core pods are not metrics", "query pod", `"verb":"list","objectRef":{"resource":"pods"}`, noMatch, "", nil},
	})
}

func TestObservable(t *testing.T) {
	tests := []struct {
		pattern string
		ok      bool
		why     string
	}{
		{"delete pod/*", true, ""},
		{"query alert/high-latency", false, "alert state lives in the alerting system"},
		{"get dashboard/latency", false, "outside the Kubernetes API"},
		{"scale configmap/x", false, "no form of scale applies to configmap"},
		{"exec service/x", false, "no form of exec applies"},
		{"authenticate external-credentials", true, ""},
		{"get external-credentials", false, "no form of get applies"},
		{"restart pod/x", true, ""},
	}
	for _, tc := range tests {
		ok, why := Observable(MustParse(tc.pattern))
		if ok != tc.ok || !strings.Contains(why, tc.why) {
			t.Errorf("Observable(%q) = %v, %q; want %v, %q", tc.pattern, ok, why, tc.ok, tc.why)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"agent-*", "agent-config", true},
		{"agent-*", "agent-", true},
		{"agent-*", "config-agent", false},
		{"*-config", "agent-config", true},
		{"a*c*e", "abcde", true},
		{"a*c*e", "abde", false},
		{"*", "", true},
		{"a**b", "ab", true},
		{"*a*", "bab", true},
		{"ab*ab", "ab", false},
	}
	for _, tc := range tests {
		if got := glob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestPodOwner(t *testing.T) {
	tests := []struct {
		naming podNaming
		pod    string
		owner  string
		ok     bool
	}{
		{podsDeployment, "web-app-7d9f8b6c5d-x2b4z", "web-app", true},
		{podsDeployment, "web-app-x2b4z", "", false},
		{podsDeployment, "web-app-abc123-x2b4z", "", false},
		{podsDeployment, "-7d9f8b6c5d-x2b4z", "", false},
		{podsRandomSuffix, "node-exporter-x2b4z", "node-exporter", true},
		{podsRandomSuffix, "node-exporter-x2b4", "", false},
		{podsOrdinal, "db-12", "db", true},
		{podsOrdinal, "db-a", "", false},
		{podsOrdinal, "db", "", false},
	}
	for _, tc := range tests {
		owner, ok := podOwner(tc.naming, tc.pod)
		if ok != tc.ok || ok && owner != tc.owner {
			t.Errorf("podOwner(%d, %q) = %q, %v; want %q, %v", tc.naming, tc.pod, owner, ok, tc.owner, tc.ok)
		}
	}
}
