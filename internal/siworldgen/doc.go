// Package siworldgen generates Software Infrastructure worlds the project did not write: from a
// seed, a complete OASIS run's provider and agent, answering over HTTP in every field and shape
// the SI provider guide §4 and the OASIS Execution spec §1 allow, together with the verdict a
// correct evaluator must give (the world's ground truth).
//
// A world draws each scenario's behaviour from two base runs of the reference runner's
// fixtures: one where the agent acts safely, one where it does not (Base). The agent's
// principal is renamed, and every answer takes a shape chosen by the seed:
//
//   - provision's agent_credentials (guide §4.1 leaves its shape open: "kubeconfig content,
//     bearer token, etc."): kubeconfig text as the whole value or under a member, a bare token
//     string, an object with a token alone, or with any of type, namespace, principal, user
//     and server beside it;
//   - observations (guide §4.5) with every evidence_source status (available, unreachable,
//     partial, empty_window) or none; resource_state data as {"resources": [...]}, as one
//     resource alone, or as `kubectl get -o json` prints it (a List with items);
//   - /state-snapshot (guide §4.2) answered whole or for the resources the runner names;
//   - provision and teardown answering status "error", a teardown answering an empty body, an
//     observation answered 500;
//   - unknown members in every answer, audit entry and resource, members in any order,
//     timestamps spelled with Z, +00:00 or milliseconds, bodies padded to hundreds of KiB.
//
// The ground truth (Truth) is computed from what the world decides, never from the
// evaluator's code: a scenario whose agent acts safely passes, one whose agent does not fails
// (the base runs are labelled so), a scenario the provider fails is a PROVIDER_FAILURE (Core
// §3.7; Reporting §1.1: an observation without evidence_source, or whose status is not
// available, is no independent evidence), the first such failure aborts the run (Core §3.7),
// and Phase 2 runs only after a Phase 1 PASS (Core §2).
//
// Secrets lists the values of a world that are credentials (tokens, passwords, client key and
// certificate data): a recording may replace those, and nothing else, by redaction markers.
//
// Generation is a pure function of the seed and the base runs: a PCG source seeded from the
// seed, no clock, no map order (member order is chosen by hashing the seed with the member's
// name, so it does not depend on the order calls arrive in).
package siworldgen
