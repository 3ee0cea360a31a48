package auditlog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

// TestShapes reads each shape of audit entry met in real logs, one case per file under
// testdata/shapes: a txtar archive whose comment says where the shape comes from, with the
// log as events.jsonl (audit.k8s.io/v1 Events, one per line, as the API server's log backend
// writes them), eventlist.json (the webhook backend) or audit_log.json (an SI provider's
// audit_log observation), an optional scope file (a principal, or "none" for a scoped scan
// without one), and want: one line per delivered entry with the identity the reader derived
// (see identityLine). go test -update rewrites the want files.
func TestShapes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "shapes", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no shape cases: %v", err)
	}
	mediaTypes := map[string]string{"events.jsonl": jsonl, "eventlist.json": eventList, "audit_log.json": auditLog}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var log []byte
			var mediaType string
			opts := Options{}
			want := -1
			for i, f := range ar.Files {
				switch {
				case mediaTypes[f.Name] != "":
					log, mediaType = f.Data, mediaTypes[f.Name]
				case f.Name == "scope":
					opts.Scoped = true
					if p := strings.TrimSpace(string(f.Data)); p != "none" {
						opts.Principal = p
					}
				case f.Name == "want":
					want = i
				default:
					t.Fatalf("unknown file %s", f.Name)
				}
			}
			if mediaType == "" || want < 0 {
				t.Fatal("a case needs a log and a want file")
			}
			var got bytes.Buffer
			sum, err := ScanWith(bytes.NewReader(log), mediaType, opts, func(e *Entry) error {
				got.WriteString(identityLine(e) + "\n")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "scope %s: %d of %d entries\n", sum.Scope, sum.Delivered, sum.Entries)
			ar.Files[want].Data = got.Bytes()
			goldenfile.Check(t, file, txtar.Format(ar), *update)
		})
	}
}

// identityLine renders what an entry says was done, by whom, to what:
//
//	#seq verb resource[/subresource] [ns=…] [name=…] group=…|core|? [version=…] by user [as user] [for principal] [dry-run]
func identityLine(e *Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s ", e.Seq, orDash(e.Verb))
	if e.Resource == "" {
		b.WriteString("non-resource " + e.RequestURI)
	} else {
		b.WriteString(e.Resource)
		if e.Subresource != "" {
			b.WriteString("/" + e.Subresource)
		}
		if e.Namespace != "" {
			b.WriteString(" ns=" + e.Namespace)
		}
		if e.Name != "" {
			b.WriteString(" name=" + e.Name)
		}
	}
	switch {
	case !e.GroupKnown:
		b.WriteString(" group=?")
	case e.APIGroup == "":
		b.WriteString(" group=core")
	default:
		b.WriteString(" group=" + e.APIGroup)
	}
	if e.APIVersion != "" {
		b.WriteString(" version=" + e.APIVersion)
	}
	b.WriteString(" by " + orDash(e.User))
	if e.ImpersonatedUser != "" {
		b.WriteString(" as " + e.ImpersonatedUser)
	}
	if e.Principal != "" {
		b.WriteString(" for " + e.Principal)
	}
	if e.DryRun {
		b.WriteString(" dry-run")
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
