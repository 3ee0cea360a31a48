package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// input is a path a command reads, named in messages by its flag or argument.
type input struct {
	name   string // "--audit-log", "DIR"
	path   string
	expect inputfile.Expect
}

// flagInput is the input a flag names ("" when the flag is not given).
func flagInput(c *cli.Context, flag string, expect inputfile.Expect) input {
	return input{name: "--" + flag, path: c.String(flag), expect: expect}
}

// argInput is the first positional argument, named name in messages.
func argInput(c *cli.Context, name string, expect inputfile.Expect) input {
	return input{name: name, path: c.Args().First(), expect: expect}
}

// checkInputs checks, before the store is opened, that every input given exists and is what
// the command reads: a regular file, a directory, or either. A named pipe, a device or a
// socket would hang the command, with the store locked (see package inputfile); the readers
// check again on the open descriptor, but a command should not lock the store only to refuse
// its input.
func checkInputs(inputs ...input) error {
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		if err := inputfile.Check(in.path, in.expect); err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
	}
	return nil
}

// pathInput is a place on a command line that names a path: a positional argument (by its
// word in ArgsUsage) or a flag. The command tree says which they are, so that every command,
// a new one too, has its inputs checked (checkSpecialInputs) and tested
// (TestEveryPathInputPolicy) without anyone listing them.
type pathInput struct {
	// flag is the flag's name ("" for an argument); arg the argument's index in ArgsUsage,
	// and variadic whether it repeats (it and every argument after it).
	flag     string
	arg      int
	variadic bool
	// word is the ArgsUsage word or the flag's placeholder ("FILE", "DIR", "FILE|BUNDLE").
	word   string
	expect inputfile.Expect
}

// String names the input as messages and tests do: "--audit-log", "DIR".
func (p pathInput) String() string {
	if p.flag != "" {
		return "--" + p.flag
	}
	return p.word
}

// pathWords are the ArgsUsage words and flag placeholders that name a path, and what each is.
var pathWords = map[string]inputfile.Expect{
	"FILE": inputfile.File, "DIR": inputfile.Dir, "PATH": inputfile.FileOrDir, "JOURNAL": inputfile.File,
	"KEY": inputfile.File, "KEY.pub": inputfile.File,
}

// outputs are the path flags a command writes, never reads: the input policy is not theirs
// (writing to /dev/null or a pipe is the user's choice). Each says why.
var outputs = map[string]string{
	"bundle export --output":        "the archive written",
	"bundle pull --signed-receipts": "the directory the receipts are written into",
	"eval scenario generate --out":  "the directory the drafts are written into",
	"eval report --html":            "the report written",
	"eval report --csv":             "the table written",
	"kensa stats --html":            "the report written",
	"receipt keygen -o":             "the key pair written",
	"replay --receipt":              "the signed receipt written",
	"kensa run --spool":             "the spool directory, written",
	"eval run --spool-dir":          "the spool directory, written",
	"eval matrix --spool-dir":       "the spool directory, written",
	"serve api --spool-dir":         "the spool directory, written",
}

// notPaths are flags whose usage names a file or a directory but whose value is no path.
var notPaths = map[string]string{
	"profile-commit": "the source commit of the --profile directory",
	"commit":         "the source commit of the profile directory",
}

// pathInputs lists the inputs of command c (named name, "record files") that name paths it
// reads, from its definition: each ArgsUsage word (or |-separated part of one) that is a path
// word, and each flag whose placeholder is one or whose usage says it names a file or a
// directory, less the outputs.
func pathInputs(name string, c *cli.Command) []pathInput {
	var out []pathInput
	for i, w := range strings.Fields(c.ArgsUsage) {
		w = strings.Trim(w, "[]")
		variadic := strings.HasSuffix(w, "...") || strings.HasSuffix(w, "…")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "..."), "…")
		for _, part := range strings.Split(w, "|") {
			if e, ok := pathWords[part]; ok {
				out = append(out, pathInput{arg: i, variadic: variadic, word: w, expect: e})
				break
			}
		}
	}
	for _, f := range c.Flags {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok || !d.TakesValue() {
			continue
		}
		flag := f.Names()[0]
		if _, ok := notPaths[flag]; ok {
			continue
		}
		if _, ok := outputs[name+" --"+flag]; ok {
			continue
		}
		if _, ok := outputs[name+" -"+flag]; ok {
			continue
		}
		usage := d.GetUsage()
		word := placeholder(usage)
		e, ok := pathWords[word]
		if !ok {
			file, dir := mentions(usage, "file"), mentions(usage, "directory")
			switch {
			case file && dir:
				e, ok = inputfile.FileOrDir, true
			case dir:
				e, ok = inputfile.Dir, true
			case file:
				e, ok = inputfile.File, true
			}
		}
		if ok {
			out = append(out, pathInput{flag: flag, arg: -1, word: word, expect: e})
		}
	}
	return out
}

// mentions reports whether usage has word as a word of its own.
func mentions(usage, word string) bool {
	return slices.ContainsFunc(strings.FieldsFunc(strings.ToLower(usage), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	}), func(w string) bool { return w == word })
}

// values are the paths the command line gives the input.
func (p pathInput) values(c *cli.Context) []string {
	if p.flag != "" {
		if c.IsSet(p.flag) {
			if vs := c.StringSlice(p.flag); len(vs) > 0 {
				return vs
			}
			return []string{c.String(p.flag)}
		}
		return nil
	}
	args := c.Args().Slice()
	switch {
	case p.arg >= len(args):
		return nil
	case p.variadic:
		return args[p.arg:]
	}
	return args[p.arg : p.arg+1]
}

// checkSpecialInputs refuses, before a command runs, any path it reads that is a named pipe, a
// device or a socket: opening a pipe blocks until a writer comes, reading /dev/zero never
// ends, and a command waiting on either may hold the store. The readers refuse them too, on
// the open descriptor (inputfile.Open); this check makes it true of every command at once,
// with a message naming the flag or argument, the path and what it is. A path that does not
// exist, or a directory where a file is read, is left to the command, which knows what else
// the word may be (FILE|BUNDLE: a bundle's name).
func checkSpecialInputs(c *cli.Context, name string) error {
	for _, in := range pathInputs(name, c.Command) {
		for _, v := range in.values(c) {
			if err := inputfile.CheckSpecial(v, in.expect); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
		}
	}
	return nil
}

// maxSecretFile bounds a secret or key file read whole (serve api and serve token's
// --jwt-secret-file, --jwt-public-key, --jwt-private-key): a key is a few hundred bytes; the
// limit is attest's for the keys it reads.
var maxSecretFile = inputfile.Limit{Name: "MaxSecretFile", Bytes: 64 << 10}

// readSecretFile reads a secret or key file under the input policy: a regular file (a named
// pipe would block, /dev/zero never end), within maxSecretFile, reads ending with the command.
func readSecretFile(c *cli.Context, path string) ([]byte, error) {
	return inputfile.ReadFile(c.Context, path, maxSecretFile)
}
