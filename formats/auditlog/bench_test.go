package auditlog

import (
	"bytes"
	"strings"
	"testing"
)

// benchEvents are events of the kinds that fill a real audit log: a lease renewal, a kubelet
// read, a status patch with request and response objects, a watch, a denied delete.
var benchEvents = []string{
	`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6f1c2a4e-0001-4f7e-8003-208734549c65","stage":"ResponseComplete","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/ip-10-0-1-23.internal","verb":"update","user":{"username":"system:node:ip-10-0-1-23.internal","groups":["system:nodes","system:authenticated"]},"sourceIPs":["10.0.1.23"],"userAgent":"kubelet/v1.31.4 (linux/amd64) kubernetes/a78aa47","objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"ip-10-0-1-23.internal","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-08-20T08:12:05.002033Z","stageTimestamp":"2026-08-20T08:12:05.005603Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
	`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6f1c2a4e-0002-4f7e-8003-208734549c65","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/payments/configmaps/checkout-api-config","verb":"get","user":{"username":"system:node:ip-10-0-2-41.internal","groups":["system:nodes","system:authenticated"]},"sourceIPs":["10.0.2.41"],"userAgent":"kubelet/v1.31.4 (linux/amd64) kubernetes/a78aa47","objectRef":{"resource":"configmaps","namespace":"payments","name":"checkout-api-config","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-08-20T08:12:05.012033Z","stageTimestamp":"2026-08-20T08:12:05.015603Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
	`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"6f1c2a4e-0003-4f7e-8003-208734549c65","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/payments/pods/checkout-api-7d9f8b6c5d-x2b4z/status","verb":"patch","user":{"username":"system:node:ip-10-0-2-41.internal","groups":["system:nodes","system:authenticated"]},"sourceIPs":["10.0.2.41"],"userAgent":"kubelet/v1.31.4 (linux/amd64) kubernetes/a78aa47","objectRef":{"resource":"pods","namespace":"payments","name":"checkout-api-7d9f8b6c5d-x2b4z","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-08-20T08:12:07Z","status":"True","type":"Ready"}],"containerStatuses":[{"containerID":"containerd://4b0d","image":"registry.example.com/app:v2.14.1","name":"app","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2026-08-20T08:12:06Z"}}}]}},"responseObject":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"checkout-api-7d9f8b6c5d-x2b4z","namespace":"payments","labels":{"app":"checkout-api","pod-template-hash":"7d9f8b6c5d"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"checkout-api-7d9f8b6c5d","uid":"e37bfb59-5dd6-4e34-bb6e-c9a490345cd1","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"app","image":"registry.example.com/app:v2.14.1","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}],"nodeName":"ip-10-0-2-41.internal"},"status":{"phase":"Running","podIP":"10.244.1.23","qosClass":"Burstable"}},"requestReceivedTimestamp":"2026-08-20T08:12:05.022033Z","stageTimestamp":"2026-08-20T08:12:05.025603Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
	`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6f1c2a4e-0004-4f7e-8003-208734549c65","stage":"ResponseStarted","requestURI":"/apis/discovery.k8s.io/v1/endpointslices?allowWatchBookmarks=true\u0026resourceVersion=2528212\u0026timeout=5m56s\u0026timeoutSeconds=356\u0026watch=true","verb":"watch","user":{"username":"system:serviceaccount:kube-system:coredns","groups":["system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated"]},"sourceIPs":["10.244.0.3"],"userAgent":"coredns/v1.11.3","objectRef":{"resource":"endpointslices","apiGroup":"discovery.k8s.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-08-20T08:12:05.032033Z","stageTimestamp":"2026-08-20T08:12:05.035603Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \"system:coredns\" of ClusterRole \"system:coredns\" to ServiceAccount \"coredns/kube-system\""}}`,
	`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"6f1c2a4e-0005-4f7e-8003-208734549c65","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/payments/pods/checkout-api-7d9f8b6c5d-x2b4z","verb":"delete","user":{"username":"system:serviceaccount:oasis-agents:agent","groups":["system:serviceaccounts","system:authenticated"]},"sourceIPs":["10.244.1.23"],"userAgent":"kubectl/v1.30.2 (linux/amd64) kubernetes/3f7a50f","objectRef":{"resource":"pods","namespace":"payments","name":"checkout-api-7d9f8b6c5d-x2b4z","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"pods \"checkout-api-7d9f8b6c5d-x2b4z\" is forbidden","reason":"Forbidden","code":403},"requestObject":{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"},"requestReceivedTimestamp":"2026-08-20T08:12:05.042033Z","stageTimestamp":"2026-08-20T08:12:05.045603Z","annotations":{"authorization.k8s.io/decision":"forbid","authorization.k8s.io/reason":""}}`,
}

// benchLog is at least size bytes of JSON lines: benchEvents over and over.
func benchLog(size int) []byte {
	var buf bytes.Buffer
	for buf.Len() < size {
		buf.WriteString(strings.Join(benchEvents, "\n"))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// BenchmarkScan measures the reader alone on JSON lines (the apiserver's log backend).
func BenchmarkScan(b *testing.B) {
	log := benchLog(8 << 20)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := Scan(bytes.NewReader(log), jsonl, func(*Entry) error { n++; return nil }); err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
}
