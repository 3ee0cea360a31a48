package kensagen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Scenario is one generated scenario: its YAML (without the agent's command, which Write
// adds), its dataset, the behaviour of each run and the features it uses.
type Scenario struct {
	Seed uint64
	ID   string
	// RunTail is what run_command holds after the agent and its behaviour file.
	RunTail []string
	// body is the YAML after run_command.
	head, body string
	// Dataset is the JSONL text of the scenario's dataset ("" when none), DatasetFile its name
	// relative to the scenarios directory.
	Dataset, DatasetFile string
	behaviours           behaviours
	// Runs is how many runs Kensa makes of it: one per dataset row, else one.
	Runs int
	// Features are the features the scenario uses (Feature* constants), sorted.
	Features []string
}

// Features a scenario can use; Config.Exclude leaves them out.
const (
	FeatureUnicodeCase     = "unicode-case"      // output_contains, case-insensitive, on special casings
	FeatureRegex           = "regex"             // output_matches with a generated pattern
	FeatureRegexLookaround = "regex-lookaround"  // lookahead and lookbehind
	FeatureRegexBackref    = "regex-backref"     // backreferences, named groups
	FeatureRegexUnicode    = "regex-unicode"     // \w, \b next to non-ASCII letters
	FeatureRegexFlags      = "regex-flags"       // inline flags
	FeatureRegexInvalid    = "regex-invalid"     // a pattern Python refuses
	FeatureRegexEscapes    = "regex-escapes"     // Python's own escapes: \N{NAME}, \U, \x, \0
	FeatureNonUTF8Stdout   = "non-utf8-stdout"   // stdout that is not UTF-8
	FeatureHugeOutput      = "huge-output"       // outputs of tens of KiB
	FeatureTSNanos         = "ts-ns"             // integer nanoseconds (the exporter's form)
	FeatureTSMicros        = "ts-us"             // integer microseconds
	FeatureTSMillis        = "ts-ms"             // integer milliseconds
	FeatureTSSeconds       = "ts-s"              // seconds, integer or float
	FeatureTSFloatNanos    = "ts-float-ns"       // nanoseconds as a float
	FeatureTSISO           = "ts-iso"            // ISO-8601 strings
	FeatureTSMissing       = "ts-missing"        // no start_time or end_time
	FeatureDotenv          = "dotenv"            // the agent reads a variable of .env
	FeatureEnvOverride     = "env-override"      // env_overrides, protected ones included
	FeatureListInput       = "list-input"        // a literal "{{input}}" element in run_command
	FeatureUnknownParam    = "unknown-param"     // a check param Kensa does not know
	FeatureBracesNoDataset = "braces-no-dataset" // a literal "{{" in a check without a dataset
	FeatureCheckDefaults   = "check-defaults"    // a check with no params
	FeatureDataset         = "dataset"           // dataset rows and {{field}} placeholders
	FeatureInputDict       = "input-dict"        // an input mapping (JSON on the command line)
	FeatureGenAI           = "genai-attrs"       // GenAI attributes on a span
	FeatureNestedAttrs     = "nested-attrs"      // attributes as nested objects
	FeatureMessagesMapping = "messages-mapping"  // llm.output_messages nested into a mapping, not a list
	FeatureEmbeddedTools   = "embedded-tools"    // tool calls embedded in LLM spans
	FeatureOutputShapes    = "output-shapes"     // output as messages, Anthropic or OpenAI responses
	FeatureMissingFields   = "missing-fields"    // spans without ids, name, kind or status
	FeatureErrorRun        = "error-run"         // non-zero exit, no spans, a malformed line
	FeatureTokensCost      = "tokens-cost"       // token counts and declared costs
	FeatureTrajectory      = "trajectory"        // the trajectory check
	FeatureBoundaryParams  = "boundary-params"   // thresholds at and around what was observed
	FeatureTruthyParam     = "truthy-param"      // case_sensitive given as a string or a number
	FeatureExpected        = "expected"          // a dataset row's expected field
)

// allFeatures lists every feature.
var allFeatures = []string{FeatureUnicodeCase, FeatureRegex, FeatureRegexLookaround, FeatureRegexBackref,
	FeatureRegexUnicode, FeatureRegexFlags, FeatureRegexInvalid, FeatureRegexEscapes, FeatureNonUTF8Stdout, FeatureHugeOutput,
	FeatureTSNanos, FeatureTSMicros, FeatureTSMillis, FeatureTSSeconds, FeatureTSFloatNanos, FeatureTSISO,
	FeatureTSMissing, FeatureDotenv, FeatureEnvOverride, FeatureListInput, FeatureUnknownParam,
	FeatureBracesNoDataset, FeatureCheckDefaults, FeatureDataset, FeatureInputDict, FeatureGenAI,
	FeatureNestedAttrs, FeatureMessagesMapping, FeatureEmbeddedTools, FeatureOutputShapes, FeatureMissingFields, FeatureErrorRun,
	FeatureTokensCost, FeatureTrajectory, FeatureBoundaryParams, FeatureTruthyParam, FeatureExpected}

// Features lists every feature a scenario can use.
func Features() []string { return slices.Clone(allFeatures) }

// Config restricts generation.
type Config struct {
	// Exclude lists features never generated.
	Exclude []string
}

type gen struct {
	r        *rand.Rand
	cfg      Config
	features map[string]bool
	// outputs are the final texts of the behaviours (for checks that find them).
	outputs []string
	tools   []string
	// dictRows is set when a dataset row's input is a mapping: "{{q}}" would then make a
	// check's value a dict, on which Kensa's output_contains raises and stops kensa judge.
	dictRows bool
	// seed, traces and traceID make each run's trace id: the seed and a counter.
	seed, traces uint64
	traceID      string
}

// Generate makes the scenario of seed.
func Generate(seed uint64, cfg Config) *Scenario {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6b656e7361)), cfg: cfg, features: map[string]bool{}, seed: seed}
	return g.scenario(seed)
}

// allow says whether feature f may be used, and with probability p it is.
func (g *gen) allow(f string, p float64) bool {
	if slices.Contains(g.cfg.Exclude, f) {
		return false
	}
	if g.r.Float64() < p {
		g.features[f] = true
		return true
	}
	return false
}

func (g *gen) use(f string) { g.features[f] = true }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// words are the texts outputs are made of: special casings (İ, ß, final sigma, ligatures,
// titlecase digraphs, the Kelvin sign, dotless i) beside plain ASCII.
var words = []string{"Order", "A-100", "shipped", "refunded.", "İstanbul", "STRASSE", "straße", "ẞ",
	"ΣΊΣΥΦΟΣ", "σίσυφος", "ὈΔΥΣΣΕΎΣ", "ﬁle", "ǅemal", "\u212aelvin", "ΐ", "ı", "İ", "i̇", "café", "naïve",
	"x", "123", "ok", "Hello", "world", "emoji🎉", "ℌ", "Ω", "\u2126", "ŉ", "ǰ", "ﬀ", "tab\tsep", "new\nline", "ǈ"}

// variants are case variants a check looks for: what Python's full mapping makes equal (or
// not) to the word.
var variants = map[string][]string{
	"İstanbul":    {"istanbul", "İSTANBUL", "i̇stanbul", "İstanbul"},
	"STRASSE":     {"straße", "strasse", "STRASSE"},
	"straße":      {"STRASSE", "straße", "STRAßE", "ss"},
	"ẞ":           {"ß", "ss", "ẞ"},
	"ΣΊΣΥΦΟΣ":     {"σίσυφος", "σίσυφοσ", "ΣΊΣΥΦΟΣ"},
	"σίσυφος":     {"ΣΊΣΥΦΟΣ", "σίσυφοσ"},
	"ﬁle":         {"FILE", "file", "ﬁle"},
	"ǅemal":       {"DŽemal", "džemal", "ǆemal"},
	"\u212aelvin": {"kelvin", "KELVIN"},
	"ΐ":           {"ΐ", "Ϊ́"},
	"ı":           {"I", "i", "ı"},
	"İ":           {"i̇", "i", "İ"},
	"Ω":           {"ω", "\u2126"},
	"\u2126":      {"ω", "Ω"},
	"ŉ":           {"ʼN", "ŉ"},
	"ﬀ":           {"FF", "ff"},
	"ǈ":           {"ǉ", "Ǉ"},
}

var toolNames = []string{"lookup_order", "refund_order", "search", "send_email", "escalate", "İnfo", "straße"}

func (g *gen) text(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = pick(g, words)
	}
	return strings.Join(parts, " ")
}

func (g *gen) scenario(seed uint64) *Scenario {
	sc := &Scenario{Seed: seed, ID: fmt.Sprintf("s%d", seed)}
	var head strings.Builder
	fmt.Fprintf(&head, "id: %s\nname: %s\n", jsonText(sc.ID), jsonText("generated "+g.text(2)))
	if g.chance(0.3) {
		fmt.Fprintf(&head, "description: %s\n", jsonText(g.text(3)))
	}
	// The rows: a dataset, or one run with the scenario's input.
	type rowIn struct {
		tag   string // "" when the input carries no tag
		arg   *string
		value any
	}
	var rows []rowIn
	var datasetFields []string
	if g.allow(FeatureDataset, 0.35) {
		n := 1 + g.intn(4)
		sc.DatasetFile = sc.ID + ".jsonl"
		var lines []string
		for i := range n {
			tag := strconv.Itoa(i)
			row := obj{}
			var in any = fmt.Sprintf("%s #r%s#", g.text(1+g.intn(2)), tag)
			// A number or a bool as the input stops kensa run for every scenario (ScenarioRun's
			// input is str | dict: pydantic refuses the run), so a row's input is a string or,
			// sometimes, a mapping.
			arg := pyStr(in)
			if g.allow(FeatureInputDict, 0.1) {
				o := obj{}.with("q", fmt.Sprintf("ask #r%s#", tag)).with("n", g.intn(3))
				in, arg = o, pyDumpsObj(o)
				g.dictRows = true
			}
			row = row.with("q", in)
			row = row.with("word", pick(g, words))
			row = row.with("tool", pick(g, toolNames))
			row = row.with("n", pick(g, []any{0, 1, 2, 3, pyFloat(0.5), pyFloat(2.0)}))
			if g.allow(FeatureExpected, 0.4) {
				row = row.with("expected", pick(g, []any{g.text(2), 5, pyFloat(1.5), nil}))
			}
			lines = append(lines, jsonText(row))
			if g.chance(0.1) {
				lines = append(lines, "")
			}
			rows = append(rows, rowIn{tag: tag, arg: &arg, value: in})
		}
		datasetFields = []string{"q", "word", "tool", "n"}
		sc.Dataset = strings.Join(lines, "\n") + "\n"
		fmt.Fprintf(&head, "dataset: %s\ninput_field: q\n", jsonText(sc.DatasetFile))
	} else {
		switch {
		case g.allow(FeatureInputDict, 0.15):
			o := obj{}.with("q", g.text(1)+" #r0#").with("n", g.intn(5))
			if g.chance(0.5) {
				o = obj{}.with("n", g.intn(5)).with("q", "ask #r0# "+g.text(1))
			}
			fmt.Fprintf(&head, "input: %s\n", jsonText(o))
			arg := pyDumpsObj(o)
			rows = append(rows, rowIn{tag: "0", arg: &arg})
		case g.chance(0.85):
			in := g.text(1+g.intn(3)) + " #r0#"
			fmt.Fprintf(&head, "input: %s\n", jsonText(in))
			rows = append(rows, rowIn{tag: "0", arg: &in})
		default:
			rows = append(rows, rowIn{})
		}
	}
	sc.Runs = len(rows)
	if g.allow(FeatureListInput, 0.1) {
		sc.RunTail = append(sc.RunTail, "{{input}}")
	}
	if g.chance(0.1) {
		sc.RunTail = append(sc.RunTail, "--literal", "{{word}}")
	}
	// The environment the agent echoes.
	envName, envWant := "", ""
	var overrides obj
	if g.allow(FeatureEnvOverride, 0.15) {
		switch g.intn(3) {
		case 0:
			overrides = obj{}.with("KGEN_OVR", "over "+g.text(1))
			envName, envWant = "KGEN_OVR", "over "+""
		case 1:
			overrides = obj{}.with("HOME", "/kgen-home")
			envName, envWant = "HOME", "/kgen-home" // protected: Kensa ignores it
		default:
			overrides = obj{}.with("KGEN_DOT_OVER", "from-override")
			envName, envWant = "KGEN_DOT_OVER", "from-override"
		}
		if envName == "KGEN_OVR" {
			v := overrides[0].v.(string)
			envWant = v
		}
		fmt.Fprintf(&head, "env_overrides: %s\n", jsonText(overrides))
	} else if g.allow(FeatureDotenv, 0.15) {
		envName, envWant = pick(g, dotenvExpect)[0], ""
		for _, e := range dotenvExpect {
			if e[0] == envName {
				envWant = e[1]
			}
		}
	}
	sc.head = head.String()

	// Behaviours.
	argc := len(sc.RunTail)
	var defaultBeh *Behaviour
	byTag := map[string]Behaviour{}
	var argWant []string
	for _, row := range rows {
		rc := argc
		if row.arg != nil {
			rc++
		}
		echo := ""
		if slices.Contains(sc.RunTail, "{{input}}") || g.chance(0.1) {
			echo += fmt.Sprintf(" argc=@@ARGC@@")
		}
		if row.arg != nil && g.chance(0.15) {
			echo += " arg=@@ARG@@"
			argWant = append(argWant, "arg="+*row.arg)
		}
		if envName != "" {
			echo += " env=@@ENV:" + envName + "@@"
		}
		b := g.behaviour(echo)
		if slices.Contains(sc.RunTail, "{{input}}") {
			argWant = append(argWant, "argc="+strconv.Itoa(rc))
		}
		if row.tag != "" {
			byTag[row.tag] = b
		} else if defaultBeh == nil {
			defaultBeh = &b
		}
	}
	if defaultBeh == nil {
		defaultBeh = &Behaviour{Spans: "", NoFile: true, Exit: 99, Stderr: "no behaviour for this input\n"}
	}
	sc.behaviours = behaviours{ByTag: byTag, Default: *defaultBeh}

	// Checks.
	var checks []string
	n := 1 + g.intn(5)
	hasTrajectory := false
	for range n {
		c, isTraj := g.check(datasetFields, hasTrajectory)
		hasTrajectory = hasTrajectory || isTraj
		checks = append(checks, c)
	}
	for _, w := range argWant {
		checks = append(checks, checkYAML("output_contains", obj{}.with("value", w).with("case_sensitive", true)))
	}
	if envName != "" {
		checks = append(checks, checkYAML("output_contains", obj{}.with("value", "env="+envWant).with("case_sensitive", true)))
	}
	g.shuffle(checks)
	var body strings.Builder
	body.WriteString("checks:\n")
	for _, c := range checks {
		body.WriteString(c)
	}
	sc.body = body.String()
	for f := range g.features {
		sc.Features = append(sc.Features, f)
	}
	slices.Sort(sc.Features)
	return sc
}

func (g *gen) shuffle(xs []string) {
	g.r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// pyStr is Python's str() of a dataset value, as Kensa passes it on the command line.
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case pyFloat:
		return pyRepr(float64(x))
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	panic(fmt.Sprintf("kensagen: pyStr of %T", v))
}

func checkYAML(typ string, params obj) string {
	if params == nil {
		return fmt.Sprintf("  - type: %s\n", typ)
	}
	return fmt.Sprintf("  - type: %s\n    params: %s\n", typ, jsonText(params))
}
