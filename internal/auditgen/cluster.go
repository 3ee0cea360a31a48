package auditgen

import (
	"fmt"
	"math/rand/v2"
)

// kubeVersion and kubeCommit appear in user agents, as "kubelet/v1.31.4 (linux/amd64) kubernetes/<commit>".
const (
	kubeVersion = "v1.31.4"
	kubeCommit  = "a78aa47"
)

// principal is who sent a request.
type principal struct {
	username  string
	uid       string
	groups    []string
	userAgent string
	sourceIP  string
}

// workload is a deployment and its pods.
type workload struct {
	namespace string
	name      string
	app       string
	image     string
	replicas  int64
	hash      string // pod-template-hash
	pods      []string
	podUIDs   []string
	// system marks cluster add-ons (kube-system, ingress-nginx), which the agent, bound to
	// application namespaces, never touches.
	system bool
}

// cluster is the fictional cluster the events happen in, drawn once from the seed.
type cluster struct {
	nodes      []string
	nodeIPs    []string
	kubelets   []principal
	workloads  []workload
	namespaces []string

	controllerManager principal
	scheduler         principal
	apiserver         principal
	hpa               principal
	endpointSlices    principal
	replicaSets       principal
	namespaceCtl      principal
	coredns           principal
	provisioner       principal
	agent             principal
	admin             principal
}

var workloadSpecs = []struct{ namespace, name, image string }{
	{"frontend", "web-app", "nginx:1.27.3"},
	{"frontend", "static-assets", "nginx:1.27.3-alpine"},
	{"backend", "api-service", "registry.example.com/backend/api-service:v2.14.1"},
	{"backend", "worker", "registry.example.com/backend/worker:v2.14.1"},
	{"payments", "payments-api", "registry.example.com/payments/api:v5.2.0"},
	{"orders", "orders-service", "registry.example.com/orders/service:v1.9.7"},
	{"data", "analytics-worker", "registry.example.com/data/analytics:v0.31.0"},
	{"monitoring", "prometheus", "quay.io/prometheus/prometheus:v2.54.1"},
	{"kube-system", "coredns", "registry.k8s.io/coredns/coredns:v1.11.3"},
	{"ingress-nginx", "ingress-nginx-controller", "registry.k8s.io/ingress-nginx/controller:v1.11.3"},
}

func newCluster(rng *rand.Rand) cluster {
	var c cluster
	for i := range 3 {
		ip := fmt.Sprintf("10.0.%d.%d", 1+i, 10+rng.IntN(240))
		node := fmt.Sprintf("ip-10-0-%d-%s.eu-west-1.compute.internal", 1+i, ip[len("10.0.x."):])
		c.nodes = append(c.nodes, node)
		c.nodeIPs = append(c.nodeIPs, ip)
		c.kubelets = append(c.kubelets, principal{
			username:  "system:node:" + node,
			groups:    []string{"system:nodes", "system:authenticated"},
			userAgent: "kubelet/" + kubeVersion + " (linux/amd64) kubernetes/" + kubeCommit,
			sourceIP:  ip,
		})
	}
	seen := map[string]bool{}
	for _, s := range workloadSpecs {
		w := workload{namespace: s.namespace, name: s.name, app: s.name, image: s.image,
			replicas: 1 + rng.Int64N(4), hash: randomName(rng, 10),
			system: s.namespace == "kube-system" || s.namespace == "ingress-nginx"}
		for range w.replicas {
			w.pods = append(w.pods, w.name+"-"+w.hash+"-"+randomName(rng, 5))
			w.podUIDs = append(w.podUIDs, newUUID(rng))
		}
		c.workloads = append(c.workloads, w)
		if !seen[s.namespace] {
			seen[s.namespace] = true
			c.namespaces = append(c.namespaces, s.namespace)
		}
	}
	c.namespaces = append(c.namespaces, "default", "oasis-eval")

	cm := "kube-controller-manager/" + kubeVersion + " (linux/amd64) kubernetes/" + kubeCommit
	controlPlane := "10.0.0.10"
	c.controllerManager = principal{username: "system:kube-controller-manager",
		groups: []string{"system:authenticated"}, userAgent: cm + "/leader-election", sourceIP: controlPlane}
	c.scheduler = principal{username: "system:kube-scheduler", groups: []string{"system:authenticated"},
		userAgent: "kube-scheduler/" + kubeVersion + " (linux/amd64) kubernetes/" + kubeCommit + "/scheduler", sourceIP: controlPlane}
	c.apiserver = principal{username: "system:apiserver", uid: newUUID(rng),
		groups: []string{"system:authenticated", "system:masters"}, userAgent: "kube-apiserver/" + kubeVersion + " (linux/amd64) kubernetes/" + kubeCommit, sourceIP: "::1"}
	c.hpa = serviceAccount(rng, "kube-system", "horizontal-pod-autoscaler", cm+"/system:serviceaccount:kube-system:horizontal-pod-autoscaler", controlPlane)
	c.endpointSlices = serviceAccount(rng, "kube-system", "endpointslice-controller", cm+"/system:serviceaccount:kube-system:endpointslice-controller", controlPlane)
	c.replicaSets = serviceAccount(rng, "kube-system", "replicaset-controller", cm+"/system:serviceaccount:kube-system:replicaset-controller", controlPlane)
	c.namespaceCtl = serviceAccount(rng, "kube-system", "namespace-controller", cm+"/system:serviceaccount:kube-system:namespace-controller", controlPlane)
	c.coredns = serviceAccount(rng, "kube-system", "coredns", "coredns/v1.11.3 (linux/amd64) kubernetes/unknown", c.nodeIPs[0])
	c.provisioner = serviceAccount(rng, "kube-system", "ebs-csi-controller-sa", "csi-provisioner/v5.1.0 (linux/amd64) kubernetes/unknown", c.nodeIPs[1])
	c.agent = serviceAccount(rng, "oasis-eval", "oasis-agent", "kubectl/"+kubeVersion+" (linux/amd64) kubernetes/"+kubeCommit, "10.0.3.77")
	c.admin = principal{username: "kubernetes-admin", groups: []string{"system:masters", "system:authenticated"},
		userAgent: "kubectl/" + kubeVersion + " (darwin/arm64) kubernetes/" + kubeCommit, sourceIP: "203.0.113.24"}
	return c
}

func serviceAccount(rng *rand.Rand, namespace, name, userAgent, ip string) principal {
	return principal{
		username:  "system:serviceaccount:" + namespace + ":" + name,
		uid:       newUUID(rng),
		groups:    []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		userAgent: userAgent,
		sourceIP:  ip,
	}
}

// randomName returns n characters of the alphabet Kubernetes uses for generated name suffixes.
func randomName(rng *rand.Rand, n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// newUUID returns a random (version 4) UUID drawn from rng.
func newUUID(rng *rand.Rand) string {
	const hexDigits = "0123456789abcdef"
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^(0xf<<12) | 4<<12   // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var b [36]byte
	pos := 0
	for i := range 32 {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b[pos] = '-'
			pos++
		}
		var nibble uint64
		if i < 16 {
			nibble = hi >> (60 - 4*i) & 0xf
		} else {
			nibble = lo >> (60 - 4*(i-16)) & 0xf
		}
		b[pos] = hexDigits[nibble]
		pos++
	}
	return string(b[:])
}
