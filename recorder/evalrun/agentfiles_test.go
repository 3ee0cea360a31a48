package evalrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// agentTree writes the files of a small agent project into the working directory.
func agentTree(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	for name, content := range map[string]string{
		"agent.sh":                      "#!/bin/sh\ncat\n",
		"agent.py":                      "print('hi')\n",
		"prompt.txt":                    "be brief\n",
		"src/a.py":                      "a = 1\n",
		"src/sub/b.py":                  "b = 2\n",
		"src/.hidden":                   "not code\n",
		"src/.git/config":               "not code\n",
		"src/__pycache__/a.cpython.pyc": "cache\n",
		"data/big.bin":                  strings.Repeat("x", 100),
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../prompt.txt", "src/prompt-link.txt"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../data", "src/data-link"); err != nil {
		t.Fatal(err)
	}
}

func digestOf(s string) store.Digest { return store.Sum([]byte(s)) }

// The files of an agent: what its command line names (the program given as a path, the
// arguments that are regular files; not a program found on PATH, not an option, not a
// directory), or, with --agent-files, exactly what the patterns match (directories walked,
// hidden entries and __pycache__ left out, links to files followed, links to directories kept
// as their target), sorted by path.
func TestAgentFiles(t *testing.T) {
	agentTree(t)
	tests := []struct {
		name     string
		spec     string
		patterns []string
		want     []AgentFile
	}{
		{"program on PATH, script argument", "sh agent.py --verbose src missing.py", nil,
			[]AgentFile{{Path: "agent.py", Digest: digestOf("print('hi')\n")}}},
		{"program as a path, file arguments in any order", "./agent.sh prompt.txt agent.py", nil,
			[]AgentFile{{Path: "agent.py", Digest: digestOf("print('hi')\n")}, {Path: "agent.sh", Digest: digestOf("#!/bin/sh\ncat\n")},
				{Path: "prompt.txt", Digest: digestOf("be brief\n")}}},
		{"nothing on the command line", "sh -c 'cat'", nil, []AgentFile{}},
		{"patterns replace the command line", "./agent.sh prompt.txt", []string{"src", "*.py"},
			[]AgentFile{{Path: "agent.py", Digest: digestOf("print('hi')\n")}, {Path: "src/a.py", Digest: digestOf("a = 1\n")},
				{Path: "src/data-link", Link: "../data"}, {Path: "src/prompt-link.txt", Digest: digestOf("be brief\n")},
				{Path: "src/sub/b.py", Digest: digestOf("b = 2\n")}}},
		{"a file matched twice counts once", "sh", []string{"agent.py", "agent.*y"},
			[]AgentFile{{Path: "agent.py", Digest: digestOf("print('hi')\n")}}},
		{"an http endpoint with patterns", "http://localhost:1/", []string{"src/sub"},
			[]AgentFile{{Path: "src/sub/b.py", Digest: digestOf("b = 2\n")}}},
		{"an http endpoint without", "http://localhost:1/", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAgentFiles(tt.spec, "", tt.patterns, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := FilesOf(a)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("files %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("files[%d] = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}

	// An edit is seen by the next look at the files.
	a, _ := NewAgentFiles("python3 agent.py", "", nil, Limits{})
	before, _ := FilesOf(a)
	if err := os.WriteFile("agent.py", []byte("print('bye')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := FilesOf(a)
	if before[0].Digest == after[0].Digest || after[0].Digest != digestOf("print('bye')\n") {
		t.Errorf("agent.py edited: digest %s then %s", before[0].Digest.Short(), after[0].Digest.Short())
	}
}

// Patterns that cannot name the agent's files, and files past the hashing limits, are errors
// that name the pattern or the file.
func TestAgentFilesErrors(t *testing.T) {
	agentTree(t)
	tests := []struct {
		name     string
		spec     string
		patterns []string
		files    int64
		bytes    int64
		want     string
	}{
		{"malformed pattern", "sh", []string{"src/[a"}, MaxAgentFiles, MaxAgentBytes, `--agent-files "src/[a": syntax error in pattern`},
		{"empty pattern", "sh", []string{" "}, MaxAgentFiles, MaxAgentBytes, "an empty pattern"},
		{"pattern matching nothing", "sh", []string{"agent.py", "srcs/*.py"}, MaxAgentFiles, MaxAgentBytes, `--agent-files "srcs/*.py" matches no file`},
		{"too many bytes", "python3 agent.py data/big.bin", nil, MaxAgentFiles, 50, "data/big.bin (100 bytes) takes the files to hash past the limit of 50 bytes"},
		{"too many files", "sh", []string{"src"}, 2, MaxAgentBytes, `--agent-files "src": more than 2 files to hash`},
		{"a device", "sh", []string{"/dev/null"}, MaxAgentFiles, MaxAgentBytes, `--agent-files "/dev/null": /dev/null is a device, not a regular file or a directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxAgentFiles, maxAgentBytes = tt.files, tt.bytes
			defer func() { maxAgentFiles, maxAgentBytes = MaxAgentFiles, MaxAgentBytes }()
			a, err := NewAgentFiles(tt.spec, "", tt.patterns, Limits{})
			if err == nil {
				_, err = FilesOf(a)
			}
			if !errors.Is(err, ErrAgentFiles) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrAgentFiles saying %q", err, tt.want)
			}
		})
	}
}
