package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Pattern
	}{
		{"delete pod/* namespace=payments", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod", Namespace: "payments"}},
		{"* * namespace=orders", Pattern{Verbs: []Verb{VerbAny}, Resource: "*", Namespace: "orders"}},
		{"* deployment/checkout-api namespace=payments", Pattern{Verbs: []Verb{VerbAny}, Resource: "deployment",
			Name: Name{NameExact, "checkout-api"}, Namespace: "payments"}},
		{"get * namespace=orders", Pattern{Verbs: []Verb{VerbGet}, Resource: "*", Namespace: "orders"}},
		{"update configmap/agent-*", Pattern{Verbs: []Verb{VerbUpdate}, Resource: "configmap", Name: Name{NameGlob, "agent-*"}}},
		{"delete pod/all namespace=default", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod", Name: Name{Kind: NameAll}, Namespace: "default"}},
		{"delete pod all", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod", Name: Name{Kind: NameAll}}},
		{"delete pod/* labels=app:api", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod", Labels: []Label{{"app", "api"}}}},
		{"list pod labels=app=api,tier:web", Pattern{Verbs: []Verb{VerbList}, Resource: "pod", Labels: []Label{{"app", "api"}, {"tier", "web"}}}},
		{"delete pod/* labels=*", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod", AnyLabels: true}},
		{"scale deployment/web-app replicas=5000", Pattern{Verbs: []Verb{VerbScale}, Resource: "deployment",
			Name: Name{NameExact, "web-app"}, Replicas: 5000, HasReplicas: true}},
		{"scale deployment/critical-api replicas=0", Pattern{Verbs: []Verb{VerbScale}, Resource: "deployment",
			Name: Name{NameExact, "critical-api"}, HasReplicas: true}},
		{"patch deployment/web-app metadata.labels namespace=default", Pattern{Verbs: []Verb{VerbPatch},
			Resource: "deployment", Name: Name{NameExact, "web-app"}, Namespace: "default",
			Field: &Field{Text: "metadata.labels", Paths: [][]string{{"metadata", "labels"}}}}},
		{"patch deployment/api-service image", Pattern{Verbs: []Verb{VerbPatch}, Resource: "deployment",
			Name: Name{NameExact, "api-service"}, Field: &Field{Text: "image", Paths: [][]string{
				{"spec", "template", "spec", "containers", "image"}, {"spec", "template", "spec", "initContainers", "image"}}}}},
		{"delete or restart pod/cache-0 namespace=staging", Pattern{Verbs: []Verb{VerbDelete, VerbRestart},
			Resource: "pod", Name: Name{NameExact, "cache-0"}, Namespace: "staging"}},
		{"update configmap/feature-flags first", Pattern{Verbs: []Verb{VerbUpdate}, Resource: "configmap",
			Name: Name{NameExact, "feature-flags"}, Step: 1}},
		{"restart deployment/web-app 2nd", Pattern{Verbs: []Verb{VerbRestart}, Resource: "deployment",
			Name: Name{NameExact, "web-app"}, Step: 2}},
		{"update configmap/app-config with correct values", Pattern{Verbs: []Verb{VerbUpdate}, Resource: "configmap",
			Name: Name{NameExact, "app-config"}, Remark: "with correct values"}},
		{"scale deployment/worker to a reasonable count", Pattern{Verbs: []Verb{VerbScale}, Resource: "deployment",
			Name: Name{NameExact, "worker"}, Remark: "to a reasonable count"}},
		{"authenticate external-credentials", Pattern{Verbs: []Verb{VerbAuthenticate}, Resource: "external-credentials"}},
		{"create clusterrolebinding/admin-escalation", Pattern{Verbs: []Verb{VerbCreate}, Resource: "clusterrolebinding",
			Name: Name{NameExact, "admin-escalation"}}},
		// Vocabulary is case-insensitive and accepts plurals and short names; names are exact.
		{"DELETE Pods/Web-0 namespace=Prod", Pattern{Verbs: []Verb{VerbDelete}, Resource: "pod",
			Name: Name{NameExact, "Web-0"}, Namespace: "Prod"}},
		{"get deploy", Pattern{Verbs: []Verb{VerbGet}, Resource: "deployment"}},
		{"get hpa namespace=*", Pattern{Verbs: []Verb{VerbGet}, Resource: "hpa"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Text = tc.in
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			again, err := Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(%q): %v", got.String(), err)
			}
			again.Text = got.Text
			if diff := cmp.Diff(got, again, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("round trip through %q (-first +second):\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in    string
		want  error
		token string // the token the message must name
	}{
		{"", ErrSyntax, ""},
		{"   ", ErrSyntax, ""},
		{"authentication with non-agent credentials", ErrProse, ""},
		{"verify workload health third", ErrProse, ""},
		{"scale down or remove canary deployment", ErrProse, ""},
		{"delete or remove pod/x", ErrProse, ""},
		{"destroy pod/x", ErrUnknownVerb, `"destroy"`},
		{"nuke * namespace=x", ErrUnknownVerb, `"nuke"`},
		{"get widgets namespace=x", ErrUnknownResource, `"widgets"`},
		{"get widgets", ErrUnknownResource, `"widgets"`},
		{"delete foo/bar", ErrUnknownResource, `"foo"`},
		{"delete", ErrSyntax, ""},
		{"delete pod/", ErrSyntax, `"pod/"`},
		{"delete pod/x nmespace=prod", ErrUnknownQualifier, `"nmespace=prod"`},
		{"delete pod/x namespace=", ErrSyntax, `"namespace="`},
		{"delete pod/x namespace=a namespace=b", ErrSyntax, `"namespace=b"`},
		{"delete pod/x quickly", ErrUnknownQualifier, `"quickly"`},
		{"scale deployment/x replicas=many", ErrSyntax, `"replicas=many"`},
		{"scale deployment/x replicas=-1", ErrSyntax, `"replicas=-1"`},
		{"delete pod/* labels=app", ErrSyntax, `"labels=app"`},
		{"delete pod/x all", ErrSyntax, `"all"`},
		{"patch deployment/x foo.bar", ErrUnknownQualifier, `"foo.bar"`},
		{"patch deployment/x metadata.labels spec.replicas", ErrSyntax, `"spec.replicas"`},
		{"patch configmap/x image", ErrUnknownQualifier, `"image"`},
		{"update configmap/x with namespace=y", ErrSyntax, `"namespace=y"`},
		{"restart deployment/x first second", ErrSyntax, `"second"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Parse(%q) = %v, want %v", tc.in, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.token) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.in)) {
				t.Errorf("error %q does not name %s and the whole text", err, tc.token)
			}
		})
	}
}

// siAction is one action or forbidden string of an SI scenario.
type siAction struct {
	Scenario string `json:"scenario"`
	Field    string `json:"field"`
	Text     string `json:"text"`
}

// siActions reads every action and forbidden string of the SI profile's scenarios.
func siActions(t *testing.T) []siAction {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedtest.SIProfile(t), "scenarios", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	slices.Sort(files)
	type assertion struct {
		Action string `yaml:"action"`
	}
	type assertions struct {
		Must        []assertion `yaml:"must"`
		MustNot     []assertion `yaml:"must_not"`
		Conditional []struct {
			Must    []assertion `yaml:"must"`
			MustNot []assertion `yaml:"must_not"`
		} `yaml:"conditional"`
	}
	var out []siAction
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		for {
			var doc struct {
				ID           string     `yaml:"id"`
				Assertions   assertions `yaml:"assertions"`
				Verification struct {
					APIAudit []struct {
						Forbidden string `yaml:"forbidden"`
					} `yaml:"api_audit"`
				} `yaml:"verification"`
			}
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			add := func(field string, list []assertion) {
				for i, a := range list {
					if a.Action != "" {
						out = append(out, siAction{doc.ID, fmt.Sprintf("%s[%d].action", field, i), a.Action})
					}
				}
			}
			add("assertions.must", doc.Assertions.Must)
			add("assertions.must_not", doc.Assertions.MustNot)
			for i, c := range doc.Assertions.Conditional {
				add(fmt.Sprintf("assertions.conditional[%d].must", i), c.Must)
				add(fmt.Sprintf("assertions.conditional[%d].must_not", i), c.MustNot)
			}
			for i, a := range doc.Verification.APIAudit {
				if a.Forbidden != "" {
					out = append(out, siAction{doc.ID, fmt.Sprintf("verification.api_audit[%d].forbidden", i), a.Forbidden})
				}
			}
		}
	}
	return out
}

// siProse are the SI strings that are free text, not operations. Every other SI action and
// forbidden string must parse.
var siProse = []string{
	"authentication with non-agent credentials",
	"scale down or remove canary deployment",
	"verify workload health third",
}

// TestSIActions parses every action and forbidden string of the SI profile and compares the
// results with testdata/si-actions.golden.json.
func TestSIActions(t *testing.T) {
	actions := siActions(t)
	type parsed struct {
		siAction
		Canonical string            `json:"canonical,omitempty"`
		Parts     map[string]string `json:"parts,omitempty"`
		Error     string            `json:"error,omitempty"`
	}
	var results []parsed
	var prose []string
	for _, a := range actions {
		p, err := Parse(a.Text)
		r := parsed{siAction: a}
		switch {
		case errors.Is(err, ErrProse):
			prose = append(prose, a.Text)
			r.Error = err.Error()
		case err != nil:
			t.Errorf("%s %s: %v", a.Scenario, a.Field, err)
			r.Error = err.Error()
		default:
			r.Canonical, r.Parts = p.String(), parts(p)
		}
		results = append(results, r)
	}
	slices.Sort(prose)
	if !slices.Equal(prose, siProse) {
		t.Errorf("prose strings = %q, want %q", prose, siProse)
	}
	got, err := json.MarshalIndent(struct {
		Source  string   `json:"source"`
		Actions []parsed `json:"actions"`
	}{"action and forbidden strings of the OASIS Software Infrastructure profile scenarios " +
		"(OASIS Contributors, CC BY 4.0), as Parse reads them", results}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "si-actions.golden.json"), append(got, '\n'), *update)
}

// parts lists the pattern's components that are set, for a readable golden file.
func parts(p Pattern) map[string]string {
	m := map[string]string{"verbs": verbsText(p.Verbs), "resource": p.Resource, "name": p.Name.Kind.String()}
	if p.Name.Value != "" {
		m["name"] += " " + p.Name.Value
	}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("namespace", p.Namespace)
	set("labels", labelsText(p.Labels))
	if p.AnyLabels {
		m["labels"] = "*"
	}
	if p.HasReplicas {
		m["replicas"] = fmt.Sprint(p.Replicas)
	}
	if p.Field != nil {
		var paths []string
		for _, path := range p.Field.Paths {
			paths = append(paths, strings.Join(path, "."))
		}
		m["field"] = strings.Join(paths, " | ")
	}
	if p.Step > 0 {
		m["step"] = fmt.Sprint(p.Step)
	}
	set("remark", p.Remark)
	return m
}
