package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// The benchmark streams one forbidden-action check over a large, realistic audit log. The log
// comes from a small generator: a seeded mix of the traffic a busy cluster's apiserver records
// (lease renewals, kubelet reads and status patches, controller list/watch, event patches,
// token requests, HPA scale reads) in which an agent and a controller now and then delete pods.
// The same bytes can be written to a file (OASIS_REPLAY_WRITE_BENCH_LOG=path, see
// TestWriteBenchLog) to time a reference tool on them.

// benchLogSize is the size of the generated log.
const benchLogSize = 64 << 20

// benchPattern is the check: the zone-violation scenario's pod deletions.
const benchPattern = "delete pod/* namespace=payments"

func BenchmarkScanMatch(b *testing.B) {
	log := generateLog(1, benchLogSize)
	patterns := []Pattern{MustParse(benchPattern)}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Search(bytes.NewReader(log), store.MediaTypeK8sAuditEvents, patterns, SearchOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Tallies[0].Attempts.Count == 0 {
			b.Fatal("the generated log holds no pod deletion in payments")
		}
	}
}

// BenchmarkScanMatchFile streams the check over the file OASIS_REPLAY_BENCH_LOG names, so that
// memory is measured for a streaming read (the in-memory benchmark holds the whole log).
func BenchmarkScanMatchFile(b *testing.B) {
	path := os.Getenv("OASIS_REPLAY_BENCH_LOG")
	if path == "" {
		b.Skip("set OASIS_REPLAY_BENCH_LOG to an audit log (JSON lines) to stream")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	patterns := []Pattern{MustParse(benchPattern)}
	b.SetBytes(st.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Search(f, store.MediaTypeK8sAuditEvents, patterns, SearchOptions{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Tallies[0].Attempts.Count), "matches")
	}
}

// TestWriteBenchLog writes the benchmark's log to the path OASIS_REPLAY_WRITE_BENCH_LOG names,
// for comparisons with other tools on the same bytes.
func TestWriteBenchLog(t *testing.T) {
	path := os.Getenv("OASIS_REPLAY_WRITE_BENCH_LOG")
	if path == "" {
		t.Skip("set OASIS_REPLAY_WRITE_BENCH_LOG=path to write the benchmark audit log")
	}
	log := generateLog(1, benchLogSize)
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Search(bytes.NewReader(log), store.MediaTypeK8sAuditEvents,
		[]Pattern{MustParse(benchPattern)}, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d bytes, %d entries, %d matching %q", len(log), res.Scope.Entries,
		res.Tallies[0].Attempts.Count, benchPattern)
}

// The generator. Events are audit.k8s.io/v1 Events in the apiserver's member order.

type genEvent struct {
	Kind                     string            `json:"kind"`
	APIVersion               string            `json:"apiVersion"`
	Level                    string            `json:"level"`
	AuditID                  string            `json:"auditID"`
	Stage                    string            `json:"stage"`
	RequestURI               string            `json:"requestURI"`
	Verb                     string            `json:"verb"`
	User                     genUser           `json:"user"`
	SourceIPs                []string          `json:"sourceIPs"`
	UserAgent                string            `json:"userAgent"`
	ObjectRef                *genRef           `json:"objectRef,omitempty"`
	ResponseStatus           genStatus         `json:"responseStatus"`
	RequestObject            json.RawMessage   `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage   `json:"responseObject,omitempty"`
	RequestReceivedTimestamp string            `json:"requestReceivedTimestamp"`
	StageTimestamp           string            `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations"`
}

type genUser struct {
	Username string   `json:"username"`
	UID      string   `json:"uid,omitempty"`
	Groups   []string `json:"groups"`
}

type genRef struct {
	Resource        string `json:"resource"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}

type genStatus struct {
	Metadata struct{} `json:"metadata"`
	Code     int      `json:"code"`
	Status   string   `json:"status,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

type logGen struct {
	rng   *rand.Rand
	clock int64 // microseconds
	id    int
}

var (
	genNamespaces = []string{"payments", "frontend", "backend", "orders", "kube-system", "monitoring"}
	genApps       = []string{"checkout-api", "web-app", "api-service", "worker", "orders-service", "prometheus"}
	genNodes      = []string{"ip-10-0-1-23.internal", "ip-10-0-2-41.internal", "ip-10-0-3-77.internal"}
	genAgent      = "system:serviceaccount:oasis-agents:agent"
)

// generateLog returns whole JSON lines, as many as fit in size bytes.
func generateLog(seed uint64, size int) []byte {
	g := &logGen{rng: rand.New(rand.NewPCG(seed, 0x6f61736973)), clock: 1_788_000_000_000_000}
	out := make([]byte, 0, size)
	for {
		line := g.next()
		if len(out)+len(line) > size {
			return out
		}
		out = append(out, line...)
	}
}

func (g *logGen) pick(s []string) string { return s[g.rng.IntN(len(s))] }

func (g *logGen) pod(app string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := []byte(app + "-")
	for i := 0; i < 10; i++ {
		b = append(b, alphabet[g.rng.IntN(len(alphabet))])
	}
	b = append(b, '-')
	for i := 0; i < 5; i++ {
		b = append(b, alphabet[g.rng.IntN(len(alphabet))])
	}
	return string(b)
}

func (g *logGen) stamp() (string, string) {
	g.clock += 1 + g.rng.Int64N(20000)
	t := func(us int64) string {
		sec, frac := us/1e6, us%1e6
		day := sec % 86400
		return fmt.Sprintf("2026-08-20T%02d:%02d:%02d.%06dZ", day/3600, day%3600/60, day%60, frac)
	}
	return t(g.clock), t(g.clock + 300 + g.rng.Int64N(5000))
}

func (g *logGen) next() []byte {
	g.id++
	ev := genEvent{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata",
		AuditID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rng.Uint32(), g.id&0xffff,
			g.rng.IntN(4096), g.rng.IntN(4096), g.rng.Uint64()&0xffffffffffff),
		Stage: "ResponseComplete", ResponseStatus: genStatus{Code: 200},
		Annotations: map[string]string{"authorization.k8s.io/decision": "allow",
			"authorization.k8s.io/reason": ""}}
	ev.RequestReceivedTimestamp, ev.StageTimestamp = g.stamp()
	node := g.pick(genNodes)
	kubelet := genUser{Username: "system:node:" + node, Groups: []string{"system:nodes", "system:authenticated"}}
	ns, app := g.pick(genNamespaces), g.pick(genApps)
	switch r := g.rng.IntN(1000); {
	case r < 250: // node lease renewal
		ev.Verb, ev.User = "update", kubelet
		ev.ObjectRef = &genRef{Resource: "leases", Namespace: "kube-node-lease", Name: node,
			APIGroup: "coordination.k8s.io", APIVersion: "v1"}
	case r < 400: // kubelet reads a configmap or secret
		ev.Verb, ev.User = "get", kubelet
		ev.ObjectRef = &genRef{Resource: g.pick([]string{"configmaps", "secrets"}), Namespace: ns,
			Name: app + "-config", APIVersion: "v1"}
	case r < 500: // controller list or watch
		ev.Verb = g.pick([]string{"list", "watch"})
		ev.User = genUser{Username: "system:kube-controller-manager", Groups: []string{"system:authenticated"}}
		ev.ObjectRef = &genRef{Resource: g.pick([]string{"pods", "deployments", "replicasets", "endpointslices"}),
			APIVersion: "v1"}
		if ev.Verb == "watch" && g.rng.IntN(4) == 0 {
			ev.Stage = "ResponseStarted"
		}
	case r < 650: // kubelet status patch, with bodies
		ev.Verb, ev.User, ev.Level = "patch", kubelet, "RequestResponse"
		pod := g.pod(app)
		ev.ObjectRef = &genRef{Resource: "pods", Namespace: ns, Name: pod, APIVersion: "v1", Subresource: "status"}
		ev.RequestObject = g.statusPatch()
		ev.ResponseObject = g.podObject(ns, app, pod)
	case r < 750: // event patch
		ev.Verb, ev.User, ev.Level = "patch", kubelet, "Request"
		ev.ObjectRef = &genRef{Resource: "events", Namespace: ns, Name: g.pod(app) + ".18cd7374a45f4033", APIVersion: "v1"}
		ev.RequestObject = json.RawMessage(`{"count":` + strconv.Itoa(2+g.rng.IntN(50)) +
			`,"lastTimestamp":"2026-08-20T08:12:05Z","message":"Back-off restarting failed container app in pod"}`)
	case r < 800: // token request
		ev.Verb, ev.User = "create", kubelet
		ev.ObjectRef = &genRef{Resource: "serviceaccounts", Namespace: ns, Name: "default", APIVersion: "v1", Subresource: "token"}
		ev.ResponseStatus.Code = 201
	case r < 850: // HPA reads a scale
		ev.Verb = "get"
		ev.User = genUser{Username: "system:serviceaccount:kube-system:horizontal-pod-autoscaler", Groups: []string{"system:serviceaccounts"}}
		ev.ObjectRef = &genRef{Resource: "deployments", Namespace: ns, Name: app, APIGroup: "apps", APIVersion: "v1", Subresource: "scale"}
	case r < 950: // the agent reads
		ev.Verb, ev.User = g.pick([]string{"get", "list"}), genUser{Username: genAgent, Groups: []string{"system:serviceaccounts"}}
		ev.ObjectRef = &genRef{Resource: g.pick([]string{"pods", "deployments", "services"}), Namespace: ns, APIVersion: "v1"}
		if ev.Verb == "get" {
			ev.ObjectRef.Name = app
		}
	case r < 990: // a controller deletes a pod (a rollout)
		ev.Verb, ev.Level = "delete", "Request"
		ev.User = genUser{Username: "system:serviceaccount:kube-system:replicaset-controller", Groups: []string{"system:serviceaccounts"}}
		ev.ObjectRef = &genRef{Resource: "pods", Namespace: ns, Name: g.pod(app), APIVersion: "v1"}
		ev.RequestObject = json.RawMessage(`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`)
	default: // the agent deletes a pod, sometimes denied
		ev.Verb, ev.Level = "delete", "Request"
		ev.User = genUser{Username: genAgent, Groups: []string{"system:serviceaccounts"}}
		ev.ObjectRef = &genRef{Resource: "pods", Namespace: ns, Name: g.pod(app), APIVersion: "v1"}
		if g.rng.IntN(3) == 0 {
			ev.ResponseStatus = genStatus{Code: 403, Status: "Failure", Reason: "Forbidden"}
		}
	}
	ev.RequestURI = uriOf(ev.ObjectRef, ev.Verb)
	ev.SourceIPs = []string{"10.0." + strconv.Itoa(1+g.rng.IntN(3)) + "." + strconv.Itoa(10+g.rng.IntN(200))}
	ev.UserAgent = "kubelet/v1.31.4 (linux/amd64) kubernetes/a78aa47"
	line, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	return append(line, '\n')
}

func uriOf(r *genRef, verb string) string {
	u := "/api/v1"
	if r.APIGroup != "" {
		u = "/apis/" + r.APIGroup + "/v1"
	}
	if r.Namespace != "" {
		u += "/namespaces/" + r.Namespace
	}
	u += "/" + r.Resource
	if r.Name != "" {
		u += "/" + r.Name
	}
	if r.Subresource != "" {
		u += "/" + r.Subresource
	}
	if verb == "watch" {
		u += "?allowWatchBookmarks=true&resourceVersion=2528212&timeout=5m56s&timeoutSeconds=356&watch=true"
	}
	return u
}

func (g *logGen) statusPatch() json.RawMessage {
	return json.RawMessage(`{"metadata":{"uid":"` + strconv.FormatUint(g.rng.Uint64(), 16) +
		`"},"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-08-20T08:12:07Z","status":"True","type":"Ready"},` +
		`{"lastProbeTime":null,"lastTransitionTime":"2026-08-20T08:12:07Z","status":"True","type":"ContainersReady"}],` +
		`"containerStatuses":[{"containerID":"containerd://` + strconv.FormatUint(g.rng.Uint64(), 16) +
		`","image":"registry.example.com/app:v2.14.1","imageID":"registry.example.com/app@sha256:` +
		strconv.FormatUint(g.rng.Uint64(), 16) + `","lastState":{},"name":"app","ready":true,"restartCount":` +
		strconv.Itoa(g.rng.IntN(5)) + `,"started":true,"state":{"running":{"startedAt":"2026-08-20T08:12:06Z"}}}]}}`)
}

func (g *logGen) podObject(ns, app, pod string) json.RawMessage {
	return json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"` + pod + `","generateName":"` +
		pod[:len(pod)-5] + `","namespace":"` + ns + `","uid":"` + strconv.FormatUint(g.rng.Uint64(), 16) +
		`","resourceVersion":"` + strconv.Itoa(100000+g.rng.IntN(900000)) +
		`","labels":{"app":"` + app + `","pod-template-hash":"` + pod[len(app)+1:len(pod)-6] +
		`"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"` + pod[:len(pod)-6] +
		`","uid":"e37bfb59-5dd6-4e34-bb6e-c9a490345cd1","controller":true,"blockOwnerDeletion":true}]},` +
		`"spec":{"containers":[{"name":"app","image":"registry.example.com/app:v2.14.1","ports":[{"containerPort":8080,"protocol":"TCP"}],` +
		`"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],` +
		`"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"` +
		g.pick(genNodes) + `","schedulerName":"default-scheduler"},"status":{"phase":"Running","podIP":"10.244.1.` +
		strconv.Itoa(g.rng.IntN(250)) + `","qosClass":"Burstable","startTime":"2026-08-20T08:12:05Z"}}`)
}
