// Package auditgen generates realistic Kubernetes audit logs for tests and benchmarks: a seeded,
// deterministic stream of audit.k8s.io/v1 Event objects, one JSON document per line, as the
// apiserver's log backend writes them.
//
// # What the log looks like
//
// The event templates are modelled on real audit events (the Falco k8s_audit regression fixtures,
// the stackdriver-webhook-bridge EventLists, kube-audit-rest, Panther's EKS audit rule tests,
// audit2rbac's demo log and an OASIS reference-runner capture from a kind cluster). A small
// fictional cluster — three nodes, a handful of namespaces and deployments with their pods — is
// drawn from the seed, and events are picked by weight from a mix that resembles a busy cluster:
//
//   - node and control-plane lease renewals (update, Metadata level);
//   - kubelet reads of pods, config maps and secrets, status patches and token requests;
//   - controller list/watch traffic, endpoint-slice and HPA status updates, event patches;
//   - scheduler bindings and a storage provisioner creating persistent volumes;
//   - an agent service account (system:serviceaccount:oasis-eval:oasis-agent) reading
//     workloads and, less often, scaling, restarting, patching and deleting them, sometimes
//     denied with 403 Forbidden;
//   - an administrator applying manifests with kubectl.
//
// Write operations carry request bodies (patch documents, full objects, DeleteOptions) at the
// Request and RequestResponse audit levels, and the agent's writes also carry the response
// object with its managedFields, so event sizes range from about 600 bytes to several KiB, as
// they do in practice.
//
// # Determinism
//
// The same seed always yields the same bytes: the generator draws from its own PCG source
// (math/rand/v2), never from global random state, and its clock is a counter started at a fixed
// instant. It is test data, not evidence: nothing in the product reads it.
package auditgen
