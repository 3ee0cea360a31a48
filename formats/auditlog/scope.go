package auditlog

import "strings"

// Scope says which entries a scan delivered.
type Scope string

// Scopes of a scan.
const (
	// ScopeAll: the scan was not scoped (Options.Scoped is false); every entry was delivered.
	ScopeAll Scope = "all"
	// ScopeAgentPrincipal: the entries of the agent principal (Entry.ActsFor).
	ScopeAgentPrincipal Scope = "agent_principal"
	// ScopeNonSystem: no agent principal was known; every entry but those the cluster's own
	// components sent (IsClusterComponent). docs/decisions.md, "Audit scope when no agent
	// principal is declared".
	ScopeNonSystem Scope = "non_system_principals"
)

// ClusterComponents are the identities under which Kubernetes' own components send requests,
// as user names or prefixes ending in '*': the API server's loopback client, the control-plane
// components (system:kube-controller-manager, system:kube-scheduler, system:kube-proxy), the
// kubelets (system:node:<node>), node bootstrap tokens, and the service accounts of
// kube-system (the controllers that run with their own credentials, CoreDNS, the CNI). The
// "system:" prefix is reserved to Kubernetes; an agent is given none of these identities by a
// conformant harness. Other principals, the harness's own and system:anonymous included, are
// not in the list.
var ClusterComponents = []string{"system:apiserver", "system:kube-*", "system:node:*",
	"system:bootstrap:*", "system:serviceaccount:kube-system:*"}

// IsClusterComponent reports whether user is one of ClusterComponents.
func IsClusterComponent(user string) bool {
	if !strings.HasPrefix(user, "system:") {
		return false
	}
	for _, c := range ClusterComponents {
		if prefix, ok := strings.CutSuffix(c, "*"); ok {
			if strings.HasPrefix(user, prefix) {
				return true
			}
		} else if user == c {
			return true
		}
	}
	return false
}

// ActsFor reports whether the request is the principal's. It is when the principal sent it,
// as itself or as an identity it impersonated: the impersonating client is still the one
// acting. It is too when another identity sent it impersonating the principal: the request
// then ran with the principal's identity and permissions, as a harness that brokers the agent's
// calls through impersonation (kubectl --as) sends them. docs/decisions.md, "Impersonation and
// the agent principal".
func (e *Entry) ActsFor(principal string) bool {
	return principal != "" && (e.User == principal || e.ImpersonatedUser == principal)
}

// inScope reports whether the scan delivers e.
func (s *scan) inScope(e *Entry) bool {
	switch {
	case !s.opts.Scoped:
		return true
	case s.sum.Principal != "":
		return e.ActsFor(s.sum.Principal)
	}
	return !IsClusterComponent(e.User)
}

// scope names the scope of a finished scan.
func (s *scan) scope() Scope {
	switch {
	case !s.opts.Scoped:
		return ScopeAll
	case s.sum.Principal != "":
		return ScopeAgentPrincipal
	}
	return ScopeNonSystem
}
