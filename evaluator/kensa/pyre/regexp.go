package pyre

import "fmt"

// DefaultBudget is the step budget of MatchString: a hundred million matcher steps (a step
// is one node or one character tried). That is far more than a pattern of a scenario needs on
// an agent's output (`.*refund` that finds nothing in 7,000 characters of one line takes 50
// million: such a search is quadratic in sre too), and few enough that a catastrophic pattern
// ends here within seconds where sre would run for hours.
const DefaultBudget = 100_000_000

// Regexp is a compiled Python regular expression.
type Regexp struct {
	root   node
	groups int
}

// Compile is re.compile(pattern) with no flags. A pattern Python refuses returns an *Error
// with Python's message; ErrNotReError when Python raises something else; ErrUnsupported for
// what cannot be read as Python would (a \N{name} not found, perhaps an alias).
func Compile(pattern string) (re *Regexp, err error) {
	src := []rune(pattern)
	defer func() {
		switch p := recover().(type) {
		case nil:
		case *Error:
			p.pattern = src
			re, err = nil, p
		case notReError:
			re, err = nil, fmt.Errorf("%w: %s", ErrNotReError, p.msg)
		case unsupported:
			re, err = nil, fmt.Errorf("%w: %s", ErrUnsupported, p.what)
		default:
			panic(p)
		}
	}()
	st := &state{groupdict: map[string]int{}, groupWidths: [][2]int64{{}}, groupClosed: []bool{true},
		lookbehindGroups: -1, grouprefPos: map[int]int{}}
	tok := newTokenizer(src)
	p := parseSub(tok, st, false, 0)
	if st.flags&flagASCII != 0 && st.flags&flagUnicode != 0 {
		panic(notReError{"ValueError: ASCII and UNICODE flags are incompatible"})
	}
	if tok.ok {
		tok.fail("unbalanced parenthesis", 0)
	}
	for _, g := range st.grouprefOrder {
		if g >= st.groups() {
			panic(&Error{Msg: fmt.Sprintf("invalid group reference %d", g), Pos: st.grouprefPos[g]})
		}
	}
	c := &compiler{st: st}
	return &Regexp{root: c.sub(p, st.flags), groups: st.groups() - 1}, nil
}

// Search is re.search: the leftmost match of the pattern in s, its span in code points. A
// search that would take more than budget steps returns ErrStepBudget: the count of steps is
// the same on every machine, so is the outcome.
func (re *Regexp) Search(s string, budget int) (start, end int, found bool, err error) {
	m := &machine{in: []rune(s), marks: make([]int, 2*re.groups), budget: budget}
	defer func() {
		if p := recover(); p != nil {
			spent, ok := p.(budgetSpent)
			if !ok {
				panic(p)
			}
			start, end, found = 0, 0, false
			err = fmt.Errorf("%w (%s)", ErrStepBudget, budgetWords(spent.what, budget))
		}
	}()
	for start = 0; start <= len(m.in); start++ {
		m.step()
		for i := range m.marks {
			m.marks[i] = -1
		}
		end = -1
		if re.root.match(m, start, func(p int) bool {
			end = p
			return true
		}) {
			return start, end, true, nil
		}
	}
	return 0, 0, false, nil
}

func budgetWords(what string, budget int) string {
	if what == "depth" {
		return fmt.Sprintf("more than %d nested repetitions", maxDepth)
	}
	return fmt.Sprintf("more than %d matcher steps", budget)
}

// MatchString is bool(re.search(pattern, s)) within DefaultBudget.
func (re *Regexp) MatchString(s string) (bool, error) {
	_, _, found, err := re.Search(s, DefaultBudget)
	return found, err
}
