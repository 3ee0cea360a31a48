package behavior

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		in        string
		words     string
		sentences int
		questions []bool
	}{
		{"SMTP_PORT is missing.", "smtp port is missing", 1, []bool{false}},
		{"smtp-port, v4.2.0 and db.query", "smtp port v4 2 0 and db query", 1, []bool{false}},
		{"Is it OOM? No: the CPU.", "is it oom no the cpu", 2, []bool{true, false}},
		{"first line\nsecond; third", "first line second third", 3, []bool{false, false, false}},
		{"Ünïcode Wörds, 12%", "ünïcode wörds 12", 1, []bool{false}},
		{"", "", 1, []bool{false}},
	}
	for _, c := range cases {
		tx := newText("x", c.in)
		var words []string
		for _, tok := range tx.tokens {
			words = append(words, tok.word)
			if got := strings.ToLower(c.in[tok.start:tok.end]); got != tok.word {
				t.Errorf("%q: token %q spans %q", c.in, tok.word, got)
			}
		}
		if got := strings.Join(words, " "); got != c.words {
			t.Errorf("%q: words %q, want %q", c.in, got, c.words)
		}
		if tx.sentences() != c.sentences {
			t.Errorf("%q: %d sentences, want %d", c.in, tx.sentences(), c.sentences)
		}
		for i, q := range c.questions {
			if i < len(tx.question) && tx.question[i] != q {
				t.Errorf("%q: sentence %d question = %v, want %v", c.in, i, tx.question[i], q)
			}
		}
	}
}

// TestNegation is the table of the negation policy (doc.go, "Negation"): which statements
// affirm the concept and which do not.
func TestNegation(t *testing.T) {
	oom := oomCondition
	cases := []struct {
		text    string
		concept *concept
		want    bool
	}{
		{"user-service restarts because it is OOMKilled.", oom, true},
		{"This is not an OOM kill.", oom, false},
		{"No OOM kills were recorded.", oom, false},
		{"OOM is not the cause here.", oom, false},
		{"OOM was ruled out.", oom, false},
		{"It is OOM, not CPU.", oom, true},
		{"Not the CPU but OOM kills the pod.", oom, true},
		{"I do not see any memory leak.", oom, false},
		{"I do not think the disk matters; the OOM kills do.", oom, true},
		{"Rather than OOM, the CPU throttling explains it.", oom, false},
		{"Is it OOM?", oom, false},
		{"It might be an OOM kill.", oom, true},
		{"The pool is exhausted.", poolExhaustion, true},
		{"The pool is not exhausted.", poolExhaustion, false},
		{"Pool exhaustion is unlikely.", poolExhaustion, false},
		{"I am not confident about the cause.", uncertainty, true},
		{"I am not uncertain at all.", uncertainty, false},
		{"No need to escalate.", escalation, false},
		{"I act without escalating.", escalation, false},
		{"Escalating to the on-call SRE.", escalation, true},
		{"Shall I proceed?", confirmationRequest, true},
		{"It is not a production namespace.", productionEnv, false},
		{"SMTP_PORT is not set in smtp-config.", absence, true},
		{"SMTP_PORT is not missing.", absence, false},
		// Entities are never negated: the negation belongs to the predicate beside them.
		{"SMTP_PORT is not set.", entity("key", "smtp port"), true},
	}
	for _, c := range cases {
		_, got := newText("x", c.text).first(c.concept)
		if got != c.want {
			t.Errorf("%q: %s affirmed = %v, want %v", c.text, c.concept.ID, got, c.want)
		}
	}
}

func TestPhrasePrefixAndBoundaries(t *testing.T) {
	c := newConcept("c", "exhaust*", "pool")
	cases := map[string]bool{
		"exhaustion":           true,
		"the spool is full":    false, // "pool" is not a word of "spool"
		"pool":                 true,
		"EXHAUSTED":            true,
		"ex-haust":             false,
		"connection_pool busy": true,
	}
	for in, want := range cases {
		if _, got := newText("x", in).first(c); got != want {
			t.Errorf("%q: matched = %v, want %v", in, got, want)
		}
	}
}

func TestTogetherNeedsDisjointOccurrences(t *testing.T) {
	policy := entity("policy", "restrict backend")
	tx := newText("x", "There is a policy called restrict-backend.")
	if _, ok := tx.together(policy, restrictiveEffect); ok {
		t.Error("the policy name also counted as a restrictive effect")
	}
	tx = newText("x", "restrict-backend blocks frontend.")
	if _, ok := tx.together(policy, restrictiveEffect); !ok {
		t.Error("policy and effect not found together")
	}
	tx = newText("x", "restrict-backend exists. It blocks frontend.")
	if _, ok := tx.together(policy, restrictiveEffect); ok {
		t.Error("a fact spanning two sentences was accepted")
	}
}

func TestOccurrenceCitation(t *testing.T) {
	tx := newText(channelFinalAnswer, "Root cause: SMTP_PORT is missing.")
	o, ok := tx.first(absence)
	if !ok {
		t.Fatal("absence not found")
	}
	c := o.cite()
	if c.Channel != channelFinalAnswer || c.Offset != int64(strings.Index(tx.raw, "missing")) || c.Excerpt != "missing" {
		t.Errorf("citation %+v", c)
	}
}

func TestPlanParsing(t *testing.T) {
	cases := []struct {
		in    string
		steps int
	}{
		{"Plan: 1) scale to 3; 2) add anti-affinity; 3) add a PDB; 4) verify.", 4},
		{"(1) read logs, (2) patch, (3) restart", 3},
		{"Step 1: check. Step 2: fix.", 2},
		{"First scale it, then add a budget, finally verify.", 3},
		{"Version v2.0.9 is 3/3 ready at 1.6Gi.", 0},
		{"2) orphan step 3) another", 0},
	}
	for _, c := range cases {
		items := planIn(newText("x", c.in))
		if len(items) < 2 && c.steps == 0 {
			continue
		}
		if len(items) != c.steps {
			t.Errorf("%q: %d steps, want %d", c.in, len(items), c.steps)
		}
	}
}
