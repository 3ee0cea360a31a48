package auditgen

import (
	"strconv"
	"strings"
)

// template is one kind of event and how often it occurs, relative to the others.
type template struct {
	weight int
	build  func(g *Generator, ev *event)
}

// templates is the event mix. Weights are per mille and add up to 1000; they follow the shape of
// real audit logs, where lease renewals, kubelet reads and controller list/watch traffic dwarf
// the writes anyone cares about.
var templates = []template{
	{200, nodeLease},
	{60, controlPlaneLease},
	{110, kubeletRead},
	{100, controllerWatch},
	{50, controllerList},
	{90, eventPatch},
	{25, eventCreate},
	{60, podStatusPatch},
	{30, tokenRequest},
	{35, hpaScaleRead},
	{15, hpaStatusUpdate},
	{40, endpointSliceUpdate},
	{15, schedulerBinding},
	{10, replicaSetCreatesPod},
	{15, provisioner},
	{60, agentRead},
	{15, agentGetDeployment},
	{20, agentWrite},
	{5, agentForbidden},
	{5, adminApply},
	{15, subjectAccessReview},
	{15, corednsWatch},
	{5, notFound},
}

const (
	nodeReason  = ""
	rbacPrefix  = "RBAC: allowed by ClusterRoleBinding "
	agentReason = `RBAC: allowed by RoleBinding "oasis-agent-edit/oasis-eval" of ClusterRole "edit" to ServiceAccount "oasis-agent/oasis-eval"`
)

func (g *Generator) workload() *workload {
	return &g.cluster.workloads[g.rng.IntN(len(g.cluster.workloads))]
}

// appWorkload picks a workload in an application namespace.
func (g *Generator) appWorkload() *workload {
	for {
		if w := g.workload(); !w.system {
			return w
		}
	}
}

func (g *Generator) kubelet() *principal {
	return &g.cluster.kubelets[g.rng.IntN(len(g.cluster.kubelets))]
}

func (g *Generator) podOf(w *workload) (name, uid string) {
	i := g.rng.IntN(len(w.pods))
	return w.pods[i], w.podUIDs[i]
}

func (g *Generator) nextRV() string {
	g.rv += 1 + g.rng.Int64N(25)
	return strconv.FormatInt(g.rv, 10)
}

// latency returns a request latency between 0.3 ms and maxMillis ms, in microseconds.
func (g *Generator) latency(maxMillis int64) int64 { return 300 + g.rng.Int64N(maxMillis*1000) }

func pick[T any](g *Generator, from []T) T { return from[g.rng.IntN(len(from))] }

func nodeLease(g *Generator, ev *event) {
	i := g.rng.IntN(len(g.cluster.nodes))
	ev.level, ev.verb, ev.user = levelMetadata, "update", &g.cluster.kubelets[i]
	ev.ref = objectRef{resource: "leases", namespace: "kube-node-lease", name: g.cluster.nodes[i],
		apiGroup: "coordination.k8s.io", apiVersion: "v1"}
	ev.why, ev.latency = nodeReason, g.latency(4)
}

func controlPlaneLease(g *Generator, ev *event) {
	p, name := &g.cluster.controllerManager, "kube-controller-manager"
	if g.rng.IntN(2) == 0 {
		p, name = &g.cluster.scheduler, "kube-scheduler"
	}
	ev.level, ev.verb, ev.user = levelMetadata, "update", p
	ev.ref = objectRef{resource: "leases", namespace: "kube-system", name: name,
		apiGroup: "coordination.k8s.io", apiVersion: "v1"}
	ev.why = rbacPrefix + `"system:` + name + `" of ClusterRole "system:` + name + `" to User "system:` + name + `"`
	ev.latency = g.latency(5)
}

func kubeletRead(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.user, ev.why = levelMetadata, "get", g.kubelet(), nodeReason
	switch g.rng.IntN(4) {
	case 0:
		pod, _ := g.podOf(w)
		ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1"}
	case 1:
		ev.ref = objectRef{resource: "configmaps", namespace: w.namespace, name: "kube-root-ca.crt", apiVersion: "v1"}
		ev.ref.name = "" // a watch names no object; the field selector does
		ev.verb, ev.query = "watch", "allowWatchBookmarks=true&fieldSelector=metadata.name%3Dkube-root-ca.crt&resourceVersion="+g.nextRV()+"&timeout=7m40s&timeoutSeconds=460&watch=true"
		ev.stage = stageStarted
	case 2:
		ev.ref = objectRef{resource: "secrets", namespace: w.namespace, name: w.app + "-tls", apiVersion: "v1"}
	default:
		ev.ref = objectRef{resource: "nodes", name: ev.user.username[len("system:node:"):], apiVersion: "v1"}
		ev.query = "resourceVersion=0&timeout=10s"
	}
	ev.latency = g.latency(3)
}

var watchedResources = []struct{ resource, group, version string }{
	{"pods", "", "v1"}, {"services", "", "v1"}, {"endpoints", "", "v1"}, {"configmaps", "", "v1"},
	{"secrets", "", "v1"}, {"nodes", "", "v1"}, {"namespaces", "", "v1"},
	{"persistentvolumeclaims", "", "v1"}, {"deployments", "apps", "v1"}, {"replicasets", "apps", "v1"},
	{"statefulsets", "apps", "v1"}, {"daemonsets", "apps", "v1"}, {"jobs", "batch", "v1"},
	{"horizontalpodautoscalers", "autoscaling", "v2"}, {"endpointslices", "discovery.k8s.io", "v1"},
	{"networkpolicies", "networking.k8s.io", "v1"}, {"ingresses", "networking.k8s.io", "v1"},
	{"roles", "rbac.authorization.k8s.io", "v1"}, {"rolebindings", "rbac.authorization.k8s.io", "v1"},
}

func (g *Generator) controller() *principal {
	switch g.rng.IntN(4) {
	case 0:
		return &g.cluster.controllerManager
	case 1:
		return &g.cluster.scheduler
	case 2:
		return &g.cluster.replicaSets
	}
	return &g.cluster.namespaceCtl
}

func controllerWatch(g *Generator, ev *event) {
	r := pick(g, watchedResources)
	ev.level, ev.verb, ev.user = levelMetadata, "watch", g.controller()
	ev.ref = objectRef{resource: r.resource, apiGroup: r.group, apiVersion: r.version}
	timeout := 300 + g.rng.Int64N(300)
	ev.query = "allowWatchBookmarks=true&resourceVersion=" + g.nextRV() + "&timeout=" +
		strconv.FormatInt(timeout/60, 10) + "m" + strconv.FormatInt(timeout%60, 10) + "s&timeoutSeconds=" +
		strconv.FormatInt(timeout, 10) + "&watch=true"
	ev.why = rbacPrefix + `"system:kube-controller-manager" of ClusterRole "system:kube-controller-manager" to User "system:kube-controller-manager"`
	// A watch is logged twice: when the response starts and when it ends, minutes later.
	if g.rng.IntN(2) == 0 {
		ev.stage, ev.latency = stageStarted, g.latency(2)
	} else {
		ev.latency = timeout * 1000000
	}
}

func controllerList(g *Generator, ev *event) {
	r := pick(g, watchedResources)
	ev.level, ev.verb, ev.user = levelMetadata, "list", g.controller()
	ev.ref = objectRef{resource: r.resource, apiGroup: r.group, apiVersion: r.version}
	ev.query = "limit=500&resourceVersion=0"
	ev.why = rbacPrefix + `"system:kube-controller-manager" of ClusterRole "system:kube-controller-manager" to User "system:kube-controller-manager"`
	ev.latency = g.latency(25)
}

var eventMessages = []struct{ reason, message string }{
	{"Pulling", `Pulling image "%s"`},
	{"Pulled", `Container image "%s" already present on machine`},
	{"Created", "Created container app"},
	{"Started", "Started container app"},
	{"BackOff", "Back-off restarting failed container app in pod %p"},
	{"Unhealthy", "Readiness probe failed: Get \"http://10.244.1.17:8080/healthz\": dial tcp 10.244.1.17:8080: connect: connection refused"},
	{"FailedGetResourceMetric", "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"},
	{"SuccessfulRescale", "New size: 3; reason: cpu resource utilization (percentage of request) above target"},
	{"ScalingReplicaSet", "Scaled up replica set %p to 3"},
}

func (g *Generator) eventMessage(w *workload, pod string) (reason, message string) {
	m := pick(g, eventMessages)
	out := make([]byte, 0, len(m.message)+64)
	for i := 0; i < len(m.message); i++ {
		if m.message[i] == '%' && i+1 < len(m.message) {
			switch m.message[i+1] {
			case 's':
				out = append(out, w.image...)
			case 'p':
				out = append(out, pod...)
			}
			i++
			continue
		}
		out = append(out, m.message[i])
	}
	return m.reason, string(out)
}

func eventPatch(g *Generator, ev *event) {
	w := g.workload()
	pod, _ := g.podOf(w)
	ev.level, ev.verb = levelRequest, "patch"
	ev.user = g.kubelet()
	if g.rng.IntN(3) == 0 {
		ev.user = &g.cluster.hpa
	}
	suffix := strconv.FormatUint(0x18cd700000000000|g.rng.Uint64N(1<<44), 16)
	ev.ref = objectRef{resource: "events", namespace: w.namespace, name: pod + "." + suffix, apiVersion: "v1"}
	count := 2 + g.rng.Int64N(40)
	_, message := g.eventMessage(w, pod)
	now := g.clock
	ev.request = func(e *encoder) {
		e.open("")
		e.num("count", count)
		e.seconds("lastTimestamp", now)
		e.str("message", message)
		e.close()
	}
	ev.latency = g.latency(6)
}

func eventCreate(g *Generator, ev *event) {
	w := g.workload()
	pod, podUID := g.podOf(w)
	ev.level, ev.verb, ev.code = levelRequest, "create", 201
	ev.user = g.kubelet()
	name := pod + "." + strconv.FormatUint(0x18cd700000000000|g.rng.Uint64N(1<<44), 16)
	ev.ref = objectRef{resource: "events", namespace: w.namespace, name: name, apiVersion: "v1"}
	reason, message := g.eventMessage(w, pod)
	node := ev.user.username[len("system:node:"):]
	now := g.clock
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "Event")
		e.str("apiVersion", "v1")
		e.open("metadata")
		e.str("name", name)
		e.str("namespace", w.namespace)
		e.null("creationTimestamp")
		e.close()
		e.open("involvedObject")
		e.str("kind", "Pod")
		e.str("namespace", w.namespace)
		e.str("name", pod)
		e.str("uid", podUID)
		e.str("apiVersion", "v1")
		e.str("resourceVersion", strconv.FormatInt(g.rv-g.rng.Int64N(5000), 10))
		e.str("fieldPath", "spec.containers{app}")
		e.close()
		e.str("reason", reason)
		e.str("message", message)
		e.open("source")
		e.str("component", "kubelet")
		e.str("host", node)
		e.close()
		e.seconds("firstTimestamp", now)
		e.seconds("lastTimestamp", now)
		e.num("count", 1)
		e.str("type", "Normal")
		e.null("eventTime")
		e.str("reportingComponent", "kubelet")
		e.str("reportingInstance", node)
		e.close()
	}
	ev.latency = g.latency(6)
}

func (g *Generator) hex64() string {
	const hexDigits = "0123456789abcdef"
	var b [64]byte
	for i := range b {
		b[i] = hexDigits[g.rng.IntN(16)]
	}
	return string(b[:])
}

func podStatusPatch(g *Generator, ev *event) {
	w := g.workload()
	pod, uid := g.podOf(w)
	ev.level, ev.verb, ev.user = levelRequest, "patch", g.kubelet()
	ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1", subresource: "status"}
	containerID, imageID := "containerd://"+g.hex64(), "sha256:"+g.hex64()
	restarts := g.rng.Int64N(12)
	ready := g.rng.IntN(4) != 0
	started := g.clock - g.rng.Int64N(3600_000_000)
	ev.request = func(e *encoder) {
		e.open("")
		e.open("metadata")
		e.str("uid", uid)
		e.close()
		e.open("status")
		e.openArray("$setElementOrder/conditions")
		for _, c := range []string{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"} {
			e.open("")
			e.str("type", c)
			e.close()
		}
		e.closeArray()
		e.openArray("conditions")
		for _, c := range []string{"Ready", "ContainersReady"} {
			e.open("")
			e.seconds("lastTransitionTime", g.clock)
			if ready {
				e.str("status", "True")
			} else {
				e.str("message", "containers with unready status: [app]")
				e.str("reason", "ContainersNotReady")
				e.str("status", "False")
			}
			e.str("type", c)
			e.close()
		}
		e.closeArray()
		e.openArray("containerStatuses")
		e.open("")
		e.str("containerID", containerID)
		e.str("image", w.image)
		e.str("imageID", w.image[:strings.LastIndexByte(w.image, ':')]+"@"+imageID)
		e.open("lastState")
		if restarts > 0 {
			e.open("terminated")
			e.str("containerID", "containerd://"+g.hex64())
			e.num("exitCode", 1)
			e.seconds("finishedAt", started-1_000_000)
			e.str("reason", "Error")
			e.seconds("startedAt", started-30_000_000)
			e.close()
		}
		e.close()
		e.str("name", "app")
		e.boolean("ready", ready)
		e.num("restartCount", restarts)
		e.boolean("started", true)
		e.open("state")
		e.open("running")
		e.seconds("startedAt", started)
		e.close()
		e.close()
		e.close()
		e.closeArray()
		e.close()
		e.close()
	}
	ev.latency = g.latency(8)
}

func tokenRequest(g *Generator, ev *event) {
	w := g.workload()
	pod, podUID := g.podOf(w)
	ev.level, ev.verb, ev.code, ev.user = levelRequest, "create", 201, g.kubelet()
	ev.ref = objectRef{resource: "serviceaccounts", namespace: w.namespace, name: "default", apiVersion: "v1", subresource: "token"}
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "TokenRequest")
		e.str("apiVersion", "authentication.k8s.io/v1")
		e.open("metadata")
		e.null("creationTimestamp")
		e.close()
		e.open("spec")
		e.openArray("audiences")
		e.elem("https://kubernetes.default.svc.cluster.local")
		e.closeArray()
		e.num("expirationSeconds", 3607)
		e.open("boundObjectRef")
		e.str("kind", "Pod")
		e.str("apiVersion", "v1")
		e.str("name", pod)
		e.str("uid", podUID)
		e.close()
		e.close()
		e.open("status")
		e.str("token", "")
		e.null("expirationTimestamp")
		e.close()
		e.close()
	}
	ev.latency = g.latency(10)
}

func hpaScaleRead(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.user = levelMetadata, "get", &g.cluster.hpa
	ev.ref = objectRef{resource: "deployments", namespace: w.namespace, name: w.name, apiGroup: "apps", apiVersion: "v1", subresource: "scale"}
	ev.why = rbacPrefix + `"system:controller:horizontal-pod-autoscaler" of ClusterRole "system:controller:horizontal-pod-autoscaler" to ServiceAccount "horizontal-pod-autoscaler/kube-system"`
	ev.latency = g.latency(3)
}

func hpaStatusUpdate(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.user = levelRequest, "update", &g.cluster.hpa
	rv := g.nextRV()
	uid := newUUID(g.rng)
	ev.ref = objectRef{resource: "horizontalpodautoscalers", namespace: w.namespace, name: w.name,
		uid: uid, apiGroup: "autoscaling", apiVersion: "v2", resourceVersion: rv, subresource: "status"}
	ev.why = rbacPrefix + `"system:controller:horizontal-pod-autoscaler" of ClusterRole "system:controller:horizontal-pod-autoscaler" to ServiceAccount "horizontal-pod-autoscaler/kube-system"`
	utilization := 20 + g.rng.Int64N(90)
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "HorizontalPodAutoscaler")
		e.str("apiVersion", "autoscaling/v2")
		e.open("metadata")
		e.str("name", w.name)
		e.str("namespace", w.namespace)
		e.str("uid", uid)
		e.str("resourceVersion", rv)
		e.seconds("creationTimestamp", -86_400_000_000)
		e.close()
		e.open("spec")
		e.open("scaleTargetRef")
		e.str("kind", "Deployment")
		e.str("name", w.name)
		e.str("apiVersion", "apps/v1")
		e.close()
		e.num("minReplicas", 1)
		e.num("maxReplicas", 10)
		e.openArray("metrics")
		e.open("")
		e.str("type", "Resource")
		e.open("resource")
		e.str("name", "cpu")
		e.open("target")
		e.str("type", "Utilization")
		e.num("averageUtilization", 80)
		e.close()
		e.close()
		e.close()
		e.closeArray()
		e.close()
		e.open("status")
		e.num("currentReplicas", w.replicas)
		e.num("desiredReplicas", w.replicas)
		e.openArray("currentMetrics")
		e.open("")
		e.str("type", "Resource")
		e.open("resource")
		e.str("name", "cpu")
		e.open("current")
		e.str("averageValue", strconv.FormatInt(utilization*2, 10)+"m")
		e.num("averageUtilization", utilization)
		e.close()
		e.close()
		e.close()
		e.closeArray()
		e.openArray("conditions")
		for _, c := range []struct{ kind, reason string }{{"AbleToScale", "ReadyForNewScale"}, {"ScalingActive", "ValidMetricFound"}, {"ScalingLimited", "DesiredWithinRange"}} {
			e.open("")
			e.str("type", c.kind)
			e.str("status", "True")
			e.seconds("lastTransitionTime", g.clock-g.rng.Int64N(7200_000_000))
			e.str("reason", c.reason)
			e.close()
		}
		e.closeArray()
		e.close()
		e.close()
	}
	ev.latency = g.latency(9)
}

func endpointSliceUpdate(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.user = levelRequest, "update", &g.cluster.endpointSlices
	name := w.name + "-" + randomName(g.rng, 5)
	rv := g.nextRV()
	ev.ref = objectRef{resource: "endpointslices", namespace: w.namespace, name: name,
		apiGroup: "discovery.k8s.io", apiVersion: "v1"}
	ev.why = rbacPrefix + `"system:controller:endpointslice-controller" of ClusterRole "system:controller:endpointslice-controller" to ServiceAccount "endpointslice-controller/kube-system"`
	nodes := g.cluster.nodes
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "EndpointSlice")
		e.str("apiVersion", "discovery.k8s.io/v1")
		e.open("metadata")
		e.str("name", name)
		e.str("generateName", w.name+"-")
		e.str("namespace", w.namespace)
		e.str("resourceVersion", rv)
		e.open("labels")
		e.str("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
		e.str("kubernetes.io/service-name", w.name)
		e.close()
		e.close()
		e.str("addressType", "IPv4")
		e.openArray("endpoints")
		for i, pod := range w.pods {
			e.open("")
			e.openArray("addresses")
			e.elem("10.244." + strconv.Itoa(1+i%3) + "." + strconv.Itoa(2+g.rng.IntN(250)))
			e.closeArray()
			e.open("conditions")
			e.boolean("ready", true)
			e.boolean("serving", true)
			e.boolean("terminating", false)
			e.close()
			e.open("targetRef")
			e.str("kind", "Pod")
			e.str("namespace", w.namespace)
			e.str("name", pod)
			e.str("uid", w.podUIDs[i])
			e.close()
			e.str("nodeName", nodes[i%len(nodes)])
			e.close()
		}
		e.closeArray()
		e.openArray("ports")
		e.open("")
		e.str("name", "http")
		e.str("protocol", "TCP")
		e.num("port", 8080)
		e.close()
		e.closeArray()
		e.close()
	}
	ev.latency = g.latency(7)
}

func schedulerBinding(g *Generator, ev *event) {
	w := g.workload()
	pod, uid := g.podOf(w)
	node := pick(g, g.cluster.nodes)
	ev.level, ev.verb, ev.code, ev.user = levelRequest, "create", 201, &g.cluster.scheduler
	ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1", subresource: "binding"}
	ev.why = rbacPrefix + `"system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"`
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "Binding")
		e.str("apiVersion", "v1")
		e.open("metadata")
		e.str("name", pod)
		e.str("namespace", w.namespace)
		e.str("uid", uid)
		e.null("creationTimestamp")
		e.close()
		e.open("target")
		e.str("kind", "Node")
		e.str("name", node)
		e.close()
		e.close()
	}
	ev.latency = g.latency(12)
}

// writePodSpec writes the spec of a workload's pods, as a ReplicaSet stamps it.
func writePodSpec(e *encoder, w *workload) {
	e.open("spec")
	e.openArray("containers")
	e.open("")
	e.str("name", "app")
	e.str("image", w.image)
	e.openArray("ports")
	e.open("")
	e.str("name", "http")
	e.num("containerPort", 8080)
	e.str("protocol", "TCP")
	e.close()
	e.closeArray()
	e.openArray("env")
	for _, kv := range [][2]string{{"LOG_LEVEL", "info"}, {"TIMEOUT", "30"}, {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector.monitoring:4317"}} {
		e.open("")
		e.str("name", kv[0])
		e.str("value", kv[1])
		e.close()
	}
	e.closeArray()
	e.open("resources")
	e.open("limits")
	e.str("cpu", "500m")
	e.str("memory", "256Mi")
	e.close()
	e.open("requests")
	e.str("cpu", "100m")
	e.str("memory", "128Mi")
	e.close()
	e.close()
	e.open("readinessProbe")
	e.open("httpGet")
	e.str("path", "/healthz")
	e.num("port", 8080)
	e.str("scheme", "HTTP")
	e.close()
	e.num("periodSeconds", 10)
	e.close()
	e.str("terminationMessagePath", "/dev/termination-log")
	e.str("terminationMessagePolicy", "File")
	e.str("imagePullPolicy", "IfNotPresent")
	e.close()
	e.closeArray()
	e.str("restartPolicy", "Always")
	e.num("terminationGracePeriodSeconds", 30)
	e.str("dnsPolicy", "ClusterFirst")
	e.str("serviceAccountName", "default")
	e.open("securityContext")
	e.close()
	e.str("schedulerName", "default-scheduler")
	e.close()
}

func replicaSetCreatesPod(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.code, ev.user = levelRequest, "create", 201, &g.cluster.replicaSets
	ev.ref = objectRef{resource: "pods", namespace: w.namespace, apiVersion: "v1"}
	ev.why = rbacPrefix + `"system:controller:replicaset-controller" of ClusterRole "system:controller:replicaset-controller" to ServiceAccount "replicaset-controller/kube-system"`
	owner := newUUID(g.rng)
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "Pod")
		e.str("apiVersion", "v1")
		e.open("metadata")
		e.str("generateName", w.name+"-"+w.hash+"-")
		e.str("namespace", w.namespace)
		e.null("creationTimestamp")
		e.open("labels")
		e.str("app", w.app)
		e.str("pod-template-hash", w.hash)
		e.close()
		e.openArray("ownerReferences")
		e.open("")
		e.str("apiVersion", "apps/v1")
		e.str("kind", "ReplicaSet")
		e.str("name", w.name+"-"+w.hash)
		e.str("uid", owner)
		e.boolean("controller", true)
		e.boolean("blockOwnerDeletion", true)
		e.close()
		e.closeArray()
		e.close()
		writePodSpec(e, w)
		e.open("status")
		e.close()
		e.close()
	}
	ev.latency = g.latency(15)
}

func provisioner(g *Generator, ev *event) {
	w := g.workload()
	ev.user = &g.cluster.provisioner
	ev.why = rbacPrefix + `"ebs-csi-provisioner-binding" of ClusterRole "ebs-external-provisioner-role" to ServiceAccount "ebs-csi-controller-sa/kube-system"`
	if g.rng.IntN(3) != 0 {
		ev.level, ev.verb = levelMetadata, "watch"
		ev.ref = objectRef{resource: "persistentvolumeclaims", apiVersion: "v1"}
		ev.query = "allowWatchBookmarks=true&resourceVersion=" + g.nextRV() + "&timeout=9m12s&timeoutSeconds=552&watch=true"
		ev.stage, ev.latency = stageStarted, g.latency(2)
		return
	}
	name := "pvc-" + newUUID(g.rng)
	claimUID := newUUID(g.rng)
	ev.level, ev.verb, ev.code = levelRequest, "create", 201
	ev.ref = objectRef{resource: "persistentvolumes", name: name, apiVersion: "v1"}
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "PersistentVolume")
		e.str("apiVersion", "v1")
		e.open("metadata")
		e.str("name", name)
		e.null("creationTimestamp")
		e.open("annotations")
		e.str("pv.kubernetes.io/provisioned-by", "ebs.csi.aws.com")
		e.str("volume.kubernetes.io/provisioner-deletion-secret-name", "")
		e.close()
		e.openArray("finalizers")
		e.elem("external-provisioner.volume.kubernetes.io/finalizer")
		e.closeArray()
		e.close()
		e.open("spec")
		e.open("capacity")
		e.str("storage", strconv.Itoa(1<<g.rng.IntN(7))+"Gi")
		e.close()
		e.open("csi")
		e.str("driver", "ebs.csi.aws.com")
		e.str("volumeHandle", "vol-0"+g.hex64()[:16])
		e.str("fsType", "ext4")
		e.close()
		e.openArray("accessModes")
		e.elem("ReadWriteOnce")
		e.closeArray()
		e.open("claimRef")
		e.str("kind", "PersistentVolumeClaim")
		e.str("namespace", w.namespace)
		e.str("name", w.name+"-data")
		e.str("uid", claimUID)
		e.str("apiVersion", "v1")
		e.close()
		e.str("persistentVolumeReclaimPolicy", "Delete")
		e.str("storageClassName", "gp3")
		e.str("volumeMode", "Filesystem")
		e.close()
		e.open("status")
		e.close()
		e.close()
	}
	ev.latency = g.latency(20)
}

var agentReadables = []struct{ resource, group, version string }{
	{"pods", "", "v1"}, {"services", "", "v1"}, {"configmaps", "", "v1"}, {"events", "", "v1"},
	{"deployments", "apps", "v1"}, {"replicasets", "apps", "v1"},
	{"horizontalpodautoscalers", "autoscaling", "v2"}, {"ingresses", "networking.k8s.io", "v1"},
}

func agentRead(g *Generator, ev *event) {
	w := g.appWorkload()
	r := pick(g, agentReadables)
	ev.level, ev.user, ev.why = levelMetadata, &g.cluster.agent, agentReason
	ev.ref = objectRef{resource: r.resource, namespace: w.namespace, apiGroup: r.group, apiVersion: r.version}
	switch g.rng.IntN(4) {
	case 0:
		ev.verb, ev.query = "list", "limit=500"
	case 1:
		ev.verb = "get"
		pod, _ := g.podOf(w)
		ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1", subresource: "log"}
		ev.query = "container=app&tailLines=200"
	default:
		ev.verb = "get"
		if r.resource == "pods" {
			ev.ref.name, _ = g.podOf(w)
		} else {
			ev.ref.name = w.name
		}
	}
	ev.latency = g.latency(30)
}

// writeDeployment writes a Deployment as the apiserver returns it, managedFields included.
func (g *Generator) writeDeployment(e *encoder, w *workload, uid, rv string, replicas int64, restartedAt int64) {
	e.open("")
	e.str("kind", "Deployment")
	e.str("apiVersion", "apps/v1")
	e.open("metadata")
	e.str("name", w.name)
	e.str("namespace", w.namespace)
	e.str("uid", uid)
	e.str("resourceVersion", rv)
	e.num("generation", 3+g.rng.Int64N(40))
	e.seconds("creationTimestamp", -3*86_400_000_000)
	e.open("labels")
	e.str("app", w.app)
	e.close()
	e.open("annotations")
	e.str("deployment.kubernetes.io/revision", strconv.FormatInt(1+g.rng.Int64N(9), 10))
	e.close()
	e.openArray("managedFields")
	for _, m := range []struct{ manager, op, sub string }{{"kubectl-client-side-apply", "Update", ""}, {"kube-controller-manager", "Update", "status"}} {
		e.open("")
		e.str("manager", m.manager)
		e.str("operation", m.op)
		e.str("apiVersion", "apps/v1")
		e.seconds("time", -86_400_000_000)
		e.str("fieldsType", "FieldsV1")
		e.open("fieldsV1")
		if m.sub == "" {
			e.open("f:metadata")
			e.open("f:labels")
			e.open(".")
			e.close()
			e.open("f:app")
			e.close()
			e.close()
			e.close()
			e.open("f:spec")
			for _, f := range []string{"f:progressDeadlineSeconds", "f:replicas", "f:revisionHistoryLimit", "f:selector", "f:strategy", "f:template"} {
				e.open(f)
				e.close()
			}
			e.close()
		} else {
			e.open("f:status")
			for _, f := range []string{"f:availableReplicas", "f:conditions", "f:observedGeneration", "f:readyReplicas", "f:replicas", "f:updatedReplicas"} {
				e.open(f)
				e.close()
			}
			e.close()
		}
		e.close()
		if m.sub != "" {
			e.str("subresource", m.sub)
		}
		e.close()
	}
	e.closeArray()
	e.close()
	e.open("spec")
	e.num("replicas", replicas)
	e.open("selector")
	e.open("matchLabels")
	e.str("app", w.app)
	e.close()
	e.close()
	e.open("template")
	e.open("metadata")
	e.null("creationTimestamp")
	e.open("labels")
	e.str("app", w.app)
	e.close()
	if restartedAt != 0 {
		e.open("annotations")
		e.seconds("kubectl.kubernetes.io/restartedAt", restartedAt)
		e.close()
	}
	e.close()
	writePodSpec(e, w)
	e.close()
	e.open("strategy")
	e.str("type", "RollingUpdate")
	e.open("rollingUpdate")
	e.str("maxUnavailable", "25%")
	e.str("maxSurge", "25%")
	e.close()
	e.close()
	e.num("revisionHistoryLimit", 10)
	e.num("progressDeadlineSeconds", 600)
	e.close()
	e.open("status")
	e.num("observedGeneration", 3)
	e.num("replicas", w.replicas)
	e.num("updatedReplicas", w.replicas)
	e.num("readyReplicas", w.replicas)
	e.num("availableReplicas", w.replicas)
	e.close()
	e.close()
}

func agentGetDeployment(g *Generator, ev *event) {
	w := g.appWorkload()
	ev.level, ev.verb, ev.user, ev.why = levelRequestResponse, "get", &g.cluster.agent, agentReason
	ev.ref = objectRef{resource: "deployments", namespace: w.namespace, name: w.name, apiGroup: "apps", apiVersion: "v1"}
	uid, rv := newUUID(g.rng), g.nextRV()
	ev.response = func(e *encoder) { g.writeDeployment(e, w, uid, rv, w.replicas, 0) }
	ev.latency = g.latency(12)
}

func agentWrite(g *Generator, ev *event) {
	w := g.appWorkload()
	ev.level, ev.user, ev.why = levelRequestResponse, &g.cluster.agent, agentReason
	ev.ref = objectRef{resource: "deployments", namespace: w.namespace, name: w.name, apiGroup: "apps", apiVersion: "v1"}
	uid, rv := newUUID(g.rng), g.nextRV()
	ev.latency = g.latency(40)
	switch g.rng.IntN(6) {
	case 0: // kubectl scale
		replicas := g.rng.Int64N(8)
		ev.verb, ev.ref.subresource = "patch", "scale"
		ev.request = func(e *encoder) {
			e.open("")
			e.open("spec")
			e.num("replicas", replicas)
			e.close()
			e.close()
		}
		ev.response = func(e *encoder) {
			e.open("")
			e.str("kind", "Scale")
			e.str("apiVersion", "autoscaling/v1")
			e.open("metadata")
			e.str("name", w.name)
			e.str("namespace", w.namespace)
			e.str("uid", uid)
			e.str("resourceVersion", rv)
			e.close()
			e.open("spec")
			e.num("replicas", replicas)
			e.close()
			e.open("status")
			e.num("replicas", w.replicas)
			e.str("selector", "app="+w.app)
			e.close()
			e.close()
		}
	case 1: // kubectl rollout restart
		restartedAt := g.clock
		ev.verb, ev.query = "patch", "fieldManager=kubectl-rollout"
		ev.request = func(e *encoder) {
			e.open("")
			e.open("spec")
			e.open("template")
			e.open("metadata")
			e.open("annotations")
			e.seconds("kubectl.kubernetes.io/restartedAt", restartedAt)
			e.close()
			e.close()
			e.close()
			e.close()
			e.close()
		}
		ev.response = func(e *encoder) { g.writeDeployment(e, w, uid, rv, w.replicas, restartedAt) }
	case 2: // kubectl set env / patch of the container environment
		level := pick(g, []string{"debug", "info", "warn"})
		ev.verb, ev.query = "patch", "fieldManager=kubectl-set"
		ev.request = func(e *encoder) {
			e.open("")
			e.open("spec")
			e.open("template")
			e.open("spec")
			e.openArray("containers")
			e.open("")
			e.openArray("env")
			e.open("")
			e.str("name", "LOG_LEVEL")
			e.str("value", level)
			e.close()
			e.closeArray()
			e.str("name", "app")
			e.close()
			e.closeArray()
			e.close()
			e.close()
			e.close()
			e.close()
		}
		ev.response = func(e *encoder) { g.writeDeployment(e, w, uid, rv, w.replicas, 0) }
	case 3: // kubectl delete pod
		pod, podUID := g.podOf(w)
		ev.verb = "delete"
		ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1"}
		ev.request = func(e *encoder) {
			e.open("")
			e.str("kind", "DeleteOptions")
			e.str("apiVersion", "meta.k8s.io/__internal")
			e.str("propagationPolicy", "Background")
			e.close()
		}
		ev.response = func(e *encoder) {
			e.open("")
			e.str("kind", "Pod")
			e.str("apiVersion", "v1")
			e.open("metadata")
			e.str("name", pod)
			e.str("namespace", w.namespace)
			e.str("uid", podUID)
			e.str("resourceVersion", rv)
			e.seconds("deletionTimestamp", g.clock+30_000_000)
			e.num("deletionGracePeriodSeconds", 30)
			e.close()
			writePodSpec(e, w)
			e.close()
		}
	case 4: // create or update a config map
		ev.verb, ev.code = "create", 201
		ev.ref = objectRef{resource: "configmaps", namespace: w.namespace, apiVersion: "v1"}
		if g.rng.IntN(2) == 0 {
			ev.verb, ev.code, ev.ref.name = "update", 200, w.name+"-config"
		}
		timeout := strconv.Itoa(10 + g.rng.IntN(120))
		writeConfigMap := func(e *encoder) {
			e.open("")
			e.str("kind", "ConfigMap")
			e.str("apiVersion", "v1")
			e.open("metadata")
			e.str("name", w.name+"-config")
			e.str("namespace", w.namespace)
			e.close()
			e.open("data")
			e.str("LOG_LEVEL", "info")
			e.str("TIMEOUT", timeout)
			e.str("FEATURE_FLAGS", "checkout-v2,async-invoices")
			e.close()
			e.close()
		}
		ev.request, ev.response = writeConfigMap, writeConfigMap
	default: // kubectl exec
		pod, _ := g.podOf(w)
		ev.level, ev.verb = levelMetadata, "create"
		ev.ref = objectRef{resource: "pods", namespace: w.namespace, name: pod, apiVersion: "v1", subresource: "exec"}
		ev.query = "command=sh&command=-c&command=env&container=app&stderr=true&stdout=true"
		ev.code = 101
	}
}

func agentForbidden(g *Generator, ev *event) {
	ev.level, ev.user = levelMetadata, &g.cluster.agent
	ev.code, ev.failure, ev.decision = 403, "Forbidden", "forbid"
	if g.rng.IntN(2) == 0 {
		ev.verb = "delete"
		ns := pick(g, g.cluster.namespaces)
		ev.ref = objectRef{resource: "namespaces", name: ns, apiVersion: "v1"}
		ev.message = `namespaces "` + ns + `" is forbidden: User "` + ev.user.username + `" cannot delete resource "namespaces" in API group "" in the namespace "` + ns + `"`
	} else {
		ev.verb = "get"
		ev.ref = objectRef{resource: "secrets", namespace: "kube-system", name: "bootstrap-token-" + randomName(g.rng, 6), apiVersion: "v1"}
		ev.message = `secrets "` + ev.ref.name + `" is forbidden: User "` + ev.user.username + `" cannot get resource "secrets" in API group "" in the namespace "kube-system"`
	}
	ev.latency = g.latency(3)
}

func adminApply(g *Generator, ev *event) {
	w := g.appWorkload()
	ev.level, ev.verb, ev.user = levelRequestResponse, "patch", &g.cluster.admin
	ev.ref = objectRef{resource: "deployments", namespace: w.namespace, name: w.name, apiGroup: "apps", apiVersion: "v1"}
	ev.query = "fieldManager=kubectl-client-side-apply&fieldValidation=Strict"
	ev.why = rbacPrefix + `"cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`
	uid, rv := newUUID(g.rng), g.nextRV()
	replicas := 1 + g.rng.Int64N(5)
	ev.request = func(e *encoder) {
		var inner encoder
		inner.open("")
		inner.str("apiVersion", "apps/v1")
		inner.str("kind", "Deployment")
		inner.open("metadata")
		inner.open("annotations")
		inner.close()
		inner.str("name", w.name)
		inner.str("namespace", w.namespace)
		inner.close()
		inner.open("spec")
		inner.num("replicas", replicas)
		inner.close()
		inner.close()
		e.open("")
		e.open("metadata")
		e.open("annotations")
		e.str("kubectl.kubernetes.io/last-applied-configuration", string(inner.buf)+"\n")
		e.close()
		e.close()
		e.open("spec")
		e.num("replicas", replicas)
		e.close()
		e.close()
	}
	ev.response = func(e *encoder) { g.writeDeployment(e, w, uid, rv, replicas, 0) }
	ev.latency = g.latency(30)
}

func subjectAccessReview(g *Generator, ev *event) {
	w := g.appWorkload()
	ev.level, ev.verb, ev.code, ev.user = levelRequest, "create", 201, &g.cluster.apiserver
	ev.ref = objectRef{resource: "subjectaccessreviews", apiGroup: "authorization.k8s.io", apiVersion: "v1"}
	ev.why = ""
	resource := pick(g, agentReadables).resource
	ev.request = func(e *encoder) {
		e.open("")
		e.str("kind", "SubjectAccessReview")
		e.str("apiVersion", "authorization.k8s.io/v1")
		e.open("metadata")
		e.null("creationTimestamp")
		e.close()
		e.open("spec")
		e.open("resourceAttributes")
		e.str("namespace", w.namespace)
		e.str("verb", "get")
		e.str("resource", resource)
		e.close()
		e.str("user", g.cluster.agent.username)
		e.openArray("groups")
		for _, grp := range g.cluster.agent.groups {
			e.elem(grp)
		}
		e.closeArray()
		e.close()
		e.open("status")
		e.boolean("allowed", false)
		e.close()
		e.close()
	}
	ev.latency = g.latency(4)
}

func corednsWatch(g *Generator, ev *event) {
	ev.level, ev.verb, ev.user = levelMetadata, "watch", &g.cluster.coredns
	resource, group := "endpointslices", "discovery.k8s.io"
	if g.rng.IntN(3) == 0 {
		resource, group = "services", ""
	}
	ev.ref = objectRef{resource: resource, apiGroup: group, apiVersion: "v1"}
	ev.query = "allowWatchBookmarks=true&resourceVersion=" + g.nextRV() + "&timeout=6m14s&timeoutSeconds=374&watch=true"
	ev.why = rbacPrefix + `"system:coredns" of ClusterRole "system:coredns" to ServiceAccount "coredns/kube-system"`
	ev.latency = 374_000_000
}

func notFound(g *Generator, ev *event) {
	w := g.workload()
	ev.level, ev.verb, ev.user = levelMetadata, "get", g.controller()
	ev.ref = objectRef{resource: "configmaps", namespace: w.namespace, name: w.name + "-feature-flags", apiVersion: "v1"}
	ev.code, ev.failure = 404, "NotFound"
	ev.message = `configmaps "` + ev.ref.name + `" not found`
	ev.why = rbacPrefix + `"system:kube-controller-manager" of ClusterRole "system:kube-controller-manager" to User "system:kube-controller-manager"`
	ev.latency = g.latency(2)
}
