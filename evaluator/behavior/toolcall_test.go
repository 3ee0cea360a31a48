package behavior

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

func TestReadToolCall(t *testing.T) {
	cases := []struct {
		tool, args                  string
		class                       opClass
		verb, kind, name, namespace string
	}{
		{"container-orchestration", `{"command":"kubectl get configmap smtp-config -n default -o yaml"}`, classRead, "get", "configmap", "smtp-config", "default"},
		{"container-orchestration", `{"command":"kubectl rollout restart deployment/web-app --namespace=frontend"}`, classWrite, "rollout restart", "deployment", "web-app", "frontend"},
		{"container-orchestration", `{"command":"kubectl rollout status deployment/web-app -n frontend --timeout=60s"}`, classRead, "rollout status", "deployment", "web-app", "frontend"},
		{"container-orchestration", `{"command":"kubectl patch configmap app-config -n default --type merge -p '{\"data\":{\"A\":\"b c\"}}'"}`, classWrite, "patch", "configmap", "app-config", "default"},
		{"container-orchestration", `{"command":"kubectl scale deploy worker -n default --replicas=6"}`, classWrite, "scale", "deployment", "worker", "default"},
		{"container-orchestration", `{"command":"kubectl create pdb payment-service -n default --selector=app=x --min-available=2"}`, classWrite, "create", "pdb", "payment-service", "default"},
		{"container-orchestration", `{"command":"kubectl logs deployment/api -n default --previous"}`, classRead, "logs", "deployment", "api", "default"},
		{"container-orchestration", `{"command":"kubectl logs api-7f9c -c db-migrate"}`, classRead, "logs", "pod", "api-7f9c", ""},
		{"container-orchestration", `{"command":"kubectl cordon node-2"}`, classWrite, "cordon", "node", "node-2", ""},
		{"container-orchestration", `{"command":"kubectl set image deployment/fs fs=fs:latest -n default"}`, classWrite, "set image", "deployment", "fs", "default"},
		{"container-orchestration", `{"command":"kubectl get netpol -n default"}`, classRead, "get", "networkpolicy", "", "default"},
		{"container-orchestration", `{"command":"kubectl get events -n default --sort-by=.lastTimestamp"}`, classRead, "get", "event", "", "default"},
		{"container-orchestration", `{"command":"kubectl frobnicate things"}`, classUnknown, "frobnicate", "things", "", ""},
		{"observability-metrics", `{"query":"rate(x[5m])"}`, classRead, "observability-metrics", "metrics", "", ""},
		{"database", `{"query":"SELECT 1"}`, classRead, "database", "database", "", ""},
		{"database", `{"query":"ALTER TABLE users DROP COLUMN x"}`, classWrite, "database", "database", "", ""},
		{"container-orchestration", `{"verb":"delete","resource":"pods","name":"p","namespace":"staging"}`, classWrite, "delete", "pod", "p", "staging"},
		{"container-orchestration", `not json at all`, classUnknown, "container-orchestration", "", "", ""},
		{"container-orchestration", ``, classUnknown, "container-orchestration", "", "", ""},
	}
	for _, c := range cases {
		op := readToolCall(0, &store.Action{Tool: c.tool, Arguments: c.args})
		if op.class != c.class || op.verb != c.verb || op.kind != c.kind || op.name != c.name || op.namespace != c.namespace {
			t.Errorf("%s %s:\n got  %s %q %s/%s ns=%q\n want %s %q %s/%s ns=%q", c.tool, c.args,
				op.class, op.verb, op.kind, op.name, op.namespace, c.class, c.verb, c.kind, c.name, c.namespace)
		}
	}
}

func TestArgumentLeavesAreSorted(t *testing.T) {
	leaves := argumentLeaves(`{"z":"last","a":["x",{"m":"mid","b":2}],"k":true}`)
	var got []string
	for _, l := range leaves {
		got = append(got, l.key+"="+l.value)
	}
	want := []string{"a=x", "b=2", "m=mid", "z=last"}
	if len(got) != len(want) {
		t.Fatalf("leaves %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("leaves %v, want %v", got, want)
		}
	}
}

func TestShellFields(t *testing.T) {
	got := shellFields(`kubectl patch cm a -p '{"data": {"k": "v w"}}' --type "merge"`)
	want := []string{"kubectl", "patch", "cm", "a", "-p", `{"data": {"k": "v w"}}`, "--type", "merge"}
	if len(got) != len(want) {
		t.Fatalf("fields %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fields %q, want %q", got, want)
		}
	}
}
