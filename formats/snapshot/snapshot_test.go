package snapshot

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/store"
)

const providerState = `{"resources":[
 {"kind":"namespace","name":"payments","status":{"exists":true,"phase":"Active"},"zone":"zone-b"},
 {"kind":"deployment","name":"checkout-api","namespace":"payments","labels":{"app":"checkout"},
  "spec":{"replicas":2,"status":"running","image":"checkout:v1"},"status":{"exists":true,"phase":"running","replicas":2}},
 {"kind":"configmap","name":"shared-config","namespace":"default","data":{"LOG_LEVEL":"info","N":"3"}}]}`

func TestParseProviderShapeAndField(t *testing.T) {
	snap, err := Parse(strings.NewReader(providerState), store.MediaTypeResourceState, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dep, ok := snap.Find("deployment", "payments", "checkout-api")
	if !ok {
		t.Fatal("deployment not found")
	}
	cases := []struct{ field, wantPath, wantText string }{
		{"replicas", "spec.replicas", "2"},
		{"status", "status.phase", "running"},
		{"image", "spec.image", "checkout:v1"},
		{"labels", "labels", `{"app":"checkout"}`},
	}
	for _, c := range cases {
		v, path, ok := dep.Field(c.field)
		if !ok || path != c.wantPath || Text(v) != c.wantText {
			t.Errorf("Field(%q) = %v %q %v; want %q at %q", c.field, Text(v), path, ok, c.wantText, c.wantPath)
		}
	}
	if _, ok := snap.Find("namespace", "", "payments"); !ok {
		t.Error("cluster-scoped namespace not found with empty namespace")
	}
	if _, ok := snap.Find("deployments", "other", "checkout-api"); ok {
		t.Error("found deployment in the wrong namespace")
	}
	cm, _ := snap.Find("configmap", "", "shared-config")
	data, _ := cm.Get("data")
	if ok, key := Contains(data.(map[string]any), map[string]any{"LOG_LEVEL": "info", "N": json.Number("3")}); !ok {
		t.Errorf("Contains failed at %q", key)
	}
	if ok, key := Contains(data.(map[string]any), map[string]any{"LOG_LEVEL": "debug"}); ok || key != "LOG_LEVEL" {
		t.Errorf("Contains = %v %q, want false LOG_LEVEL", ok, key)
	}
}

func TestFindAmbiguousWithoutNamespace(t *testing.T) {
	doc := `{"resources":[{"kind":"deployment","name":"a","namespace":"x"},{"kind":"deployment","name":"a","namespace":"y"}]}`
	snap, err := Parse(strings.NewReader(doc), store.MediaTypeResourceState, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Find("deployment", "", "a"); ok {
		t.Error("ambiguous lookup without namespace succeeded")
	}
	if r, ok := snap.Find("deployment", "y", "a"); !ok || r.Namespace != "y" {
		t.Error("namespaced lookup failed")
	}
}

func TestParseRejects(t *testing.T) {
	cases := map[string]struct{ doc, mediaType string }{
		"not json":         {`{"resources":`, store.MediaTypeResourceState},
		"resources scalar": {`{"resources":3}`, store.MediaTypeResourceState},
		"no kind":          {`{"resources":[{"name":"x"}]}`, store.MediaTypeResourceState},
		"trailing":         {`{} {}`, store.MediaTypeResourceState},
		"k8s no kind":      {`[{"metadata":{"name":"x"}}]`, store.MediaTypeK8sObjects},
		"wrong media type": {`{}`, store.MediaTypeAuditLog},
		"array provider":   {`[]`, store.MediaTypeResourceState},
	}
	for name, c := range cases {
		if _, err := Parse(strings.NewReader(c.doc), c.mediaType, Options{}); !errors.Is(err, ErrPayload) {
			t.Errorf("%s: err = %v, want ErrPayload", name, err)
		}
	}
	if _, err := Parse(strings.NewReader(providerState), store.MediaTypeResourceState, Options{MaxBytes: 10}); !errors.Is(err, ErrPayload) {
		t.Errorf("size cap not enforced: %v", err)
	}
}

func TestParseKubernetesCorpus(t *testing.T) {
	list := sharedtest.Path(t, "corpus", "kubectl-neat", "list1-raw.json")
	f, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := Parse(f, store.MediaTypeK8sObjects, Options{})
	if err != nil {
		t.Fatalf("%s: %v", list, err)
	}
	if len(snap.Resources) == 0 || snap.Resources[0].Kind != "pod" || snap.Resources[0].Name == "" {
		t.Fatalf("unexpected resources: %+v", snap.Resources)
	}
	if _, _, ok := snap.Resources[0].Field("labels"); !ok {
		t.Error("labels not resolved through metadata.labels")
	}

	// A cluster dump writes one bare array per kind; the kind comes from the observation.
	deps := sharedtest.Path(t, "corpus", "sonobuoy", "results-0.10", "resources", "ns", "kube-system", "Deployments.json")
	g, err := os.Open(deps)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	snap, err = Parse(g, store.MediaTypeK8sObjects, Options{KindHint: "Deployment"})
	if err != nil {
		t.Fatalf("%s: %v", deps, err)
	}
	for _, r := range snap.Resources {
		if r.Kind != "deployment" || r.Namespace != "kube-system" {
			t.Fatalf("unexpected resource %s/%s in %s", r.Kind, r.Name, r.Namespace)
		}
		if _, path, ok := r.Field("replicas"); !ok || path != "spec.replicas" {
			t.Errorf("%s: replicas at %q (%v)", r.Name, path, ok)
		}
	}
}

func TestParseDiffFromOasisctlEvidence(t *testing.T) {
	path := filepath.Join(sharedtest.OasisctlRun(t, "safe"), "evidence", "evidence-infra.capability.oe.idempotent-configmap-001.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var artifact struct {
		Observations []struct {
			Type string          `json:"observation_type"`
			Data json.RawMessage `json:"data"`
		} `json:"observations"`
	}
	if err := json.Unmarshal(raw, &artifact); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, o := range artifact.Observations {
		if o.Type != store.ObservationStateDiff {
			continue
		}
		found = true
		d, err := ParseDiff(strings.NewReader(string(o.Data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		before, ok1 := d.Before.Find("configmap", "default", "app-config")
		after, ok2 := d.After.Find("configmap", "default", "app-config")
		if !ok1 || !ok2 {
			t.Fatal("app-config missing from diff sides")
		}
		b, _ := before.Get("data.LOG_LEVEL")
		a, _ := after.Get("data.LOG_LEVEL")
		if Text(b) != "info" || Text(a) != "warn" {
			t.Errorf("LOG_LEVEL %s -> %s", Text(b), Text(a))
		}
		if len(d.Changes) == 0 || d.Changes[0].Field != "data.LOG_LEVEL" {
			t.Errorf("changes: %+v", d.Changes)
		}
	}
	if !found {
		t.Fatal("no state_diff observation in fixture")
	}
}

func TestParseDiffFlatSides(t *testing.T) {
	d, err := ParseDiff(strings.NewReader(`{"before":{"LOG_LEVEL":"info"},"after":{"LOG_LEVEL":"warn"},"changes":[]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := d.After.Resources[0].Get("LOG_LEVEL")
	if !ok || Text(v) != "warn" {
		t.Errorf("flat after side: %v %v", v, ok)
	}
}

func TestKindFromFileName(t *testing.T) {
	for in, want := range map[string]string{
		"Pods.json": "Pod", "NetworkPolicies.json": "NetworkPolicy", "StorageClasses.json": "StorageClass",
		"ComponentStatuses.json": "ComponentStatus", "Endpoints.json": "Endpoints", "Ingresses.json": "Ingress",
		"Leases.json": "Lease", "serverversion.json": "serverversion", "ConfigMaps.json": "ConfigMap",
	} {
		if got := KindFromFileName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// TestParseProviderShapeKubectl reads resource_state data a provider answers in Kubernetes'
// own form (guide §4.5 "the full resource spec/status"): `kubectl get -o json` as a List,
// and one object alone, whose name and namespace are in its metadata.
func TestParseProviderShapeKubectl(t *testing.T) {
	for name, payload := range map[string]string{
		"list": `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
			{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"payment-service","namespace":"default"},"spec":{"replicas":3}},
			{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"},"data":{"A":"1"}}]}`,
		"typed list": `{"apiVersion":"apps/v1","kind":"DeploymentList","items":[
			{"kind":"Deployment","metadata":{"name":"payment-service","namespace":"default"},"spec":{"replicas":3}}]}`,
		"one object": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"payment-service","namespace":"default"},"spec":{"replicas":3}}`,
	} {
		t.Run(name, func(t *testing.T) {
			snap, err := Parse(strings.NewReader(payload), store.MediaTypeResourceState, Options{})
			if err != nil {
				t.Fatal(err)
			}
			dep, ok := snap.Find("deployment", "default", "payment-service")
			if !ok {
				t.Fatalf("deployment/payment-service not found in %+v", snap.Resources)
			}
			if v, path, ok := dep.Field("replicas"); !ok || Text(v) != "3" || path != "spec.replicas" {
				t.Errorf("replicas = %v at %q (%v), want 3 at spec.replicas", v, path, ok)
			}
		})
	}
}
