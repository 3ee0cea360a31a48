package action

import (
	"bytes"
	"encoding/json"
	"strings"
)

// What a request body says it writes. The audit event carries the body of a write request
// (requestObject) at the Request and RequestResponse audit levels; its shape tells how to read
// it:
//
//   - a JSON merge patch or strategic merge patch is an object holding only the delta: a path
//     present in it is written (null included: null deletes), a path absent is not;
//   - a JSON patch (RFC 6902) is an array of operations, each naming its target as a JSON
//     pointer: an operation at or under a path writes it, one above it rewrites a whole
//     enclosing value, which may or may not change the path;
//   - a full object (create, update, or a patch carrying apiVersion or kind: server-side apply)
//     carries every field whether or not the request changes it: presence decides nothing,
//     except for a create, which writes every field it carries.
//
// Whatever cannot be read (no body: Metadata audit level or a provider that drops it; a body
// that is not JSON) is undecidable, never a silent no.

type bodyShape int

const (
	bodyMissing bodyShape = iota
	bodyOpaque
	bodyMerge
	bodyWhole
	bodyJSONPatch
)

type body struct {
	shape bodyShape
	verb  string
	obj   map[string]any
	ops   []patchOp
}

type patchOp struct {
	op    string
	path  []string
	from  []string
	value any
}

// requestBody decodes the entry's request body once.
func (v *view) requestBody() *body {
	if v.body == nil {
		v.body = parseBody(v.e.RequestBody, v.e.Verb)
	}
	return v.body
}

func parseBody(raw []byte, verb string) *body {
	b := &body{verb: verb}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return b
	}
	doc, ok := decodeJSON(raw)
	if !ok {
		b.shape = bodyOpaque
		return b
	}
	switch d := doc.(type) {
	case map[string]any:
		_, hasAPIVersion := d["apiVersion"]
		_, hasKind := d["kind"]
		b.obj, b.shape = d, bodyMerge
		if verb != "patch" || hasAPIVersion || hasKind {
			b.shape = bodyWhole
		}
	case []any:
		if ops, ok := jsonPatchOps(d); ok && verb == "patch" {
			b.ops, b.shape = ops, bodyJSONPatch
		} else {
			b.shape = bodyOpaque
		}
	default:
		b.shape = bodyOpaque
	}
	return b
}

// decodeJSON decodes one JSON value, numbers kept exact.
func decodeJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return doc, true
}

// jsonPatchOps reads an RFC 6902 patch: objects with a string op and a string path.
func jsonPatchOps(arr []any) ([]patchOp, bool) {
	ops := make([]patchOp, 0, len(arr))
	for _, el := range arr {
		m, ok := el.(map[string]any)
		if !ok {
			return nil, false
		}
		op, ok1 := m["op"].(string)
		path, ok2 := m["path"].(string)
		if !ok1 || !ok2 {
			return nil, false
		}
		o := patchOp{op: op, path: pointer(path), value: m["value"]}
		if from, ok := m["from"].(string); ok {
			o.from = pointer(from)
		}
		ops = append(ops, o)
	}
	return ops, true
}

// pointer splits an RFC 6901 JSON pointer into its unescaped segments.
func pointer(p string) []string {
	if p == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

var (
	bodyNotRecorded = "the request body is not recorded"
	bodyUnreadable  = "the request body is not a JSON object or JSON patch"
)

// writes says whether the request body writes path.
func (v *view) writes(path []string) tri {
	e := v.e
	switch e.Subresource {
	case "scale":
		// A Scale object's one writable field is spec.replicas.
		if hasPrefix(replicasPath, path) {
			return isYes("")
		}
		return isNo("a scale request writes spec.replicas only")
	case "status":
		if len(path) == 0 || path[0] != "status" {
			return isNo("a status request writes status only")
		}
	}
	return v.requestBody().writes(path)
}

func (b *body) writes(path []string) tri {
	switch b.shape {
	case bodyMissing:
		return isUnknown(bodyNotRecorded)
	case bodyOpaque:
		return isUnknown(bodyUnreadable)
	case bodyWhole:
		if b.verb == "create" {
			if present(b.obj, path) {
				return isYes("")
			}
			return isNo("the created object has no " + strings.Join(path, "."))
		}
		return isUnknown("a full-object " + b.verb + " carries " + strings.Join(path, ".") +
			" whether or not it changes it")
	case bodyJSONPatch:
		return jsonPatchWrites(b.ops, path)
	}
	return mergeWrites(b.obj, path)
}

// present reports whether a full object holds path (lists crossed).
func present(node any, path []string) bool {
	return mergeWrites(node, path).v == yes
}

// mergeWrites walks a merge or strategic merge patch along path. Lists on the way are crossed:
// the path is written if it is written in any element.
func mergeWrites(node any, path []string) tri {
	switch n := node.(type) {
	case map[string]any:
		if d, _ := n["$patch"].(string); d == "replace" || d == "delete" {
			return isUnknown("the patch replaces or deletes a whole enclosing value ($patch: " + d + ")")
		}
		val, ok := n[path[0]]
		switch {
		case !ok:
			return isNo("the patch does not write " + path[0])
		case len(path) == 1:
			return isYes("")
		case val == nil:
			return isUnknown("the patch deletes " + path[0] + ", which encloses the path")
		}
		return mergeWrites(val, path[1:])
	case []any:
		acc := isNo("no list element writes the path")
		for _, el := range n {
			t := mergeWrites(el, path)
			if t.v == yes {
				return t
			}
			if t.v > acc.v {
				acc = t
			}
		}
		return acc
	}
	return isNo("the patch holds a plain value where the path continues")
}

// jsonPatchWrites reads a JSON patch: an operation at or under path writes it; one above it
// rewrites an enclosing value, undecidable. test operations write nothing.
func jsonPatchWrites(ops []patchOp, path []string) tri {
	acc := isNo("no operation of the JSON patch targets the path")
	for _, op := range ops {
		if op.op == "test" {
			continue
		}
		targets := [][]string{op.path}
		if op.op == "move" {
			targets = append(targets, op.from)
		}
		for _, t := range targets {
			switch relate(t, path) {
			case atOrBelow:
				return isYes("")
			case above:
				acc = isUnknown("a JSON patch " + op.op + " of /" + strings.Join(t, "/") +
					" rewrites a value enclosing the path")
			}
		}
	}
	return acc
}

type relation int

const (
	unrelated relation = iota
	atOrBelow
	above
)

// relate compares a JSON pointer with a field path. Pointer segments that are list indexes
// ("0", "-") are crossed, as lists are in field paths.
func relate(ptr, path []string) relation {
	i, j := 0, 0
	for i < len(ptr) && j < len(path) {
		switch {
		case ptr[i] == path[j]:
			i, j = i+1, j+1
		case isIndex(ptr[i]):
			i++
		default:
			return unrelated
		}
	}
	if j == len(path) {
		return atOrBelow
	}
	return above
}

func isIndex(s string) bool {
	if s == "-" {
		return true
	}
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// requestedReplicas reads the replica count the request sets: spec.replicas of a patch, a
// full object or a Scale object, or the value of a JSON patch operation on /spec/replicas.
func (v *view) requestedReplicas() (int64, tri) {
	b := v.requestBody()
	switch b.shape {
	case bodyMissing:
		return 0, isUnknown(bodyNotRecorded)
	case bodyOpaque:
		return 0, isUnknown(bodyUnreadable)
	case bodyJSONPatch:
		n, t := int64(0), isNo("the JSON patch sets no replica count")
		for _, op := range b.ops {
			if relate(op.path, replicasPath) != atOrBelow || len(op.path) != 2 {
				continue
			}
			switch op.op {
			case "add", "replace":
				n, t = replicaCount(op.value)
			case "remove", "move", "copy":
				n, t = 0, isUnknown("the JSON patch "+op.op+"s spec.replicas")
			}
		}
		return n, t
	}
	spec, ok := b.obj["spec"].(map[string]any)
	if !ok {
		return 0, isNo("the request sets no replica count")
	}
	val, ok := spec["replicas"]
	if !ok {
		if b.shape == bodyWhole && b.verb != "create" {
			return 0, isUnknown("the full object leaves spec.replicas to its default")
		}
		return 0, isNo("the request sets no replica count")
	}
	return replicaCount(val)
}

func replicaCount(val any) (int64, tri) {
	num, ok := val.(json.Number)
	if !ok {
		return 0, isUnknown("spec.replicas is not a number")
	}
	n, err := num.Int64()
	if err != nil {
		return 0, isUnknown("spec.replicas is not an integer")
	}
	return n, isYes("")
}

// objectName is metadata.name of a created object.
func (b *body) objectName() (string, bool) {
	meta, _ := b.obj["metadata"].(map[string]any)
	name, ok := meta["name"].(string)
	return name, ok && name != ""
}

// hasRestartStamp reports the annotation kubectl rollout restart writes.
func (b *body) hasRestartStamp() bool {
	if b.shape == bodyJSONPatch {
		for _, op := range b.ops {
			if relate(op.path, templateAnnotationsPath) != atOrBelow {
				continue
			}
			if len(op.path) > 4 && op.path[4] == restartedAt {
				return true
			}
			if m, ok := op.value.(map[string]any); ok && len(op.path) == 4 && m[restartedAt] != nil {
				return true
			}
		}
		return false
	}
	var node any = b.obj
	for _, seg := range templateAnnotationsPath {
		m, _ := node.(map[string]any)
		node = m[seg]
	}
	m, _ := node.(map[string]any)
	return m[restartedAt] != nil
}

const restartedAt = "kubectl.kubernetes.io/restartedAt"

// restoresTemplate recognises the writes kubectl rollout undo makes: a JSON patch replacing
// /spec/template, or a strategic merge patch replacing spec.template ($patch: replace).
func (b *body) restoresTemplate(verb string) tri {
	templatePath := []string{"spec", "template"}
	switch b.shape {
	case bodyJSONPatch:
		for _, op := range b.ops {
			if (op.op == "replace" || op.op == "add") && len(op.path) == 2 &&
				relate(op.path, templatePath) == atOrBelow {
				return isYes("a JSON patch replaces /spec/template")
			}
		}
	case bodyMerge:
		spec, _ := b.obj["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		if d, _ := tmpl["$patch"].(string); d == "replace" {
			return isYes("a strategic merge patch replaces spec.template")
		}
	}
	t := b.writes(templatePath)
	if t.v == no {
		return isNo("the request does not write spec.template")
	}
	if t.v == unknown {
		return t
	}
	return isUnknown("the " + verb + " writes spec.template; whether it restores an earlier " +
		"revision is not in the entry")
}

// applyMechanism names how a write applied its object, when the entry shows it: server-side
// apply is a PATCH of a whole object with a field manager; client-side apply carries the
// last-applied-configuration annotation. "" when the entry does not say.
func (v *view) applyMechanism() string {
	b := v.requestBody()
	if b.obj == nil {
		return ""
	}
	meta, _ := b.obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations[lastApplied] != nil {
		return "client-side apply: " + lastApplied + " written"
	}
	if b.verb == "patch" && b.shape == bodyWhole {
		if manager := v.selectors().fieldManager; manager != "" {
			return "server-side apply by field manager " + manager
		}
		return "server-side apply"
	}
	return ""
}

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
