package redact

import "slices"

// scan appends to dst the redacted form of buf's prefix and returns how many bytes of buf it
// consumed. Overlapping occurrences, of one value or of several, form one span, replaced by
// the markers of every value in it, in order of first occurrence, so no fragment of any value
// survives. Unless final, scan stops before any span that a later byte could still extend or
// any occurrence that could still be completed (the last holdback bytes); the caller passes
// those bytes again with more input. occ is scratch space for the occurrences, returned for
// the next call to reuse.
func (r *Redactor) scan(dst, buf []byte, final bool, occ []occurrence) ([]byte, int, []occurrence) {
	safe := len(buf)
	if !final {
		safe = max(len(buf)-r.holdback(), 0)
	}
	occ = r.m.find(buf, occ[:0])
	var counts []hitCount
	pos := 0
	for i := 0; i < len(occ); {
		start, end := occ[i].start, occ[i].end
		if start >= safe {
			break
		}
		j := i + 1
		for ; j < len(occ) && occ[j].start < end; j++ {
			end = max(end, occ[j].end)
		}
		if !final && end > safe {
			// A byte not read yet could extend this span: keep it for the next call.
			r.tally.add(counts)
			return append(dst, buf[pos:start]...), start, occ
		}
		dst = append(dst, buf[pos:start]...)
		dst, counts = r.appendMarkers(dst, occ[i:j], counts)
		pos, i = end, j
	}
	r.tally.add(counts)
	return append(dst, buf[pos:safe]...), safe, occ
}

// holdback is how many bytes at the end of a buffer scan leaves undecided until more input
// comes: the longest span of an occurrence, and the base64 edge before it.
func (r *Redactor) holdback() int { return r.m.maxSpan + lookbehind - 1 }

// appendMarkers writes the marker of each secret of a span once, in order of first
// occurrence, and counts the span once per secret, under the encoding of the secret's first
// occurrence in it.
func (r *Redactor) appendMarkers(dst []byte, span []occurrence, counts []hitCount) ([]byte, []hitCount) {
	var written []int // distinct secrets of the span: a handful at most
	for _, o := range span {
		t := &r.m.targets[o.target]
		if slices.Contains(written, t.secret) {
			continue
		}
		written = append(written, t.secret)
		dst = append(dst, r.secrets[t.secret].marker...)
		if r.tally != nil {
			counts = append(counts, hitCount{marker: r.secrets[t.secret].marker, encoding: encodingName(t.enc, o.escapes)})
		}
	}
	return dst, counts
}
