package evalrun

import (
	"fmt"
	"strings"
)

// SplitCommand splits the text of --agent CMD into an argv the way a POSIX shell splits words,
// without anything else a shell does: no variable, tilde or command expansion, no globbing, no
// redirection, no pipes (docs/decisions.md, "Eval Library: --agent CMD"). Words are separated
// by unquoted blanks; inside single quotes every character is literal; inside double quotes a
// backslash escapes only '"', '\\', '$' and '`' and is literal before anything else; outside
// quotes a backslash makes the next character literal. `$HOME`, `*.py` and `|` are passed to the
// agent as written. An unterminated quote or a trailing backslash is an error.
func SplitCommand(cmd string) ([]string, error) {
	var (
		argv    []string
		word    strings.Builder
		inWord  bool
		quote   byte // 0, '\'' or '"'
		escaped bool
	)
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case escaped:
			word.WriteByte(c)
			escaped = false
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				word.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0:
				i++
				word.WriteByte(cmd[i])
			default:
				word.WriteByte(c)
			}
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				argv = append(argv, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\\':
			escaped, inWord = true, true
		case c == '\'' || c == '"':
			quote, inWord = c, true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%w: %q: unterminated %c quote", ErrAgent, cmd, quote)
	case escaped:
		return nil, fmt.Errorf("%w: %q: trailing backslash", ErrAgent, cmd)
	}
	if inWord {
		argv = append(argv, word.String())
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: empty agent command", ErrAgent)
	}
	return argv, nil
}
