package snapshot

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrPayload: a state payload cannot be read (malformed JSON, wrong shape, too large).
var ErrPayload = errclass.New(errclass.Input, "snapshot: invalid payload")

// Limits of a state payload. A payload is read whole, into the document model and then into
// the Go values Resource.Doc holds, so every value is paid for twice: measured by
// TestPayloadMemoryPerValue, a value costs up to about 100 bytes as a node and 185 more as a Go
// value (an object of one member, a map of its own), and a string's bytes are held three times
// (the caller's copy, the one read here, the tree's). These limits keep a payload under about 125
// MiB of memory whatever its shape, so that a command reading one stays within 256 MiB (DESIGN
// §7), while admitting far more than the state of an OASIS scenario's cluster: a namespace of
// 500 objects (Deployments of 150 values, Pods of 300, ConfigMaps of 30; 10 to 25 bytes a value)
// is about 100,000 values and 2 MiB. A larger cluster is recorded as a directory of files, one
// kind a file, each a payload of its own.
const (
	// DefaultMaxBytes bounds the bytes of a payload (Options.MaxBytes when that is not set):
	// errors name Limits.MaxBytes.
	DefaultMaxBytes = 16 << 20
	// MaxValues bounds the values of a payload, every scalar, array and object counted once:
	// errors name Limits.MaxNodes.
	MaxValues = 1 << 18
)

// Resource is one resource of an observed state.
type Resource struct {
	// Kind is the OASIS singular, lowercase kind ("deployment", "configmap", "hpa").
	Kind      string
	Name      string
	Namespace string
	// Doc is the resource document as observed; numbers are json.Number.
	Doc map[string]any
	// Index is the resource's position in its payload, for citations.
	Index int
}

// Ref renders "kind/name" as OASIS scenarios write it.
func (r *Resource) Ref() string { return r.Kind + "/" + r.Name }

// Snapshot is an observed state: resources in payload order.
type Snapshot struct {
	Resources []Resource
}

// Options tune Parse.
type Options struct {
	// MaxBytes bounds the payload (DefaultMaxBytes when ≤ 0). A larger bound raises the memory
	// a payload may take, as the limits' comment measures.
	MaxBytes int64
	// KindHint is the kind of objects that do not name their own (a bare JSON array of
	// Kubernetes objects, as cluster dump tools write one file per kind). It comes from the
	// observation's store.AttrKind attribute.
	KindHint string
	// Name names the payload in errors (a file name); "payload" when empty.
	Name string
}

// Parse reads a resource_state payload of the given media type.
func Parse(r io.Reader, mediaType string, opts Options) (*Snapshot, error) {
	v, err := readJSON(r, opts.Name, opts.MaxBytes)
	if err != nil {
		return nil, err
	}
	switch mediaType {
	case store.MediaTypeResourceState, store.MediaTypeJSON:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: top level is not an object", ErrPayload)
		}
		return parseProviderShape(obj)
	case store.MediaTypeK8sObjects:
		return parseKubernetes(v, opts.KindHint)
	}
	return nil, fmt.Errorf("%w: media type %q is not a state payload", ErrPayload, mediaType)
}

func parseProviderShape(obj map[string]any) (*Snapshot, error) {
	list, hasList := obj["resources"]
	if !hasList {
		if _, isItems := obj["items"].([]any); isItems && isListKind(obj["kind"]) {
			// `kubectl get -o json` output: guide §4.5 gives resource_state data as "the full
			// resource spec/status", which a provider may answer in Kubernetes' own List form
			// (docs/decisions.md, "resource_state data in Kubernetes form").
			return parseKubernetes(obj, "")
		}
		// A single resource object (provider guide: "the full spec/status of one resource").
		res, err := providerResource(obj, 0)
		if err != nil {
			return nil, err
		}
		return &Snapshot{Resources: []Resource{res}}, nil
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: resources is not an array", ErrPayload)
	}
	snap := &Snapshot{Resources: make([]Resource, 0, len(items))}
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: resources[%d] is not an object", ErrPayload, i)
		}
		res, err := providerResource(m, i)
		if err != nil {
			return nil, fmt.Errorf("%w (resources[%d])", err, i)
		}
		snap.Resources = append(snap.Resources, res)
	}
	return snap, nil
}

func providerResource(m map[string]any, index int) (Resource, error) {
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	ns, _ := m["namespace"].(string)
	if meta, ok := m["metadata"].(map[string]any); ok && name == "" {
		// One Kubernetes object alone (kubectl get <kind> <name> -o json): name and namespace
		// are in its metadata.
		name, _ = meta["name"].(string)
		ns, _ = meta["namespace"].(string)
	}
	if kind == "" || name == "" {
		// Some providers write "resource": "kind/name" instead of kind and name.
		if ref, ok := m["resource"].(string); ok {
			kind, name, _ = strings.Cut(ref, "/")
		}
	}
	if kind == "" {
		return Resource{}, fmt.Errorf("%w: resource without kind", ErrPayload)
	}
	return Resource{Kind: NormalizeKind(kind), Name: name, Namespace: ns, Doc: m, Index: index}, nil
}

// isListKind reports whether a kind is Kubernetes' List or a typed list ("DeploymentList").
func isListKind(kind any) bool {
	k, _ := kind.(string)
	return strings.HasSuffix(k, "List")
}

func parseKubernetes(doc any, kindHint string) (*Snapshot, error) {
	var items []any
	switch top := doc.(type) {
	case []any:
		items = top
	case map[string]any:
		items = []any{top}
		if list, ok := top["items"].([]any); ok {
			items = list
		}
	default:
		return nil, fmt.Errorf("%w: top level is neither an object nor an array", ErrPayload)
	}
	snap := &Snapshot{Resources: make([]Resource, 0, len(items))}
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: items[%d] is not an object", ErrPayload, i)
		}
		kind, _ := m["kind"].(string)
		if kind == "" {
			kind = kindHint
		}
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		if kind == "" || name == "" {
			return nil, fmt.Errorf("%w: items[%d]: object without kind or metadata.name", ErrPayload, i)
		}
		snap.Resources = append(snap.Resources, Resource{Kind: NormalizeKind(kind), Name: name, Namespace: ns, Doc: m, Index: i})
	}
	return snap, nil
}

// Find returns the resource with this kind and name. An empty namespace matches a resource in
// any namespace when exactly one namespace holds such a resource (scenarios often omit the
// namespace of a resource that exists once); otherwise the namespace must be equal. A snapshot
// merged from several observations of the same state (a provider's /observe answer and its
// /state-snapshot answer) can hold one resource more than once: the first is returned, and the
// copies do not make the name ambiguous (docs/decisions.md, "One resource observed twice").
func (s *Snapshot) Find(kind, namespace, name string) (*Resource, bool) {
	if s == nil {
		return nil, false
	}
	kind = NormalizeKind(kind)
	var found *Resource
	ambiguous := false
	for i := range s.Resources {
		r := &s.Resources[i]
		if r.Kind != kind || r.Name != name {
			continue
		}
		if namespace != "" {
			if r.Namespace == namespace {
				return r, true
			}
			continue
		}
		switch {
		case found == nil:
			found = r
		case found.Namespace != r.Namespace:
			ambiguous = true
		}
	}
	return found, found != nil && !ambiguous
}

// Get returns the value at a dotted path ("spec.replicas", "data.LOG_LEVEL"). Array elements
// are addressed by decimal index ("spec.containers.0.image").
func (r *Resource) Get(path string) (any, bool) {
	var cur any = r.Doc
	for elem := range strings.SplitSeq(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[elem]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := arrayIndex(elem, len(node))
			if !ok {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// fieldCandidates lists, for a short field name used in scenario pins, the paths tried in
// order. Names not listed try themselves, then spec.<name>, status.<name>, metadata.<name>.
var fieldCandidates = map[string][]string{
	"status":      {"status.phase", "spec.status", "status"},
	"replicas":    {"spec.replicas", "replicas", "status.replicas"},
	"image":       {"spec.image", "image", "spec.template.spec.containers.0.image", "spec.containers.0.image"},
	"labels":      {"labels", "metadata.labels"},
	"annotations": {"annotations", "metadata.annotations"},
	"sync_status": {"status.sync_status", "status.sync.status", "spec.sync_status", "sync_status"},
}

// Field resolves a short field name (see fieldCandidates) and returns the value and the path
// it was found at.
func (r *Resource) Field(name string) (value any, path string, ok bool) {
	candidates, listed := fieldCandidates[name]
	if !listed {
		candidates = []string{name, "spec." + name, "status." + name, "metadata." + name}
	}
	for _, p := range candidates {
		if v, ok := r.Get(p); ok {
			return v, p, true
		}
	}
	return nil, "", false
}

// Text renders a scalar the way a YAML or JSON literal reads: strings as themselves, numbers
// in their literal form, booleans as true/false, null as "null". Containers render as
// canonical JSON so that equal containers give equal text.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	default:
		b, err := store.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// Equal compares two values by literal text, case-sensitively; for objects it compares the
// whole canonical form.
func Equal(a, b any) bool { return Text(a) == Text(b) }

// Contains reports whether every key of want is in got with an equal value (a subset check, the
// meaning of a `data: {K: V}` or `labels: {k: v}` pin). It returns the first differing key.
func Contains(got, want map[string]any) (ok bool, differingKey string) {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		g, present := got[k]
		if !present || !Equal(g, want[k]) {
			return false, k
		}
	}
	return true, ""
}

// kindAliases maps Kubernetes kinds, plurals and short names to the OASIS singular resource
// names of interface-types §4.
var kindAliases = map[string]string{
	"horizontalpodautoscaler": "hpa", "horizontalpodautoscalers": "hpa",
	"persistentvolumeclaim": "pvc", "persistentvolumeclaims": "pvc",
	"application": "gitops-application", "applications": "gitops-application",
	"deployments": "deployment", "pods": "pod", "services": "service", "configmaps": "configmap",
	"secrets": "secret", "namespaces": "namespace", "ingresses": "ingress", "nodes": "node",
	"networkpolicies": "networkpolicy", "roles": "role", "rolebindings": "rolebinding",
	"clusterroles": "clusterrole", "clusterrolebindings": "clusterrolebinding",
	"statefulsets": "statefulset", "daemonsets": "daemonset", "replicasets": "replicaset",
	"cronjobs": "cronjob", "jobs": "job", "poddisruptionbudget": "pdb", "poddisruptionbudgets": "pdb",
	"endpoints": "endpoints", "events": "event", "controllerrevisions": "controllerrevision",
	"serviceaccounts": "serviceaccount",
}

// NormalizeKind maps a kind as written by Kubernetes or a provider to the OASIS singular form.
func NormalizeKind(kind string) string {
	k := strings.ToLower(kind)
	if alias, ok := kindAliases[k]; ok {
		return alias
	}
	return k
}

// readJSON reads one JSON document with internal/doc (positions in errors, duplicate names
// refused) into the values encoding/json gives with UseNumber, which the model holds. name
// names the payload in errors.
func readJSON(r io.Reader, name string, maxBytes int64) (any, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if name == "" {
		name = "payload"
	}
	lim := doc.Limits{MaxBytes: maxBytes, MaxStringBytes: int(min(maxBytes, 1<<30)), MaxNodes: MaxValues}
	data, err := doc.ReadAll(name, r, lim)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPayload, err)
	}
	n, err := doc.ParseJSON(name, data, lim)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPayload, err)
	}
	var v any
	if err := doc.Decode(n, &v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPayload, err)
	}
	return v, nil
}

func arrayIndex(elem string, n int) (int, bool) {
	if elem == "" || len(elem) > 9 {
		return 0, false
	}
	i := 0
	for _, c := range elem {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, i < n
}

// KindFromFileName turns a dump file's name into the Kubernetes kind it holds: "Pods.json" →
// "Pod", "NetworkPolicies.json" → "NetworkPolicy", "StorageClasses.json" → "StorageClass",
// "ComponentStatuses.json" → "ComponentStatus"; "Endpoints" is its own singular.
func KindFromFileName(file string) string {
	name := strings.TrimSuffix(file, filepath.Ext(file))
	lower := strings.ToLower(name)
	switch {
	case lower == "endpoints" || !strings.HasSuffix(lower, "s"):
		return name
	case strings.HasSuffix(lower, "ies"):
		return name[:len(name)-3] + "y"
	case strings.HasSuffix(lower, "sses"), strings.HasSuffix(lower, "uses"), strings.HasSuffix(lower, "xes"):
		return name[:len(name)-2]
	}
	return name[:len(name)-1]
}
