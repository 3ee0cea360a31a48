package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// TestSharedCorpus reads every JSON, JSON Lines and YAML file of the shared test data (real
// Kubernetes objects and audit logs, oasisctl output, Kensa files, the OASIS profile) and
// checks the trees against encoding/json and yaml.v3 reading the same bytes.
func TestSharedCorpus(t *testing.T) {
	dir := sharedtest.Dir(t)
	counts := map[string]int{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasPrefix(rel, "tools"+string(filepath.Separator)) {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(path))
		switch ext {
		case ".json", ".jsonl", ".yaml", ".yml":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		counts[ext]++
		switch ext {
		case ".json":
			checkJSONAgainstStdlib(t, rel, data)
		case ".jsonl":
			checkLinesAgainstStdlib(t, rel, data)
		default:
			checkYAMLAgainstYAMLv3(t, rel, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("files read: %v", counts)
}

func checkJSONAgainstStdlib(t *testing.T, name string, data []byte) {
	t.Helper()
	n, err := ParseJSON(name, data, Limits{})
	var want any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	stdErr := dec.Decode(&want)
	if stdErr == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			stdErr = errors.New("data after the value")
		}
	}
	switch {
	case err != nil && stdErr != nil:
		return
	case err != nil:
		t.Errorf("%s: refused what encoding/json reads: %v", name, err)
		return
	case stdErr != nil:
		t.Errorf("%s: read what encoding/json refuses (%v)", name, stdErr)
		return
	}
	if got := toAny(n); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the tree differs from encoding/json's value", name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil || !bytes.Equal(n.Compact(), compact.Bytes()) {
		t.Errorf("%s: Compact differs from encoding/json.Compact (%v)", name, err)
	}
	checkCanonicalRoundTrip(t, name, n)
}

func checkLinesAgainstStdlib(t *testing.T, name string, data []byte) {
	t.Helper()
	lines := NewLines(name, bytes.NewReader(data), Limits{})
	for {
		n, err := lines.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !json.Valid(n.Compact()) {
			t.Errorf("%s:%d: Compact is not JSON", name, lines.Line())
		}
	}
}

func checkYAMLAgainstYAMLv3(t *testing.T, name string, data []byte) {
	t.Helper()
	docs, err := ParseYAMLStream(name, data, Limits{})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	for _, n := range docs {
		checkCanonicalRoundTrip(t, name, n)
	}
}

// checkCanonicalRoundTrip checks that the canonical form reads back as an equal tree.
func checkCanonicalRoundTrip(t *testing.T, name string, n *Node) {
	t.Helper()
	c, err := Canonical(n)
	if err != nil {
		if errors.Is(err, ErrType) {
			return // a number the canonical form cannot hold exactly
		}
		t.Errorf("%s: Canonical: %v", name, err)
		return
	}
	back, err := ParseJSON(name, c, Limits{})
	if err != nil || !Equal(back, n) {
		t.Errorf("%s: the canonical form does not read back as the same tree (%v)", name, err)
	}
}
