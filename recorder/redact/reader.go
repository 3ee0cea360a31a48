package redact

import "io"

// readSize is how much the streaming reader asks of its source at a time.
const readSize = 256 << 10

// maxPending bounds the bytes the streaming reader keeps, beyond its held-back tail, while a
// span of overlapping occurrences keeps growing. Only input in which occurrences of the values
// overlap each other for more than this many bytes reaches it; the span is then replaced as far as it was read,
// and an occurrence straddling that point is not recognised.
const maxPending = 1 << 20

// Reader returns a reader of src's bytes with every value replaced. A value split between two
// reads of src is still replaced: the reader holds back the last bytes of what it read until
// it knows whether they begin an occurrence. Without values it returns src itself.
func (r *Redactor) Reader(src io.Reader) io.Reader {
	if len(r.secrets) == 0 {
		return src
	}
	return &reader{r: r, src: src}
}

type reader struct {
	r   *Redactor
	src io.Reader
	in  []byte       // bytes read from src and not yet scanned
	out []byte       // redacted bytes not yet returned
	off int          // how much of out was returned
	err error        // the error src returned, io.EOF at its end
	occ []occurrence // scratch space of scan
}

func (rd *reader) Read(p []byte) (int, error) {
	for rd.off == len(rd.out) {
		if rd.err != nil {
			return 0, rd.err
		}
		rd.fill()
	}
	n := copy(p, rd.out[rd.off:])
	rd.off += n
	return n, nil
}

// fill reads a block from src and scans what can be decided.
func (rd *reader) fill() {
	if cap(rd.in)-len(rd.in) < readSize {
		grown := make([]byte, len(rd.in), len(rd.in)+readSize)
		copy(grown, rd.in)
		rd.in = grown
	}
	// Read a full block, not whatever one Read returns: every fill rescans the bytes held
	// back, so tiny reads would make the scan quadratic.
	n, err := io.ReadFull(rd.src, rd.in[len(rd.in):len(rd.in)+readSize])
	rd.in = rd.in[:len(rd.in)+n]
	switch err {
	case nil:
	case io.ErrUnexpectedEOF:
		rd.err = io.EOF
	default:
		rd.err = err
	}
	final := err != nil || len(rd.in) > maxPending+rd.r.holdback()
	out, used, occ := rd.r.scan(rd.out[:0], rd.in, final, rd.occ)
	rd.occ = occ
	rd.out, rd.off = out, 0
	rest := copy(rd.in, rd.in[used:])
	rd.in = rd.in[:rest]
}
