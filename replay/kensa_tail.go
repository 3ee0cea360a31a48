package replay

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// tailWindow is how many bytes of a captured stream a tail keeps: every character is at most 4
// bytes, and decoding from a cut inside a character agrees with decoding the whole text again
// within 4 bytes, so the last n characters of a text lie in its last 4n+8 bytes.
func tailWindow(n int) int { return 4*n + 8 }

// tail reads a captured stream and returns what Kensa keeps of it: fkensa.RunTail(text, n),
// the stripped text's last n characters. Only a window of its end is held, whatever the
// stream's size (an agent may print 64 MiB on each stream, and a run's evidence is loaded
// with many others): the stream is read once, keeping the last window of bytes up to its last
// character that is not whitespace, and the last window of the whitespace after it.
func (l *kensaLoader) tail(o *store.Output, n int) (string, error) {
	if o == nil {
		return "", nil
	}
	if o.Blob.Size <= int64(tailWindow(n)) {
		b, err := l.sharedBlob(o.Blob)
		return fkensa.RunTail(string(b), n), err
	}
	rc, _, err := l.r.s.OpenBlob(l.ctx, o.Blob.Digest)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	t := newTailer(n)
	if _, err := io.Copy(t, rc); err != nil {
		return "", fmt.Errorf("blob %s: %w", o.Blob.Digest, err)
	}
	return t.result(), nil
}

// tailer computes fkensa.RunTail of what is written to it, holding at most a window of bytes.
type tailer struct {
	n, window int
	// content holds the last window bytes up to the last character that is not whitespace;
	// cut is set once bytes before them were dropped.
	content []byte
	cut     bool
	// space holds the last window bytes of the whitespace after it (spaceCut: more came).
	space    []byte
	spaceCut bool
	// carry is an incomplete character at the end of the last write.
	carry []byte
}

func newTailer(n int) *tailer { return &tailer{n: n, window: tailWindow(n)} }

func (t *tailer) Write(p []byte) (int, error) {
	b := append(t.carry, p...)
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 && !utf8.FullRune(b[i:]) {
			break // the rest of a character may come with the next write
		}
		t.add(b[i:i+size], isStripped(r))
		i += size
	}
	t.carry = append(t.carry[:0:0], b[i:]...)
	return len(p), nil
}

// add takes one character (or one byte that is not one), whitespace or not.
func (t *tailer) add(c []byte, space bool) {
	if space {
		t.space, t.spaceCut = keepLast(append(t.space, c...), t.window, t.spaceCut)
		return
	}
	switch {
	case len(t.content) == 0 && !t.cut:
		// Whitespace at the text's start, which stripping removes: not kept.
	case t.spaceCut:
		// The whitespace before c is longer than the window: what came before it is dropped.
		t.cut = true
		t.content = append(t.content[:0], t.space...)
	default:
		t.content = append(t.content, t.space...)
	}
	t.space, t.spaceCut = t.space[:0], false
	t.content, t.cut = keepLast(append(t.content, c...), t.window, t.cut)
}

// keepLast keeps the last window bytes of b, saying whether any were dropped (or were
// before).
func keepLast(b []byte, window int, cut bool) ([]byte, bool) {
	if len(b) <= 2*window {
		return b, cut
	}
	return append(b[:0], b[len(b)-window:]...), true
}

func (t *tailer) result() string {
	// An incomplete character at the very end is invalid bytes, each one character.
	for _, c := range t.carry {
		t.add([]byte{c}, false)
	}
	t.carry = nil
	if !t.cut {
		return fkensa.RunTail(string(t.content), t.n)
	}
	// Bytes were dropped before content, which ends with the text's last character that is
	// not whitespace and holds more than n characters: the last n are the answer, whatever
	// stripping the text's start would remove.
	r := []rune(string(t.content[max(len(t.content)-t.window, 0):]))
	return string(r[max(len(r)-t.n, 0):])
}

// isStripped is what Python's str.strip removes (fkensa.RunTail).
func isStripped(r rune) bool { return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F }
