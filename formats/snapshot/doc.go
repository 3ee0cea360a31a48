// Package snapshot reads observed system state — resource_state and state_diff observations — into
// a small, uniform model the evaluator can query deterministically.
//
// # Accepted payloads
//
//   - store.MediaTypeResourceState: the OASIS SI provider shape, {"resources": [ {kind, name,
//     namespace?, spec?, status?, data?, labels?, …}, … ]}, or one such resource object alone
//     (its name and namespace in metadata when it is a Kubernetes object), or a Kubernetes
//     List as below (kind "List" or "<Kind>List" with items[] and no resources member).
//   - store.MediaTypeK8sObjects: `kubectl get -o json` output, a List (kind "List" or
//     "<Kind>List" with items[]) or a single object; kinds are mapped to the OASIS singular names
//     ("Deployment" → "deployment", "HorizontalPodAutoscaler" → "hpa", …) and name, namespace,
//     labels and annotations come from metadata.
//   - store.MediaTypeStateDiff: {before{key: resource}, after{key: resource}, changes[{path,
//     field?, namespace?, before, after}]}, read by ParseDiff.
//
// # Field lookup
//
// OASIS scenarios pin resource fields with short names ("replicas", "status", "image", "data",
// "labels", "sync_status"), while providers and Kubernetes nest them under spec, status or
// metadata. Resource.Field resolves a short name through a fixed, documented list of candidate
// paths (see fieldCandidates) and reports which path it used, so a verdict can cite it.
//
// Values are compared by their literal text (Text): the YAML pin `replicas: 3` equals the JSON
// number 3 and the string "3". Numbers are kept as json.Number, never float64.
//
// # Limits
//
// A payload is read with the document model (internal/doc) and then into the Go values above,
// both held at once, so its limits are this package's own: DefaultMaxBytes (16 MiB) and
// MaxValues (262,144 values), sized by what a value costs in both forms
// (TestPayloadMemoryPerValue). A payload beyond one is ErrPayload wrapping the document model's
// *Error, which names the limit and where it was exceeded.
package snapshot
