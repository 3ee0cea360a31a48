package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// openAPIURL is where the validator keeps the document; only its fragments are ever read.
const openAPIURL = "https://oasis-replay.invalid/openapi.json"

// contract checks the server's answers against the OpenAPI document: an answer's status must
// be one the operation lists, and its body must validate against the schema the document gives
// for that status (JSON Schema 2020-12, OpenAPI 3.1's dialect).
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
	// seen records each operation and status validated, for the coverage check.
	seen map[string]bool
}

func newContract(t *testing.T) *contract {
	t.Helper()
	var docMap map[string]any
	if err := json.Unmarshal(OpenAPI(), &docMap); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(OpenAPI()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(openAPIURL, v); err != nil {
		t.Fatal(err)
	}
	return &contract{doc: docMap, compiler: c, schemas: map[string]*jsonschema.Schema{}, seen: map[string]bool{}}
}

// pointer escapes a name for a JSON Pointer (RFC 6901).
func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// template finds the documented path that path (without its query) matches.
func (c *contract) template(path string) (string, bool) {
	paths := c.doc["paths"].(map[string]any)
	if _, ok := paths[path]; ok {
		return path, true
	}
	for tmpl := range paths {
		re := "^" + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
		if regexp.MustCompile(re).MatchString(path) {
			return tmpl, true
		}
	}
	return "", false
}

// check validates one answer to method path.
func (c *contract) check(t *testing.T, method, path string, r response) {
	t.Helper()
	path, _, _ = strings.Cut(path, "?")
	tmpl, ok := c.template(path)
	if !ok {
		t.Errorf("%s %s: not in the OpenAPI document", method, path)
		return
	}
	item := c.doc["paths"].(map[string]any)[tmpl].(map[string]any)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok && r.status == http.StatusMethodNotAllowed {
		// A method the path does not have: every operation of the path lists the 405 it gets.
		for m, other := range item {
			op, method = other.(map[string]any), strings.ToUpper(m)
			break
		}
		ok = op != nil
	}
	if !ok {
		t.Errorf("%s %s: the document has no %s operation", method, tmpl, method)
		return
	}
	status := fmt.Sprint(r.status)
	resp, ok := op["responses"].(map[string]any)[status].(map[string]any)
	if !ok {
		t.Errorf("%s %s answered %s, which the document does not list: %s", method, path, status, r.body)
		return
	}
	loc := pointer("paths", tmpl, strings.ToLower(method), "responses", status)
	if ref, ok := resp["$ref"].(string); ok {
		loc = strings.TrimPrefix(ref, "#")
		name := loc[strings.LastIndex(loc, "/")+1:]
		resp = c.doc["components"].(map[string]any)["responses"].(map[string]any)[name].(map[string]any)
	}
	c.seen[method+" "+tmpl+" "+status] = true
	content, _ := resp["content"].(map[string]any)
	if content == nil {
		if len(r.body) != 0 {
			t.Errorf("%s %s %s: the document says no body, the server sent %q", method, path, status, r.body)
		}
		return
	}
	mediaType, _, _ := strings.Cut(r.header.Get("Content-Type"), ";")
	if _, ok := content[mediaType]; !ok {
		t.Errorf("%s %s %s: Content-Type %q is not documented", method, path, status, mediaType)
		return
	}
	if mediaType != "application/json" {
		return
	}
	loc += pointer("content", mediaType, "schema")
	sch := c.schemas[loc]
	if sch == nil {
		var err error
		if sch, err = c.compiler.Compile(openAPIURL + "#" + loc); err != nil {
			t.Fatalf("compile %s: %v", loc, err)
		}
		c.schemas[loc] = sch
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Errorf("%s %s %s: not JSON: %v: %s", method, path, status, err, r.body)
		return
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s %s %s: the answer does not follow the document:\n%v\nanswer: %s", method, path, status, err, r.body)
	}
}

// TestOpenAPIDocument: the document is OpenAPI 3.1, it is served as it is embedded, every
// endpoint the server routes is in it, and every schema in it compiles.
func TestOpenAPIDocument(t *testing.T) {
	c := newContract(t)
	if c.doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", c.doc["openapi"])
	}
	srv, _ := testServer(t)
	r := call(t, srv, http.MethodGet, "/api/v1/openapi.json", validToken(t), "")
	if r.status != http.StatusOK || !bytes.Equal(r.body, OpenAPI()) || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("GET /api/v1/openapi.json: %d %s %.80s", r.status, r.header.Get("Content-Type"), r.body)
	}
	c.check(t, http.MethodGet, "/api/v1/openapi.json", r)
	mux := http.NewServeMux()
	(&EvalAPI{}).Routes(mux)
	var documented []string
	for p, item := range c.doc["paths"].(map[string]any) {
		for m := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(m)+" "+p)
			req, _ := http.NewRequest(strings.ToUpper(m), "http://x"+strings.NewReplacer("{job}", "job-1", "{item}", "rv_1").Replace(p), nil)
			if _, pattern := mux.Handler(req); pattern == "" {
				t.Errorf("%s %s is documented but not served", m, p)
			}
		}
	}
	slices.Sort(documented)
	for _, route := range []string{"GET /api/v1/eval/scenarios", "POST /api/v1/eval/scenarios", "POST /api/v1/eval/scenarios/auto-generate",
		"GET /api/v1/eval/runs", "POST /api/v1/eval/matrix", "GET /api/v1/eval/matrix/{job}", "GET /api/v1/eval/summary",
		"GET /api/v1/eval/review", "POST /api/v1/eval/review/{item}", "GET /api/v1/openapi.json", "GET /eval/report", "GET /eval/review"} {
		if _, found := slices.BinarySearch(documented, route); !found {
			t.Errorf("%s is served but not documented", route)
		}
	}
	var walk func(loc string, v any)
	walk = func(loc string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range m {
			if k == "schema" {
				if _, err := c.compiler.Compile(openAPIURL + "#" + loc + pointer(k)); err != nil {
					t.Errorf("schema at %s: %v", loc, err)
				}
				continue
			}
			walk(loc+pointer(k), sub)
		}
	}
	walk("", c.doc)
	for name := range c.doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := c.compiler.Compile(openAPIURL + "#" + pointer("components", "schemas", name)); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	desc := c.doc["info"].(map[string]any)["description"].(string)
	if !strings.Contains(desc, "Match rates are fractions from 0 to 1") {
		t.Error("the document does not state the match rate's unit")
	}
}
