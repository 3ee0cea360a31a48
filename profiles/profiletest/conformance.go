package profiletest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// exampleHeading is the heading of one worked example of the SI contract: "### 5.2 …".
var exampleHeading = regexp.MustCompile(`^### (5\.\d+) `)

// ConformanceExamples returns the worked examples of the SI provider conformance contract
// (provider-conformance.md §5): the first JSON block of each subsection, byte for byte, by
// the subsection's number ("5.1" conformant, "5.2" missing audit policy, "5.3" missing
// observation types). It skips t when the shared test data is absent.
func ConformanceExamples(t testing.TB) map[string][]byte {
	t.Helper()
	path := filepath.Join(sharedtest.SIProfile(t), "provider-conformance.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	section, inBlock := "", false
	var block []byte
	for line := range bytes.Lines(data) {
		trimmed := bytes.TrimSpace(line)
		switch {
		case inBlock && bytes.Equal(trimmed, []byte("```")):
			out[section], inBlock, section = block, false, ""
		case inBlock:
			block = append(block, line...)
		case section != "" && bytes.Equal(trimmed, []byte("```json")):
			inBlock, block = true, nil
		default:
			if m := exampleHeading.FindSubmatch(trimmed); m != nil {
				section = string(m[1])
			}
		}
	}
	if len(out) < 3 {
		t.Fatalf("%s: found %d worked examples, want 3 (5.1, 5.2, 5.3)", path, len(out))
	}
	return out
}

// PinnedExample rewrites a worked example to the versions the contract pins: the examples
// were written for profile 0.2.0-rc1 and core 1.0.0-rc1, the contract of SI 0.2.0-rc3 asks for
// profile_version 0.2.0-rc3 and a core version satisfying >=1.0.0-rc1.5.
func PinnedExample(answer []byte) []byte {
	answer = bytes.ReplaceAll(answer, []byte(`"0.2.0-rc1"`), []byte(`"0.2.0-rc3"`))
	return bytes.ReplaceAll(answer, []byte(`"1.0.0-rc1"`), []byte(`"1.0.0-rc1.5"`))
}
