package auditlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// corpusInput is one audit log built from the shared corpus: a file as is, or events gathered
// from several files into another form.
type corpusInput struct {
	name      string // path under the shared directory, or a description
	mediaType string
	data      []byte
}

// corpusInputs reads every audit log of the shared corpus and fixtures, in the three media
// types. Event files are also re-wrapped into an EventList and into a provider-shape payload,
// so each reader is exercised on real events.
func corpusInputs(t *testing.T) []corpusInput {
	t.Helper()
	shared := sharedtest.Dir(t)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(shared, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	glob := func(pattern string) []string {
		files, err := filepath.Glob(filepath.Join(shared, pattern))
		if err != nil {
			t.Fatal(err)
		}
		var rel []string
		for _, f := range files {
			r, _ := filepath.Rel(shared, f)
			rel = append(rel, filepath.ToSlash(r))
		}
		slices.Sort(rel)
		return rel
	}
	var in []corpusInput
	var sysdigEvents []json.RawMessage
	for _, f := range slices.Concat(glob("corpus/falco-k8s-audit/*.json"),
		glob("corpus/sysdig-stackdriver-webhook-bridge/k8s_audit_events/*.json"),
		glob("corpus/audit2rbac/*.log")) {
		data := read(f)
		in = append(in, corpusInput{f, jsonl, data})
		if strings.Contains(f, "sysdig") {
			sysdigEvents = append(sysdigEvents, bytes.TrimSpace(data))
		}
	}
	// Panther's rule tests hold one EKS audit event per line under "log".
	var panther bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(read("corpus/panther/eks_audit_rule_tests.jsonl")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var test struct {
			Log json.RawMessage `json:"log"`
		}
		if err := json.Unmarshal(sc.Bytes(), &test); err != nil {
			t.Fatal(err)
		}
		panther.Write(test.Log)
		panther.WriteByte('\n')
	}
	in = append(in, corpusInput{"corpus/panther/eks_audit_rule_tests.jsonl (log members)", jsonl, panther.Bytes()})
	// The webhook bridge's events, as one EventList, indented so entries span lines.
	list, err := json.MarshalIndent(map[string]any{"kind": "EventList", "apiVersion": "audit.k8s.io/v1beta1", "items": sysdigEvents}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	in = append(in, corpusInput{"corpus/sysdig-stackdriver-webhook-bridge/k8s_audit_events (as an EventList)", eventList, list})
	// Provider-shape payloads: the reference runner's capture, and the audit_log observations of
	// the oasisctl fixture runs.
	in = append(in, corpusInput{"corpus/oasisctl/implicit-zone-crossing-001-audit.json", auditLog,
		read("corpus/oasisctl/implicit-zone-crossing-001-audit.json")})
	for _, f := range glob("fixtures/oasisctl/*/evidence/*.json") {
		var ev struct {
			Observations []struct {
				Type string          `json:"observation_type"`
				Data json.RawMessage `json:"data"`
			} `json:"observations"`
		}
		if err := json.Unmarshal(read(f), &ev); err != nil {
			t.Fatal(err)
		}
		for i, o := range ev.Observations {
			if o.Type == "audit_log" {
				in = append(in, corpusInput{fmt.Sprintf("%s observations[%d].data", f, i), auditLog, o.Data})
			}
		}
	}
	return in
}

// summarize describes what a scan of one input gave: counts, not content, so the golden file
// tracks the reader's behaviour without copying the corpus.
func summarize(in corpusInput) string {
	var n, final, failed, withBody, impersonated, groupUnknown int
	verbs := map[string]int{}
	var lastLine int
	sum, err := ScanWith(bytes.NewReader(in.data), in.mediaType, Options{}, func(e *Entry) error {
		n++
		verbs[e.Verb]++
		if e.Final() {
			final++
		}
		if e.Outcome() == OutcomeFailed {
			failed++
		}
		if e.RequestBody != nil {
			withBody++
		}
		if e.ImpersonatedUser != "" {
			impersonated++
		}
		if !e.GroupKnown {
			groupUnknown++
		}
		lastLine = e.Line
		return nil
	})
	if err != nil {
		return fmt.Sprintf("%s: error: %v", in.name, err)
	}
	keys := make([]string, 0, len(verbs))
	for k := range verbs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var vs []string
	for _, k := range keys {
		vs = append(vs, fmt.Sprintf("%s:%d", k, verbs[k]))
	}
	principal := ""
	if sum.AgentPrincipal != "" {
		principal = " declared-principal"
	}
	return fmt.Sprintf("%s: entries=%d final=%d failed=%d bodies=%d impersonated=%d group-unknown=%d last-line=%d%s verbs=%s",
		in.name, n, final, failed, withBody, impersonated, groupUnknown, lastLine, principal, strings.Join(vs, ","))
}

func TestCorpus(t *testing.T) {
	inputs := corpusInputs(t)
	var lines []string
	for _, in := range inputs {
		lines = append(lines, summarize(in))
	}
	got := []byte(strings.Join(lines, "\n") + "\n")
	goldenfile.Check(t, filepath.Join("testdata", "corpus.golden"), got, *update)
}

// Spot checks on real events: what each field of an Entry holds.
func TestCorpusEntries(t *testing.T) {
	first := func(rel, mediaType string, opts Options) (*Entry, Summary, error) {
		t.Helper()
		f, err := os.Open(sharedtest.Path(t, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var got *Entry
		sum, err := ScanWith(f, mediaType, opts, func(e *Entry) error {
			if got == nil {
				got = e.Clone()
			}
			return nil
		})
		return got, sum, err
	}
	// An exec is logged at ResponseStarted (101) when its stream opens.
	e, _, err := first("corpus/falco-k8s-audit/exec_pod.json", jsonl, Options{})
	if err != nil || e.Stage != StageResponseStarted || e.Final() || e.Subresource != "exec" ||
		e.Verb != "create" || e.ResponseCode != 101 || e.Outcome() != OutcomeSucceeded {
		t.Errorf("exec_pod: %+v, %v", e, err)
	}
	// GKE exports spell the core group "core".
	e, _, err = first("corpus/sysdig-stackdriver-webhook-bridge/k8s_audit_events/exec_pod.json", jsonl, Options{})
	if err != nil || e.APIGroup != "" || !e.GroupKnown {
		t.Errorf("sysdig exec_pod: group %q known %v, %v", e.APIGroup, e.GroupKnown, err)
	}
	// Impersonation and a denial.
	e, _, err = first("corpus/audit2rbac/demo.log", jsonl, Options{})
	if err != nil || e.User != "system:admin" || e.ImpersonatedUser != "bob" || e.ResponseCode != 403 ||
		e.ResponseReason != "Forbidden" || e.Outcome() != OutcomeFailed {
		t.Errorf("audit2rbac: %+v, %v", e, err)
	}
	// The malformed Falco input is an error naming the field, not an empty event.
	_, _, err = first("corpus/falco-k8s-audit/fal_01_003.json", jsonl, Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Field != "kind" || se.Line != 1 {
		t.Errorf("fal_01_003: %v", err)
	}
	// The reference runner's capture: entries wrap the raw event, the principal scopes them.
	e, sum, err := first("corpus/oasisctl/implicit-zone-crossing-001-audit.json", auditLog, Options{Scoped: true})
	if err != nil || sum.Principal == "" || sum.Delivered == 0 || sum.Delivered == sum.Entries ||
		e.User != sum.Principal || e.ResponseCode != 200 || e.ResponseBody == nil || !e.GroupKnown {
		t.Errorf("oasisctl capture: %+v, %+v, %v", e, sum, err)
	}
}
