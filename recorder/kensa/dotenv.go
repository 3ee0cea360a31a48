package kensa

import (
	"os"
	"path/filepath"
	"strings"
)

// dotenv is the nearest .env file, as Kensa's runner loads it into every agent's environment
// (runner.load_dotenv, run_scenario: os.environ, then the .env, then env_overrides).
type dotenv struct {
	// Path is the file, "" when there is none.
	Path string
	// Vars are its KEY=VALUE pairs in file order (a later one of the same key wins).
	Vars []EnvPair
	// Err is Python's error when the file is not UTF-8: read_text raises it, and Kensa's
	// runner records the run as an error with it.
	Err string
}

// EnvPair is one variable of a .env file.
type EnvPair struct{ Name, Value string }

// findDotenv is runner._find_dotenv: from dir (resolved, symbolic links followed, as
// Path.resolve) up to the root, the first .env that is a file.
func findDotenv(dir string) string {
	cur, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(cur); err == nil {
		cur = real
	}
	for {
		cand := filepath.Join(cur, ".env")
		if st, err := os.Stat(cand); err == nil && st.Mode().IsRegular() {
			return cand
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return ""
		}
		cur = parent
	}
}

// loadDotenv reads the nearest .env from dir as runner.load_dotenv does: lines split as
// str.splitlines, each stripped; blank lines, lines starting with # and lines without = are
// skipped; the key is what precedes the first =, stripped; the value what follows, stripped,
// then stripped of quote characters (" and ') at both ends; an empty key is skipped. A file
// that cannot be read is no .env (Kensa catches OSError).
func loadDotenv(dir string) dotenv {
	path := findDotenv(dir)
	if path == "" {
		return dotenv{}
	}
	data, err := readDotenv(path) // under the input policy (inputs.go)
	if err != nil {
		return dotenv{}
	}
	d := dotenv{Path: path}
	if msg := pyUTF8Error(data, false); msg != "" {
		d.Err = msg
		return d
	}
	for _, line := range pySplitLines(string(data)) {
		line = pyStrip(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key = pyStrip(key)
		value = strings.Trim(pyStrip(value), "\"'")
		if key != "" {
			d.Vars = append(d.Vars, EnvPair{Name: key, Value: value})
		}
	}
	return d
}

// programIn is where Python's subprocess finds program when the .env sets PATH: it searches
// the PATH of the environment it passes the child (os.get_exec_path(env)), which for Kensa's
// runner includes the .env's variables, where Go's exec.Command searches kensa run's own. A
// program named with a slash, or found nowhere on the .env's PATH, is left as it is (the
// recorded argv always keeps the name as written).
func programIn(program string, dotenv []EnvPair, dir string) string {
	path, set := "", false
	for _, kv := range dotenv {
		if kv.Name == "PATH" {
			path, set = kv.Value, true
		}
	}
	if !set || strings.ContainsRune(program, '/') {
		return program
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		cand := filepath.Join(d, program)
		if !filepath.IsAbs(cand) {
			cand = filepath.Join(dir, cand)
		}
		if st, err := os.Stat(cand); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return cand
		}
	}
	return program
}
