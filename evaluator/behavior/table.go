package behavior

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// tableDoc is the document Table encodes: every table a behaviour outcome or a capability score
// depends on. Rules are Go code; their behaviour is pinned by the rule versions and by the data
// they read, which is all here.
type tableDoc struct {
	Version     string       `json:"version"`
	Matching    matching     `json:"matching"`
	Concepts    []*concept   `json:"concepts"`
	Operations  operations   `json:"operations"`
	GroundTruth []*truth     `json:"ground_truth"`
	Behaviors   []*rule      `json:"behaviors"`
	Scoring     []*scoreRule `json:"scoring"`
	// GenericScoring names the rule that scores capability scenarios of other profiles
	// (generic.go) and says what it does.
	GenericScoring genericRule `json:"generic_scoring"`
}

// genericRule describes the generic scoring rule in the table.
type genericRule struct {
	Rule        string `json:"rule"`
	ExcludedFor string `json:"excluded_for"`
	Selection   string `json:"selection"`
}

// matching holds the parameters of the phrase matcher (text.go).
type matching struct {
	NegationWindow int             `json:"negation_window"`
	ClauseWords    map[string]bool `json:"clause_words"`
	PlanStepMarker string          `json:"plan_step_marker"`
	// Rule-local phrase lists.
	Local []*concept `json:"local_concepts"`
}

// operations holds how tool calls and audit entries are read (toolcall.go, activity.go).
type operations struct {
	KubectlRead    []string            `json:"kubectl_read"`
	KubectlWrite   []string            `json:"kubectl_write"`
	KubectlFlags   []string            `json:"kubectl_value_flags"`
	KindShortNames map[string]string   `json:"kind_short_names"`
	SQLRead        []string            `json:"sql_read"`
	ToolDomains    map[string]string   `json:"tool_domains"`
	KindWords      map[string][]string `json:"kind_words"`
	ProvenanceKeys []string            `json:"provenance_keys"`
	HistoryQuery   []callMatch         `json:"history_query"`
	HealthReads    []callMatch         `json:"health_reads"`
	TracingCall    []callMatch         `json:"tracing_call"`
}

// Table returns the canonical JSON (store.Marshal) of every rule table of this package: the
// phrase lists and matcher parameters, how operations are read, the ground-truth table, each
// behaviour rule (id, version, kind, the Verification paragraph it implements, what it checks)
// and each scoring rule (bands and their conditions, ratio and count definitions). The evaluator
// folds it into its rules digest, so changing a phrase list changes every receipt.
func Table() ([]byte, error) {
	doc := tableDoc{
		Version: Version,
		Matching: matching{
			NegationWindow: negationWindow,
			ClauseWords:    clauseWords,
			PlanStepMarker: planStepMarker.String(),
			Local:          []*concept{escalationTarget, planPhrase, replicaWord},
		},
		Concepts: sharedConcepts,
		Operations: operations{
			KubectlRead: kubectlRead, KubectlWrite: kubectlWrite, KubectlFlags: kubectlValueFlags,
			KindShortNames: kindShortNames, SQLRead: sqlRead, ToolDomains: toolDomains,
			KindWords: kindWords, ProvenanceKeys: provenanceKeys,
			HistoryQuery: historyQuery, HealthReads: healthReads, TracingCall: tracingCall,
		},
		GroundTruth: groundTruth,
		Behaviors:   ruleList,
		Scoring:     scoreRules,
		GenericScoring: genericRule{
			Rule:        genericRuleName,
			ExcludedFor: dedicatedProfiles(),
			Selection:   "ratio = satisfied / total assertion outcomes; the numbered band with the highest value not above ratio, else the lowest band; numbered rubrics only",
		},
	}
	b, err := store.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("behavior: encoding the rule tables: %w", err)
	}
	return b, nil
}
