package pyre

// The matcher is a backtracking matcher in continuation-passing style: a node matches at pos
// and calls k with each position where it could end, in sre's order of preference, until k
// accepts. The order, the repeats' protection against empty iterations and the groups' marks
// are those of Modules/_sre/sre_lib.h (SRE(match)).

type cont func(pos int) bool

type node interface {
	match(m *machine, pos int, k cont) bool
}

// machine is one search: the text, the group marks (two per group, -1 unset) and the step
// count.
type machine struct {
	in     []rune
	marks  []int
	steps  int
	budget int
	depth  int
}

// maxDepth bounds the nesting of repeat iterations of a body wider than one character (each
// is a Go call frame here, where sre keeps a heap stack): beyond it the outcome cannot be
// re-derived, like a spent step budget.
const maxDepth = 50_000

type budgetSpent struct{ what string }

func (m *machine) step() {
	m.steps++
	if m.steps > m.budget {
		panic(budgetSpent{"steps"})
	}
}

func (m *machine) save() []int { return append([]int(nil), m.marks...) }

func (m *machine) restore(s []int) { copy(m.marks, s) }

// groupSpan is the span of a group, ok false when it has not matched (sre: a mark unset, or
// the end before the start).
func (m *machine) groupSpan(mark int) (start, end int, ok bool) {
	start, end = m.marks[mark], m.marks[mark+1]
	return start, end, start >= 0 && end >= 0 && end >= start
}

type seqNode []node

func (s seqNode) match(m *machine, pos int, k cont) bool { return s.from(m, 0, pos, k) }

func (s seqNode) from(m *machine, i, pos int, k cont) bool {
	if i == len(s) {
		return k(pos)
	}
	next := func(p int) bool { return s.from(m, i+1, p, k) }
	if r, ok := s[i].(charRepeatNode); ok && i+1 < len(s) {
		if c, ok := s[i+1].(charNode); ok {
			// What follows is one character: a position where it cannot match is not
			// offered to it (sre's REPEAT_ONE does the same for a literal).
			return r.matchBefore(m, pos, c.test, next)
		}
	}
	return s[i].match(m, pos, next)
}

type branchNode []node

func (b branchNode) match(m *machine, pos int, k cont) bool {
	for _, alt := range b {
		m.step()
		if alt.match(m, pos, k) {
			return true
		}
	}
	return false
}

// charNode matches one character.
type charNode struct{ test charTest }

func (c charNode) match(m *machine, pos int, k cont) bool {
	m.step()
	return pos < len(m.in) && c.test.matches(m.in[pos]) && k(pos+1)
}

// groupNode is a capturing group: MARK at its start and at its end.
type groupNode struct {
	mark int
	body node
}

func (g groupNode) match(m *machine, pos int, k cont) bool {
	m.step()
	oldStart := m.marks[g.mark]
	m.marks[g.mark] = pos
	ok := g.body.match(m, pos, func(p int) bool {
		oldEnd := m.marks[g.mark+1]
		m.marks[g.mark+1] = p
		if k(p) {
			return true
		}
		m.marks[g.mark+1] = oldEnd
		return false
	})
	if !ok {
		m.marks[g.mark] = oldStart
	}
	return ok
}

type atNode struct {
	kind      atKind
	multiline bool
	ascii     bool
}

func (a atNode) match(m *machine, pos int, k cont) bool {
	m.step()
	return a.at(m.in, pos) && k(pos)
}

// at is SRE(at).
func (a atNode) at(in []rune, pos int) bool {
	n := len(in)
	switch a.kind {
	case atBeginning:
		return pos == 0 || a.multiline && in[pos-1] == '\n'
	case atBeginningString:
		return pos == 0
	case atEnd:
		if a.multiline {
			return pos == n || in[pos] == '\n'
		}
		return pos == n || pos+1 == n && in[pos] == '\n'
	case atEndString:
		return pos == n
	case atBoundary, atNonBoundary:
		if n == 0 {
			return false // sre: no boundary, and no non-boundary, in an empty string
		}
		that := pos > 0 && isWord(in[pos-1], a.ascii)
		this := pos < n && isWord(in[pos], a.ascii)
		return (this != that) == (a.kind == atBoundary)
	}
	return false
}

// charRepeatNode is a repeat of one character (REPEAT_ONE, MIN_REPEAT_ONE,
// POSSESSIVE_REPEAT_ONE): no iteration can be empty.
type charRepeatNode struct {
	test     charTest
	min, max int
	rep      repKind
}

func (r charRepeatNode) match(m *machine, pos int, k cont) bool {
	return r.matchBefore(m, pos, nil, k)
}

// matchBefore is match, where next, when not nil, is a test the character after the repeat
// must pass for k to be tried.
func (r charRepeatNode) matchBefore(m *machine, pos int, next charTest, k cont) bool {
	m.step()
	k0 := k
	if next != nil {
		k = func(p int) bool { return p < len(m.in) && next.matches(m.in[p]) && k0(p) }
	}
	avail := len(m.in) - pos
	if r.rep == lazy {
		n := 0
		for ; n < r.min; n++ {
			if n >= avail || !r.test.matches(m.in[pos+n]) {
				return false
			}
			m.step()
		}
		for {
			if k(pos + n) {
				return true
			}
			if n >= r.max || n >= avail || !r.test.matches(m.in[pos+n]) {
				return false
			}
			m.step()
			n++
		}
	}
	n := 0
	for n < r.max && n < avail && r.test.matches(m.in[pos+n]) {
		m.step()
		n++
	}
	if n < r.min {
		return false
	}
	if r.rep == possessive {
		return k(pos + n)
	}
	for ; n >= r.min; n-- {
		m.step()
		if next != nil && (pos+n >= len(m.in) || !next.matches(m.in[pos+n])) {
			continue
		}
		if k0(pos + n) {
			return true
		}
	}
	return false
}

// repeatNode is REPEAT with MAX_UNTIL (greedy) or MIN_UNTIL (lazy), or POSSESSIVE_REPEAT.
type repeatNode struct {
	body     node
	min, max int
	rep      repKind
}

func (r *repeatNode) match(m *machine, pos int, k cont) bool {
	if r.rep == possessive {
		return r.possessive(m, pos, k)
	}
	return r.until(m, pos, 0, -1, k)
}

// until is the UNTIL operator after count iterations, the last of those begun with the
// protection against empty iterations having begun at lastPtr: another iteration is tried
// only if the one before consumed something.
func (r *repeatNode) until(m *machine, pos, count, lastPtr int, k cont) bool {
	m.step()
	if count < r.min {
		return r.iterate(m, pos, count, lastPtr, k)
	}
	more := count < r.max && pos != lastPtr
	if r.rep == greedy {
		return more && r.iterate(m, pos, count, pos, k) || k(pos)
	}
	return k(pos) || more && r.iterate(m, pos, count, pos, k)
}

func (r *repeatNode) iterate(m *machine, pos, count, lastPtr int, k cont) bool {
	m.depth++
	if m.depth > maxDepth {
		panic(budgetSpent{"depth"})
	}
	ok := r.body.match(m, pos, func(p int) bool { return r.until(m, p, count+1, lastPtr, k) })
	m.depth--
	return ok
}

// once matches the body once, its first way, and returns where it ended.
func once(m *machine, body node, pos int) (int, bool) {
	end := -1
	ok := body.match(m, pos, func(p int) bool {
		end = p
		return true
	})
	return end, ok
}

func (r *repeatNode) possessive(m *machine, pos int, k cont) bool {
	m.step()
	saved := m.save()
	p, count := pos, 0
	for ; count < r.min; count++ {
		end, ok := once(m, r.body, p)
		if !ok {
			m.restore(saved)
			return false
		}
		p = end
	}
	last := -1
	for count < r.max && p != last {
		last = p
		end, ok := once(m, r.body, p)
		if !ok {
			break
		}
		p = end
		count++
	}
	if k(p) {
		return true
	}
	m.restore(saved)
	return false
}

type atomicNode struct{ body node }

func (a atomicNode) match(m *machine, pos int, k cont) bool {
	m.step()
	saved := m.save()
	end, ok := once(m, a.body, pos)
	if !ok {
		return false
	}
	if k(end) {
		return true
	}
	m.restore(saved)
	return false
}

// assertNode is a lookahead, or a lookbehind of behind characters.
type assertNode struct {
	body   node
	negate bool
	behind int
}

func (a assertNode) match(m *machine, pos int, k cont) bool {
	m.step()
	at := pos - a.behind
	if at < 0 {
		return a.negate && k(pos)
	}
	saved := m.save()
	_, ok := once(m, a.body, at)
	if a.negate {
		m.restore(saved)
		return !ok && k(pos)
	}
	if !ok {
		return false
	}
	if k(pos) {
		return true
	}
	m.restore(saved)
	return false
}

type backrefNode struct {
	mark int
	fold foldMode
}

func (b backrefNode) match(m *machine, pos int, k cont) bool {
	m.step()
	start, end, ok := m.groupSpan(b.mark)
	if !ok || pos+end-start > len(m.in) {
		return false
	}
	for i := start; i < end; i++ {
		m.step()
		if b.fold.lower(m.in[i]) != b.fold.lower(m.in[pos+i-start]) {
			return false
		}
	}
	return k(pos + end - start)
}

// condNode is (?(group)yes|no).
type condNode struct {
	mark    int
	yes, no node
}

func (c condNode) match(m *machine, pos int, k cont) bool {
	m.step()
	if _, _, ok := m.groupSpan(c.mark); ok {
		return c.yes.match(m, pos, k)
	}
	if c.no == nil {
		return k(pos)
	}
	return c.no.match(m, pos, k)
}
