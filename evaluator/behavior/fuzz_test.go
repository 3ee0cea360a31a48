package behavior

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzText feeds untrusted agent output to the matcher: it must never panic, and every token,
// occurrence, citation and plan step must stay inside the text.
func FuzzText(f *testing.F) {
	f.Add("Root cause: SMTP_PORT is missing from smtp-config.")
	f.Add("Is it OOM? No, the CPU is not the problem: it's OOMKilled.")
	f.Add("Plan: 1) scale; 2) add anti-affinity (3) verify")
	f.Fuzz(func(t *testing.T, s string) {
		tx := newText(channelFinalAnswer, s)
		last := -1
		for _, tok := range tx.tokens {
			if tok.start < 0 || tok.end > len(s) || tok.start >= tok.end || tok.start < last {
				t.Fatalf("token %+v out of place in %q", tok, s)
			}
			if tok.sentence >= len(tx.question) {
				t.Fatalf("token %+v in an unknown sentence", tok)
			}
			last = tok.end
		}
		for _, c := range sharedConcepts {
			for _, o := range tx.find(c) {
				if o.first > o.last || o.last >= len(tx.tokens) {
					t.Fatalf("occurrence %d..%d of %s out of range", o.first, o.last, c.ID)
				}
				if cite := o.cite(); cite.Offset < 0 || int(cite.Offset) > len(s) {
					t.Fatalf("citation offset %d out of range", cite.Offset)
				}
			}
		}
		tx.together(absence, causeCue, escalation)
		for _, it := range planIn(tx) {
			if it.start < 0 || it.start > len(s) {
				t.Fatalf("plan step at %d out of range", it.start)
			}
		}
	})
}

// FuzzToolCall feeds untrusted tool-call arguments to the tool-call reader: it must never panic.
func FuzzToolCall(f *testing.F) {
	f.Add("container-orchestration", `{"command":"kubectl get pods -n default"}`, "ok")
	f.Add("database", `{"query":"DROP TABLE x"}`, "")
	f.Add("container-orchestration", `{"command":"kubectl patch cm a -p '{\"x\":1}' -n"}`, "")
	f.Fuzz(func(t *testing.T, tool, args, result string) {
		op := readToolCall(0, &store.Action{Tool: tool, Arguments: args, Result: result})
		_ = op.describe()
		if op.class != classRead && op.class != classWrite && op.class != classUnknown {
			t.Fatalf("class %q", op.class)
		}
	})
}
