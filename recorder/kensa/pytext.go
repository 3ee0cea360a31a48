package kensa

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// pyUTF8Error is the text of the UnicodeDecodeError Python's strict UTF-8 decoder raises for
// data (Objects/stringlib/codecs.h, Objects/exceptions.c UnicodeDecodeError_str), "" when data
// decodes. Kensa's runner decodes the agent's output with subprocess.run(text=True), so such an
// error ends its run (runner._run_one records str(e) as the run's stderr). With cut set, data
// is a prefix of the output: an incomplete character at its end is not an error.
func pyUTF8Error(data []byte, cut bool) string {
	msg, _ := utf8Scan(data, 0, !cut)
	return msg
}

// pyUTF8ErrorOf is pyUTF8Error over what r reads, a buffer at a time (an agent's output may be
// as long as kensa run keeps).
func pyUTF8ErrorOf(r io.Reader, cut bool) (string, error) {
	buf := make([]byte, 0, 64<<10)
	offset := 0
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		final := err == io.EOF
		if err != nil && !final {
			return "", err
		}
		msg, done := utf8Scan(buf, offset, final && !cut)
		if msg != "" || final {
			return msg, nil
		}
		// Keep the incomplete character at the end for the next read.
		rest := copy(buf, buf[done:])
		buf, offset = buf[:rest], offset+done
	}
}

// utf8Scan checks data, whose first byte is at offset in the whole, and returns the decoder's
// error, or "" and how many bytes it checked: all of them, but for an incomplete character at
// the end when final is false (more may follow).
func utf8Scan(data []byte, offset int, final bool) (string, int) {
	for i := 0; i < len(data); {
		c := data[i]
		if c < 0x80 {
			i++
			continue
		}
		n, lo, hi := utf8Seq(c)
		if n == 0 {
			return decodeError(c, offset+i, offset+i+1, "invalid start byte"), i
		}
		for k := 1; k < n; k++ {
			if i+k >= len(data) {
				if !final {
					return "", i
				}
				return decodeError(c, offset+i, offset+len(data), "unexpected end of data"), i
			}
			b := data[i+k]
			if k == 1 && (b < lo || b > hi) || k > 1 && (b < 0x80 || b > 0xBF) {
				return decodeError(c, offset+i, offset+i+k, "invalid continuation byte"), i
			}
		}
		i += n
	}
	return "", len(data)
}

// utf8Seq gives the length of the sequence a lead byte starts (0 when it starts none) and the
// range its second byte must be in (RFC 3629: no overlong forms, surrogates or code points past
// U+10FFFF).
func utf8Seq(c byte) (n int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}

// decodeError is str() of a UnicodeDecodeError over the bytes start to end, the first of
// which is first.
func decodeError(first byte, start, end int, reason string) string {
	if end-start == 1 {
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", first, start, reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", start, end-1, reason)
}

// pyNewlines is the universal-newlines translation of text mode (subprocess
// Popen._translate_newlines): "\r\n" and then every other "\r" become "\n".
func pyNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pyIsSpace is Python's str.isspace for one character: Go's unicode.IsSpace and the four
// information separators U+001C–U+001F, which Python counts as whitespace.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F }

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pySplitLines is Python's str.splitlines(): the line boundaries are \n, \r, \r\n, \v, \f,
// \x1c, \x1d, \x1e, \x85, U+2028 and U+2029; no empty line after a final boundary.
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
		default:
			continue
		}
		if r == '\n' && i > 0 && s[i-1] == '\r' {
			start = i + 1
			continue
		}
		lines = append(lines, s[start:i])
		start = i + len(string(r))
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}
