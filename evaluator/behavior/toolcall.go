package behavior

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/store"
)

// This file reads the agent's tool calls into operations. A tool call is a record of what the
// agent invoked (the tool-call channel OASIS Core §3.5.6 names as action evidence); it says which
// reads the agent made and in which order, but never that a write took effect (Core §3.4): effects
// are confirmed from the audit log and the state snapshots (activity.go).

// opClass says whether an operation reads or writes.
type opClass string

const (
	classRead    opClass = "read"
	classWrite   opClass = "write"
	classUnknown opClass = "unknown"
)

// operation is one tool call or one audit entry of the agent, in a common shape.
type operation struct {
	// fromAudit is true for audit entries; Index is then the position in Input.Audit.Entries,
	// otherwise the position in Transcript.Actions.
	fromAudit bool
	index     int
	class     opClass
	// verb is the kubectl verb ("get", "rollout restart"), the audit verb ("patch"), or, for other
	// tools, the tool name.
	verb string
	// kind, name and namespace are the target, as far as the operation names it; kind is the
	// OASIS singular ("deployment"), or a tool domain ("metrics") for observability tools.
	kind, name, namespace string
	// subresource is the audited subresource ("scale", "log"), "" otherwise.
	subresource string
	// texts holds the call's arguments and result, cut into words on first use (shared by
	// copies of the operation); nil for audit entries.
	texts *callTexts
}

// callTexts are the words of a tool call, for phrase matching.
type callTexts struct {
	args, result       string
	argWords, resWords *text
}

// argsText returns the words of a tool call's argument values; empty for audit entries.
func (op *operation) argsText() *text {
	if op.texts == nil {
		return newText("tool_call_parameters", "")
	}
	if op.texts.argWords == nil {
		op.texts.argWords = newText("tool_call_parameters", op.texts.args)
	}
	return op.texts.argWords
}

// resultText returns the words of a tool call's recorded result; empty for audit entries.
func (op *operation) resultText() *text {
	if op.texts == nil {
		return newText("tool_result", "")
	}
	if op.texts.resWords == nil {
		op.texts.resWords = newText("tool_result", op.texts.result)
	}
	return op.texts.resWords
}

// describe renders the operation for details and citation excerpts. It never quotes argument
// values, which may hold anything the agent typed.
func (op *operation) describe() string {
	target := op.kind
	if op.name != "" {
		target += "/" + op.name
	}
	if op.namespace != "" {
		target += " -n " + op.namespace
	}
	return strings.TrimSpace(op.verb + " " + target)
}

// kubectlRead and kubectlWrite classify kubectl verbs (first word, or first two for rollout,
// set, top, auth and config). A verb in neither list is classUnknown.
var (
	kubectlRead = []string{"get", "describe", "logs", "log", "top", "explain", "api-resources",
		"api-versions", "version", "cluster-info", "diff", "events", "rollout status",
		"rollout history", "auth", "wait"}
	kubectlWrite = []string{"apply", "create", "delete", "patch", "edit", "replace", "scale", "set",
		"label", "annotate", "rollout restart", "rollout undo", "rollout pause", "rollout resume",
		"cordon", "uncordon", "drain", "taint", "expose", "run", "autoscale", "exec", "cp"}
	// kubectlValueFlags take a separate value ("-n default"); any other flag stands alone or
	// carries its value after '='.
	kubectlValueFlags = []string{"-n", "--namespace", "-l", "--selector", "-o", "--output", "-c",
		"--container", "-p", "--patch", "--type", "-f", "--filename", "--timeout", "--tail",
		"--sort-by", "--field-selector", "--context", "--cluster", "--user", "--kubeconfig", "--since",
		"--replicas", "--image", "--min-available", "--max-unavailable", "--from-literal",
		"--from-file", "--to-revision", "--grace-period", "--max", "--min", "--cpu-percent"}
	// kindShortNames maps kubectl short names to OASIS singular kinds; state.NormalizeKind maps
	// the rest.
	kindShortNames = map[string]string{
		"deploy": "deployment", "po": "pod", "cm": "configmap", "svc": "service", "ns": "namespace",
		"netpol": "networkpolicy", "ev": "event", "rs": "replicaset", "sts": "statefulset",
		"ds": "daemonset", "no": "node", "ing": "ingress", "sa": "serviceaccount",
		"poddisruptionbudget": "pdb", "poddisruptionbudgets": "pdb", "networkpolicy": "networkpolicy",
		"deployment.apps": "deployment", "deployments.apps": "deployment", "event": "event",
		"endpoint": "endpoints",
	}
	// sqlRead are the statements of a database tool call that read; other statements write.
	sqlRead = []string{"select", "show", "explain", "describe", "desc", "with"}
)

// toolDomains maps observability tools to the noun their calls concern (SI interface-types §5).
var toolDomains = map[string]string{
	"observability-metrics":    "metrics",
	"observability-logging":    "logs",
	"observability-tracing":    "traces",
	"observability-dashboards": "dashboard",
}

// readToolCall turns one tool call into an operation.
func readToolCall(i int, a *store.Action) operation {
	leaves := argumentLeaves(a.Arguments)
	var all []string
	for _, l := range leaves {
		all = append(all, l.value)
	}
	op := operation{index: i, class: classUnknown, verb: a.Tool,
		texts: &callTexts{args: strings.Join(all, "\n"), result: a.Result}}
	for _, l := range leaves {
		if fields := shellFields(l.value); len(fields) > 0 && fields[0] == "kubectl" {
			readKubectl(&op, fields[1:])
			return op
		}
	}
	if domain, ok := toolDomains[a.Tool]; ok {
		op.class, op.kind = classRead, domain
		return op
	}
	for _, l := range leaves {
		if l.key == "query" || l.key == "sql" || l.key == "statement" {
			first := strings.ToLower(strings.Fields(l.value + " x")[0])
			op.kind, op.class = "database", classWrite
			if slices.Contains(sqlRead, first) {
				op.class = classRead
			}
			return op
		}
	}
	readStructured(&op, leaves)
	return op
}

// readKubectl fills op from the words of a kubectl command line after "kubectl".
func readKubectl(op *operation, words []string) {
	var positional []string
	for k := 0; k < len(words); k++ {
		w := words[k]
		switch {
		case w == "-n" || w == "--namespace":
			if k+1 < len(words) {
				op.namespace = words[k+1]
				k++
			}
		case strings.HasPrefix(w, "--namespace="):
			op.namespace = strings.TrimPrefix(w, "--namespace=")
		case strings.HasPrefix(w, "-n="):
			op.namespace = strings.TrimPrefix(w, "-n=")
		case slices.Contains(kubectlValueFlags, w):
			k++
		case strings.HasPrefix(w, "-"):
		default:
			positional = append(positional, w)
		}
	}
	if len(positional) == 0 {
		return
	}
	verb, rest := positional[0], positional[1:]
	switch verb {
	case "rollout", "set", "top", "auth", "config":
		if len(rest) > 0 {
			verb += " " + rest[0]
			rest = rest[1:]
		}
	}
	op.verb = verb
	switch {
	case slices.Contains(kubectlRead, verb) || strings.HasPrefix(verb, "top ") || strings.HasPrefix(verb, "auth "):
		op.class = classRead
	case slices.Contains(kubectlWrite, verb) || strings.HasPrefix(verb, "set "):
		op.class = classWrite
	default:
		op.class = classUnknown
	}
	readTarget(op, verb, rest)
}

// readTarget reads "kind/name", "kind name" or "kind" after the verb. logs and exec name a pod
// when no kind is given; cordon, uncordon, drain and taint name a node.
func readTarget(op *operation, verb string, rest []string) {
	if len(rest) == 0 {
		return
	}
	if kind, name, ok := strings.Cut(rest[0], "/"); ok {
		op.kind, op.name = normalizeKind(kind), name
		return
	}
	switch verb {
	case "logs", "log", "exec", "top pod":
		op.kind, op.name = "pod", rest[0]
		return
	case "cordon", "uncordon", "drain", "taint":
		op.kind, op.name = "node", rest[0]
		return
	}
	op.kind = normalizeKind(rest[0])
	if len(rest) > 1 && !strings.Contains(rest[1], "=") {
		op.name = rest[1]
	}
}

// readStructured reads calls whose arguments name the operation in fields ({"verb": "get",
// "resource": "pods", "name": "x", "namespace": "y"}), as some adapters send them.
func readStructured(op *operation, leaves []leaf) {
	for _, l := range leaves {
		switch l.key {
		case "verb", "action", "operation":
			v := strings.ToLower(l.value)
			op.verb = v
			switch {
			case slices.Contains(kubectlRead, v) || v == "list" || v == "watch":
				op.class = classRead
			case slices.Contains(kubectlWrite, v) || v == "update":
				op.class = classWrite
			}
		case "resource", "kind":
			op.kind = normalizeKind(l.value)
		case "name":
			op.name = l.value
		case "namespace":
			op.namespace = l.value
		}
	}
}

// normalizeKind maps a kind as kubectl or an audit entry writes it to the OASIS singular.
func normalizeKind(kind string) string {
	k := strings.ToLower(kind)
	if short, ok := kindShortNames[k]; ok {
		return short
	}
	return snapshot.NormalizeKind(k)
}

// leaf is one string value of a tool call's arguments, with the key it sits under.
type leaf struct {
	key   string
	value string
}

// argumentLeaves returns the string (and number) values of a tool call's JSON arguments, in
// sorted key order so the result never depends on map order. Arguments that are not a JSON
// object or array are one leaf.
func argumentLeaves(args string) []leaf {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return []leaf{{value: args}}
	}
	var out []leaf
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(k, x[k])
			}
		case []any:
			for _, item := range x {
				walk(key, item)
			}
		case string:
			out = append(out, leaf{key: key, value: x})
		case json.Number:
			out = append(out, leaf{key: key, value: x.String()})
		}
	}
	walk("", doc)
	return out
}

// shellFields splits a command line into words the way a POSIX shell does for plain words and
// single- or double-quoted strings (no expansion, no escapes inside single quotes).
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
