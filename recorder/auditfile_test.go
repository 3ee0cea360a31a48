package recorder

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestCheckLogInParallel holds checkLog, which checks the blocks of a JSON-lines log on several
// goroutines, to the evaluator's reader scanning it in order: the same verdict, and for a
// damaged log the same first error, whichever block the damage is in and however many blocks
// are damaged.
func TestCheckLogInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var log bytes.Buffer
	if err := auditgen.Write(&log, 3, 6*lineBlockSize); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(log.String(), "\n")
	damage := func(at ...int) string {
		ls := append([]string(nil), lines...)
		for _, i := range at {
			ls[i] = strings.Replace(ls[i], `"verb":`, `"verb";`, 1)
		}
		return strings.Join(ls, "")
	}
	n := len(lines) - 1 // the last is empty
	tests := map[string]string{
		"good":                 log.String(),
		"damage in block 1":    damage(2),
		"damage in the last":   damage(n - 2),
		"damage in two blocks": damage(n-2, n/2, n/3),
		"not events":           log.String() + "{\"kind\":7}\n",
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			_, want := auditlog.ScanWith(strings.NewReader(content), store.MediaTypeK8sAuditEvents, auditlog.Options{}, func(*auditlog.Entry) error { return nil })
			if (want == nil) != (name == "good") {
				t.Fatalf("the scan in order says %v", want)
			}
			if got := checkLog(strings.NewReader(content), store.MediaTypeK8sAuditEvents); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("in parallel: %v\nin order:    %v", got, want)
			}
		})
	}
}
