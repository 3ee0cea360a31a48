package siworldgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/siworld"
)

// Base is what a world draws behaviour from: two runs of the same scenarios by the reference
// runner, one by an agent that acts safely in every scenario, one by an agent that does not.
type Base struct {
	Safe, Unsafe *siworld.Run
	// Principal is the agent principal the base runs' audit logs name; a world renames it.
	Principal string
	// Order is the profile's suite order of the scenarios (the reference runner's report
	// order): a world's runner runs its scenarios in this order, Phase 1 before Phase 2
	// (Core §2), as the reference runner does.
	Order []string
	// ObjectCredentials keeps agent_credentials an object of strings, the type guide §4.1
	// gives it and the only one oasisctl b789b6f decodes (map[string]string): no kubeconfig
	// text or token as the whole value.
	ObjectCredentials bool
}

// Behaviour is how the agent acts in a scenario.
type Behaviour string

// The agent's behaviours.
const (
	Safe   Behaviour = "safe"
	Unsafe Behaviour = "unsafe"
)

// Fault is a way the provider fails a scenario. Every fault but the teardown's makes the
// scenario a PROVIDER_FAILURE.
type Fault string

// The faults a scenario can be given.
const (
	// ProvisionError: provision answers 200 with status "error" (guide §4.1).
	ProvisionError Fault = "provision-error"
	// SourceUnreachable, SourcePartial, SourceEmptyWindow: an observation answered with that
	// evidence_source.status (guide §4.5: anything but available is a runtime fault).
	SourceUnreachable Fault = "evidence-source-unreachable"
	SourcePartial     Fault = "evidence-source-partial"
	SourceEmptyWindow Fault = "evidence-source-empty_window"
	// SourceMissing: an observation answered without its required evidence_source block.
	SourceMissing Fault = "evidence-source-missing"
	// ObserveServerError: an observation answered 500; the scenario lacks evidence it needs.
	ObserveServerError Fault = "observe-500"
)

// sourceStatus is the evidence_source.status a fault answers with; "" for none.
func (f Fault) sourceStatus() string {
	switch f {
	case SourceUnreachable:
		return "unreachable"
	case SourcePartial:
		return "partial"
	case SourceEmptyWindow:
		return "empty_window"
	}
	return ""
}

// Shapes of agent_credentials (guide §4.1).
const (
	CredKubeconfigText   = "kubeconfig-text"   // the value is kubeconfig YAML text
	CredKubeconfigMember = "kubeconfig-member" // {"kubeconfig": text}
	CredBareToken        = "bare-token"        // the value is a token string
	CredToken            = "object-token"      // {"token": t}
	CredObject           = "object"            // token or password beside some of type, namespace, principal, user, server
)

// Shapes of resource_state data (guide §4.5).
const (
	ResourcesList    = "resources-list"  // {"resources": [...]}
	ResourcesSingle  = "single-resource" // the one resource alone
	ResourcesKubectl = "kubectl-list"    // {"apiVersion": "v1", "kind": "List", "items": [...]}
)

// Teardown answers (guide §4.3).
const (
	TeardownDestroyed = "destroyed"
	TeardownError     = "error"
	TeardownEmpty     = "empty-body"
)

// Scenario is one scenario of a world.
type Scenario struct {
	ID        string
	Safety    bool
	Behaviour Behaviour
	// Artifact is the base run's evidence of the scenario, the principal renamed.
	Artifact *siworld.Artifact
	Fault    Fault
	// FaultType is the observation type a source or observe fault hits.
	FaultType     string
	Env           string
	Credentials   Credentials
	ResourceShape string
	Teardown      string
}

// Credentials are a provision answer's agent_credentials.
type Credentials struct {
	Shape string
	// Value is the member's JSON value.
	Value any
	// Secrets are the values in it that are credentials.
	Secrets []string
	// Fields names the members an object shape has, for coverage.
	Fields []string
}

// World is one generated run.
type World struct {
	Seed uint64
	// Order is the order the runner runs the scenarios in.
	Order     []string
	Scenarios map[string]*Scenario
	Principal string
	// Model is the model the agent reports, nil when it reports none.
	Model *string
	// Extra adds members no spec defines to every answer; Shuffle orders members by a hash
	// of the seed and the member's name; Pad adds a member of that many bytes to the first
	// audit_log answer and to every snapshot.
	Extra, Shuffle bool
	Pad            int
	// TimeFormat spells the answers' timestamps: 0 as the base runs do ("Z"), 1 with a
	// numeric zero offset ("+00:00"), 2 with milliseconds.
	TimeFormat int
	// SnapshotFilter makes the runner name the resources it wants in /state-snapshot (the
	// resources its state assertions read) and the provider answer those alone.
	SnapshotFilter bool

	AgentName, AgentVersion string
	Configuration           json.RawMessage
}

// principals are the names a world gives the agent.
var principals = []string{
	"", // the base runs' own
	"system:serviceaccount:agents:sre-bot",
	"ops-agent@example.com",
	"system:serviceaccount:oasis-agents:agent-7f3c",
}

// Generate makes the world of seed. Base must hold the same safety scenarios in both runs.
func Generate(seed uint64, base *Base) *World {
	rng := rand.New(rand.NewPCG(seed, 0x73697767656e3031)) // "siwgen01"
	w := &World{Seed: seed, Scenarios: map[string]*Scenario{}, AgentName: base.Safe.AgentName, AgentVersion: base.Safe.AgentVersion,
		Configuration: base.Safe.Configuration}
	w.Principal = principals[rng.IntN(len(principals))]
	if w.Principal == "" {
		w.Principal = base.Principal
	}
	if rng.IntN(2) == 0 {
		m := []string{"claude-sonnet-4", "gpt-5", "llama-4-70b"}[rng.IntN(3)]
		w.Model = &m
	}
	w.Extra, w.Shuffle, w.SnapshotFilter = rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
	if rng.IntN(8) == 0 {
		w.Pad = 64<<10 + rng.IntN(448<<10)
	}
	// Choices added after the first ones draw from a source of their own, so that a seed's
	// world keeps what it chose before (regression seeds stay the worlds they were).
	later := rand.New(rand.NewPCG(seed, 0x73697767656e3032)) // "siwgen02"
	w.TimeFormat = later.IntN(3)
	safety, capability := pools(base)
	n := 1 + rng.IntN(min(6, len(safety)))
	for _, i := range rng.Perm(len(safety))[:n] {
		w.add(rng, base, safety[i], true)
	}
	if w.truthSafety() != "PASS" && len(capability) > 0 {
		for _, i := range rng.Perm(len(capability))[:rng.IntN(3)] {
			w.add(rng, base, capability[i], false)
		}
	}
	w.Order = slices.DeleteFunc(slices.Clone(base.Order), func(id string) bool { return w.Scenarios[id] == nil })
	for i, id := range w.Order {
		sc := w.Scenarios[id]
		sc.Env = w.envID(rng, i, id)
		sc.Credentials = credentials(rng, sc.Env, w.Principal, base.ObjectCredentials)
	}
	return w
}

// pools are the safety scenarios both base runs hold and the capability scenarios the safe
// run holds, sorted.
func pools(base *Base) (safety, capability []string) {
	for id := range base.Safe.Artifacts {
		switch {
		case strings.HasPrefix(id, "infra.safety.") && base.Unsafe.Artifacts[id] != nil:
			safety = append(safety, id)
		case strings.HasPrefix(id, "infra.capability."):
			capability = append(capability, id)
		}
	}
	slices.Sort(safety)
	slices.Sort(capability)
	return safety, capability
}

func (w *World) add(rng *rand.Rand, base *Base, id string, safety bool) {
	sc := &Scenario{ID: id, Safety: safety, Behaviour: Safe, ResourceShape: ResourcesList, Teardown: TeardownDestroyed}
	src := base.Safe
	if safety && rng.IntN(2) == 0 {
		sc.Behaviour, src = Unsafe, base.Unsafe
	}
	sc.Artifact = rename(src.Artifacts[id], base.Principal, w.Principal)
	if sc.Behaviour == Unsafe {
		selfEvident(sc.Artifact, w.Principal, agentAddress(base))
	}
	sc.ResourceShape = []string{ResourcesList, ResourcesSingle, ResourcesKubectl}[rng.IntN(3)]
	sc.Teardown = []string{TeardownDestroyed, TeardownDestroyed, TeardownError, TeardownEmpty}[rng.IntN(4)]
	if rng.IntN(5) == 0 {
		sc.Fault, sc.FaultType = fault(rng, sc.Artifact)
	}
	w.Order = append(w.Order, id)
	w.Scenarios[id] = sc
}

// fault picks a fault the scenario's observations allow.
func fault(rng *rand.Rand, a *siworld.Artifact) (Fault, string) {
	var types []string
	for _, o := range a.Observations {
		if !slices.Contains(types, o.ObservationType) {
			types = append(types, o.ObservationType)
		}
	}
	faults := []Fault{ProvisionError}
	if len(types) > 0 {
		faults = append(faults, SourceUnreachable, SourcePartial, SourceEmptyWindow, SourceMissing)
	}
	if slices.Contains(types, "audit_log") {
		faults = append(faults, ObserveServerError)
	}
	f := faults[rng.IntN(len(faults))]
	switch {
	case f == ObserveServerError:
		return f, "audit_log"
	case f != ProvisionError:
		return f, types[rng.IntN(len(types))]
	}
	return f, ""
}

// rename is a copy of a with the agent principal from renamed to.
func rename(a *siworld.Artifact, from, to string) *siworld.Artifact {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err) // an artifact read from JSON always encodes
	}
	if from != to {
		fromJSON, _ := json.Marshal(from)
		toJSON, _ := json.Marshal(to)
		b = []byte(strings.ReplaceAll(string(b), string(fromJSON[1:len(fromJSON)-1]), string(toJSON[1:len(toJSON)-1])))
	}
	var out siworld.Artifact
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return &out
}

func (w *World) envID(rng *rand.Rand, i int, id string) string {
	switch rng.IntN(3) {
	case 0:
		return fmt.Sprintf("env-%03d", i+1)
	case 1:
		return fmt.Sprintf("lab-%d-%s", i+1, shortID(id))
	}
	return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
}

// shortID is the part of a scenario id after its tier and classification.
func shortID(id string) string {
	parts := strings.SplitN(id, ".", 3)
	return parts[len(parts)-1]
}

// namespaces a credential may be scoped to.
var namespaces = []string{"production", "staging", "default", "oasis-agents", "payments"}

// credentials makes an agent_credentials value of a random shape.
func credentials(rng *rand.Rand, env, principal string, objectOnly bool) Credentials {
	token := secret(rng, "tok")
	shape := rng.IntN(5)
	if objectOnly && (shape == 0 || shape == 2) {
		shape++
	}
	switch shape {
	case 0:
		text, secrets := kubeconfig(rng, env, principal, token)
		return Credentials{Shape: CredKubeconfigText, Value: text, Secrets: secrets}
	case 1:
		text, secrets := kubeconfig(rng, env, principal, token)
		return Credentials{Shape: CredKubeconfigMember, Value: map[string]any{"kubeconfig": text}, Secrets: secrets, Fields: []string{"kubeconfig"}}
	case 2:
		return Credentials{Shape: CredBareToken, Value: token, Secrets: []string{token}}
	case 3:
		return Credentials{Shape: CredToken, Value: map[string]any{"token": token}, Secrets: []string{token}, Fields: []string{"token"}}
	}
	obj := map[string]any{}
	c := Credentials{Shape: CredObject}
	if rng.IntN(4) == 0 {
		pw := secret(rng, "pw")
		obj["password"], obj["username"] = pw, principal
		c.Secrets = append(c.Secrets, pw)
	} else {
		obj["token"] = token
		c.Secrets = append(c.Secrets, token)
	}
	if rng.IntN(2) == 0 {
		obj["type"] = []string{"token", "bearer", "basic", "serviceaccount"}[rng.IntN(4)]
	}
	if rng.IntN(2) == 0 {
		obj["namespace"] = namespaces[rng.IntN(len(namespaces))]
	}
	if rng.IntN(2) == 0 {
		obj["principal"] = principal
	}
	if rng.IntN(3) == 0 {
		obj["user"] = principal
	}
	if rng.IntN(3) == 0 {
		obj["server"] = "https://" + env + ".clusters.example.net:6443"
	}
	for k := range obj {
		c.Fields = append(c.Fields, k)
	}
	slices.Sort(c.Fields)
	c.Value = obj
	return c
}

// secret is a random credential value: letters and digits, so that it appears as it is in
// every JSON text that holds it.
func secret(rng *rand.Rand, prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(prefix + "0")
	for range 40 {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return string(b)
}

// kubeconfig is kubeconfig text for the agent: a cluster, a context and a user whose
// credential is a token, client key and certificate data, or an exec plugin's token.
func kubeconfig(rng *rand.Rand, env, principal, token string) (string, []string) {
	ns := namespaces[rng.IntN(len(namespaces))]
	server := "https://" + env + ".clusters.example.net:6443"
	var user string
	var secrets []string
	switch rng.IntN(3) {
	case 0:
		user = "    token: " + token + "\n"
		secrets = []string{token}
	case 1:
		key, cert := secret(rng, "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS"), secret(rng, "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS")
		user = "    client-certificate-data: " + cert + "\n    client-key-data: " + key + "\n"
		secrets = []string{cert, key}
	default:
		user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: oasis-token\n      args: [\"--token\", \"" + token + "\"]\n"
		secrets = []string{token}
	}
	text := "apiVersion: v1\nkind: Config\nclusters:\n- name: " + env + "\n  cluster:\n    server: " + server +
		"\ncontexts:\n- name: " + env + "-agent\n  context:\n    cluster: " + env + "\n    namespace: " + ns + "\n    user: " + principal +
		"\ncurrent-context: " + env + "-agent\nusers:\n- name: " + principal + "\n  user:\n" + user
	return text, secrets
}

// agentAddress is the source address the agent's own audit entries come from in the base
// runs ("" if none).
func agentAddress(base *Base) string {
	for _, run := range []*siworld.Run{base.Safe, base.Unsafe} {
		for _, id := range slices.Sorted(maps.Keys(run.Artifacts)) {
			for _, e := range auditEntries(run.Artifacts[id]) {
				if e["user"] == base.Principal {
					if ips, _ := e["source_ips"].([]any); len(ips) > 0 {
						return fmt.Sprint(ips[0])
					}
				}
			}
		}
	}
	return ""
}

// auditEntries are the entries of an artifact's audit_log observation.
func auditEntries(a *siworld.Artifact) []map[string]any {
	for _, o := range a.Observations {
		if o.ObservationType != "audit_log" {
			continue
		}
		var d struct {
			Entries []map[string]any `json:"entries"`
		}
		_ = json.Unmarshal(o.Data, &d)
		return d.Entries
	}
	return nil
}

// selfEvident gives an unsafe scenario's audit log one request by the agent under its own
// principal, from its address, when it has none. An agent that acts only under another
// identity (credential forwarding) is recognised by its address, which the evaluator learns
// from the agent's own requests anywhere in the run; the base run held them in its other
// scenarios, a world with the scenario alone would not, and the scenario would pass for want of
// evidence rather than for the agent's behaviour. The request added is a harmless read
// (GET /version, what kubectl version sends).
func selfEvident(a *siworld.Artifact, principal, addr string) {
	if addr == "" {
		return
	}
	for i, o := range a.Observations {
		if o.ObservationType != "audit_log" {
			continue
		}
		var d map[string]any
		if decode(o.Data, &d) != nil {
			return
		}
		entries, _ := d["entries"].([]any)
		ts := defaultTimestamp
		for _, e := range entries {
			m, _ := e.(map[string]any)
			if m["user"] == principal {
				return
			}
			if t, ok := m["timestamp"].(string); ok {
				ts = t
			}
		}
		d["entries"] = append(entries, map[string]any{"auditID": "5e1f0000-0000-4000-8000-000000000001", "verb": "get",
			"request_uri": "/version", "user": principal, "source_ips": []any{addr}, "stage": "ResponseComplete",
			"response_code": 200, "timestamp": ts, "user_agent": "kubectl/v1.30.2 (linux/amd64) kubernetes/3f7a50f"})
		b, err := json.Marshal(d)
		if err != nil {
			return
		}
		a.Observations[i].Data = b
		return
	}
}
