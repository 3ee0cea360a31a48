package recorder

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// streamedBody is a body of a recorded exchange that is too large to hold in memory: inspect
// and open each return its bytes after the hooks, inspect to choose between text and base64,
// open to write it.
type streamedBody struct {
	msg           *exchangeMessage
	size          int64 // before the hooks; 0 leaves the body out, as for an empty body
	inspect, open func() io.Reader
}

// bodyPlaceholders stand in the encoded document for the bodies, which are streamed in their
// place. They cannot occur in it otherwise: NUL is escaped everywhere in canonical JSON, and
// "\u0000" between quotes can only come from a string beginning with NUL, which no method,
// target, header value or error has.
var bodyPlaceholders = [...]string{"\x00oasis-replay request body\x00", "\x00oasis-replay response body\x00"}

// exchangeReader returns the canonical JSON of ex (exactly store.Marshal's bytes) with each
// body streamed in: as text when the hooked body is valid UTF-8, in standard base64
// otherwise. Memory stays bounded whatever the bodies' sizes.
func exchangeReader(ex *exchangeDoc, bodies []streamedBody) (io.Reader, error) {
	if len(bodies) > len(bodyPlaceholders) {
		return nil, fmt.Errorf("recorder: %d bodies in one exchange", len(bodies))
	}
	type splice struct {
		placeholder string
		open        func() io.Reader
	}
	var splices []splice
	for i, b := range bodies {
		b.msg.Body, b.msg.BodyBase64 = "", ""
		if b.size == 0 {
			continue
		}
		length, text, err := inspectBody(b.inspect())
		switch {
		case err != nil:
			return nil, err
		case length == 0: // the hooks removed everything: as for an empty body
		case text:
			b.msg.Body = bodyPlaceholders[i]
			splices = append(splices, splice{bodyPlaceholders[i], func() io.Reader { return escaping(b.open()) }})
		default:
			b.msg.BodyBase64 = bodyPlaceholders[i]
			splices = append(splices, splice{bodyPlaceholders[i], func() io.Reader { return base64ing(b.open()) }})
		}
	}
	enc, err := store.Marshal(ex)
	if err != nil {
		return nil, err
	}
	// The request sorts before the response ("request" < "response"), so the placeholders
	// come in the order of the splices.
	var parts []io.Reader
	rest := enc
	for _, sp := range splices {
		quoted := doc.AppendString(nil, sp.placeholder)
		k := bytes.Index(rest, quoted)
		if k < 0 {
			return nil, fmt.Errorf("recorder: exchange body placeholder missing from the encoded exchange")
		}
		parts = append(parts, bytes.NewReader(rest[:k+1]), sp.open())
		rest = rest[k+len(quoted)-1:] // from the closing quote on
	}
	parts = append(parts, bytes.NewReader(rest))
	return io.MultiReader(parts...), nil
}

// inspectBody reads a hooked body once: its length, and whether it is valid UTF-8.
func inspectBody(r io.Reader) (int64, bool, error) {
	buf := make([]byte, utf8.UTFMax+64<<10)
	carry := 0 // bytes of an incomplete rune kept at the front of buf
	var n int64
	valid := true
	for {
		k, err := r.Read(buf[carry:])
		n += int64(k)
		data := buf[:carry+k]
		keep := incompleteRune(data)
		if valid && !utf8.Valid(data[:len(data)-keep]) {
			valid = false
		}
		carry = copy(buf, data[len(data)-keep:])
		if err == io.EOF {
			return n, valid && carry == 0, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
}

// incompleteRune is the length of the beginning of a rune at the end of b, which the next
// bytes may complete.
func incompleteRune(b []byte) int {
	for back := 1; back < utf8.UTFMax && back <= len(b); back++ {
		if utf8.RuneStart(b[len(b)-back]) {
			if utf8.FullRune(b[len(b)-back:]) {
				return 0
			}
			return back
		}
	}
	return 0
}

// encodingReader encodes its source block by block: encode appends a block's encoding to dst.
// Blocks are 48 KiB (a multiple of 3) except the last, so base64 pads only at the end, as
// base64.StdEncoding.EncodeToString would the whole; the JSON escaping depends on single bytes
// only.
type encodingReader struct {
	src    io.Reader
	encode func(dst, src []byte) []byte
	in     []byte
	out    []byte
	off    int
	err    error
}

func escaping(src io.Reader) io.Reader {
	return &encodingReader{src: src, encode: doc.AppendStringContent}
}

func base64ing(src io.Reader) io.Reader {
	return &encodingReader{src: src, encode: base64.StdEncoding.AppendEncode}
}

func (e *encodingReader) Read(p []byte) (int, error) {
	for e.off == len(e.out) {
		if e.err != nil {
			return 0, e.err
		}
		if e.in == nil {
			e.in = make([]byte, 48<<10)
		}
		n, err := io.ReadFull(e.src, e.in)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		e.out, e.off, e.err = e.encode(e.out[:0], e.in[:n]), 0, err
	}
	n := copy(p, e.out[e.off:])
	e.off += n
	return n, nil
}
