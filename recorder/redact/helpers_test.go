package redact

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// jsonEscape writes v as the inside of a JSON string, as encoders write it. html escapes <, >
// and & (and U+2028, U+2029) as encoding/json does; ascii escapes every non-ASCII rune (as
// surrogate pairs beyond the BMP) as Python's json module does.
func jsonEscape(v string, html, ascii bool) string {
	var b strings.Builder
	for _, c := range v {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20, html && (c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029):
			fmt.Fprintf(&b, `\u%04x`, c)
		case ascii && c > 0x7e && c != utf8.RuneError:
			if c > 0xffff {
				c -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
