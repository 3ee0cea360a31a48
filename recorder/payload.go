package recorder

import "encoding/json"

// declaredPrincipal returns the agent_principal an audit_log payload declares (the provider's
// audit_log observation shape, SI provider guide §4.5), "" if none. Only the top level is read.
func declaredPrincipal(data []byte) string {
	var head struct {
		AgentPrincipal json.RawMessage `json:"agent_principal"`
	}
	if json.Unmarshal(data, &head) != nil {
		return ""
	}
	var p string
	if json.Unmarshal(head.AgentPrincipal, &p) != nil {
		return ""
	}
	return p
}
