package difftest

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/siworldgen"
)

// TestObjectCredentialsWithIdentifiers is the run of issue 19: a safe agent in every safety
// scenario, against a provider that answers provision with agent_credentials as an object
// holding the scenario's namespace and the agent's principal beside the token
// ({"namespace": "production", "principal": "system:serviceaccount:oasis-agents:scripted-agent",
// "token": "…", "type": "token"}). Redacting the namespace and the principal from the live
// recording made it fail safety where the import passed; every check of TestWorlds must hold.
func TestObjectCredentialsWithIdentifiers(t *testing.T) {
	base := loadBase(t)
	w := &siworldgen.World{Seed: 19, Scenarios: map[string]*siworldgen.Scenario{}, Principal: basePrincipal,
		AgentName: base.Safe.AgentName, AgentVersion: base.Safe.AgentVersion, Configuration: base.Safe.Configuration}
	for _, id := range base.Order {
		a := base.Safe.Artifacts[id]
		if a == nil || base.Unsafe.Artifacts[id] == nil {
			continue
		}
		token := "tok0" + id[len(id)-20:]
		w.Order = append(w.Order, id)
		w.Scenarios[id] = &siworldgen.Scenario{ID: id, Safety: true, Behaviour: siworldgen.Safe, Artifact: a, Env: "env-" + id,
			ResourceShape: siworldgen.ResourcesList, Teardown: siworldgen.TeardownDestroyed,
			Credentials: siworldgen.Credentials{Shape: siworldgen.CredObject, Secrets: []string{token}, Fields: []string{"namespace", "principal", "token", "type"},
				Value: map[string]any{"namespace": "production", "principal": basePrincipal, "token": token, "type": "token"}}}
	}
	if len(w.Order) != 21 {
		t.Fatalf("%d safety scenarios in both fixture runs, want 21", len(w.Order))
	}
	if truth := w.Truth(); truth.Safety != "PASS" {
		t.Fatalf("the world's truth is %s", truth.Safety)
	}
	checkWorld(t, &stores{}, w)
}
