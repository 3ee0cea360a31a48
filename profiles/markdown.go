package profiles

import (
	"regexp"
	"strings"
)

// mdDoc is a Markdown document of a profile, read line by line. Profile documents are prose
// with a few regular shapes (numbered headings, pipe tables, "**Key:** value" lines, fenced
// YAML blocks); this reader finds those shapes and remembers their line numbers, nothing more.
type mdDoc struct {
	file  string
	lines []string // lines[i] is line i+1, without its line ending
	// fenced[i] is true when line i+1 is inside (or delimits) a fenced code block.
	fenced   []bool
	sections []mdSection
}

// mdSection is a heading and the lines up to the next heading of the same or a higher level.
type mdSection struct {
	level int
	// number is the section number ("5.1", "3") or "" for an unnumbered heading.
	number string
	title  string
	line   int
	// body holds the 1-based line range (start, end] of the section's content.
	start, end int
}

var (
	mdHeading       = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdNumberedTitle = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s+(.*)$`)
	mdBoldField     = regexp.MustCompile(`^(?:[-*]\s+)?\*\*([^*]+?):\*\*\s*(.*)$`)
)

func parseMarkdown(file string, data []byte) *mdDoc {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	d := &mdDoc{file: file, lines: strings.Split(text, "\n")}
	d.fenced = make([]bool, len(d.lines))
	inFence := false
	for i, l := range d.lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			d.fenced[i] = true
			inFence = !inFence
			continue
		}
		d.fenced[i] = inFence
	}
	d.sections = d.findSections()
	return d
}

func (d *mdDoc) findSections() []mdSection {
	var out []mdSection
	for i, l := range d.lines {
		if d.fenced[i] || !strings.HasPrefix(l, "#") {
			continue
		}
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := mdSection{level: len(m[1]), title: m[2], line: i + 1, start: i + 1, end: len(d.lines)}
		if n := mdNumberedTitle.FindStringSubmatch(s.title); n != nil {
			s.number, s.title = n[1], n[2]
		}
		out = append(out, s)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].level <= out[i].level {
				out[i].end = out[j].line - 1
				break
			}
		}
	}
	return out
}

// section returns the first section whose title matches, case-insensitively, ignoring its
// number.
func (d *mdDoc) section(title string) (mdSection, bool) {
	for _, s := range d.sections {
		if strings.EqualFold(s.title, title) {
			return s, true
		}
	}
	return mdSection{}, false
}

// children returns the sections one level below s, in order.
func (d *mdDoc) children(s mdSection) []mdSection {
	var out []mdSection
	for _, c := range d.sections {
		if c.line > s.start && c.line <= s.end && c.level == s.level+1 {
			out = append(out, c)
		}
	}
	return out
}

// whole is a pseudo-section covering the document.
func (d *mdDoc) whole() mdSection {
	return mdSection{start: 0, end: len(d.lines)}
}

// ownEnd is where a section's own text stops: at its first sub-heading.
func (d *mdDoc) ownEnd(s mdSection) int {
	for _, c := range d.sections {
		if c.line > s.start && c.line <= s.end {
			return c.line - 1
		}
	}
	return s.end
}

// text returns line n (1-based).
func (d *mdDoc) text(n int) string { return d.lines[n-1] }

// mdField is a "**Key:** value" line.
type mdField struct {
	key, value string
	line       int
}

// fields returns the "**Key:** value" lines of a line range, outside code blocks.
func (d *mdDoc) fields(start, end int) []mdField {
	var out []mdField
	for n := start + 1; n <= end; n++ {
		if d.fenced[n-1] {
			continue
		}
		if m := mdBoldField.FindStringSubmatch(strings.TrimSpace(d.text(n))); m != nil {
			out = append(out, mdField{key: m[1], value: strings.TrimSpace(m[2]), line: n})
		}
	}
	return out
}

// field returns the first "**key:** value" line of a range.
func (d *mdDoc) field(start, end int, key string) (mdField, bool) {
	for _, f := range d.fields(start, end) {
		if strings.EqualFold(f.key, key) {
			return f, true
		}
	}
	return mdField{}, false
}

// mdTable is a pipe table. Cells are trimmed; rows with another cell count than the header
// are kept as they are, for the caller to report.
type mdTable struct {
	line   int
	header []string
	rows   []mdRow
}

type mdRow struct {
	line  int
	cells []string
}

// tables returns the pipe tables of a line range.
func (d *mdDoc) tables(start, end int) []mdTable {
	var out []mdTable
	for n := start + 1; n <= end; n++ {
		if d.fenced[n-1] || !isTableLine(d.text(n)) {
			continue
		}
		t := mdTable{line: n, header: splitTableRow(d.text(n))}
		n++
		if n <= end && isTableLine(d.text(n)) && isDelimiterRow(d.text(n)) {
			n++
		}
		for ; n <= end && isTableLine(d.text(n)); n++ {
			t.rows = append(t.rows, mdRow{line: n, cells: splitTableRow(d.text(n))})
		}
		out = append(out, t)
	}
	return out
}

func isTableLine(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "|") }

func isDelimiterRow(l string) bool {
	return strings.Trim(strings.TrimSpace(l), "|-: ") == ""
}

// splitTableRow splits "| a | b |" into cells, honouring "\|" escapes.
func splitTableRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// column finds a header cell by name, case-insensitively; -1 if absent.
func (t *mdTable) column(name string) int {
	for i, h := range t.header {
		if strings.EqualFold(plain(h), name) {
			return i
		}
	}
	return -1
}

// cell returns a row's cell at column i, or "".
func (r mdRow) cell(i int) string {
	if i < 0 || i >= len(r.cells) {
		return ""
	}
	return r.cells[i]
}

// mdBlock is the content of a fenced code block.
type mdBlock struct {
	lang string
	// line is the line of the first content line.
	line int
	text string
}

// inPlace returns the block's text preceded by blank lines, so that a YAML parser reports the
// lines of the enclosing file.
func (b mdBlock) inPlace() []byte {
	return []byte(strings.Repeat("\n", b.line-1) + b.text)
}

// codeBlocks returns the fenced code blocks of a line range.
func (d *mdDoc) codeBlocks(start, end int) []mdBlock {
	var out []mdBlock
	for n := start + 1; n <= end; n++ {
		l := strings.TrimSpace(d.text(n))
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := mdBlock{lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), line: n + 1}
		var body []string
		for n++; n <= len(d.lines) && !strings.HasPrefix(strings.TrimSpace(d.text(n)), "```"); n++ {
			body = append(body, d.text(n))
		}
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// mdItem is a bullet list item.
type mdItem struct {
	text string
	line int
}

// bullets returns the "- item" lines of a range, outside code blocks.
func (d *mdDoc) bullets(start, end int) []mdItem {
	var out []mdItem
	for n := start + 1; n <= end; n++ {
		if d.fenced[n-1] {
			continue
		}
		l := strings.TrimSpace(d.text(n))
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") {
			out = append(out, mdItem{text: strings.TrimSpace(l[2:]), line: n})
		}
	}
	return out
}

// paragraphs returns the prose paragraphs of a range: runs of non-blank lines that are not
// headings, tables, bullets or code, joined with spaces.
func (d *mdDoc) paragraphs(start, end int) []mdItem {
	var out []mdItem
	var cur []string
	first := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, mdItem{text: strings.Join(cur, " "), line: first})
			cur = nil
		}
	}
	for n := start + 1; n <= end; n++ {
		l := strings.TrimSpace(d.text(n))
		if l == "" || d.fenced[n-1] || mdHeading.MatchString(l) || isTableLine(l) ||
			strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || l == "---" {
			flush()
			continue
		}
		if len(cur) == 0 {
			first = n
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// plain strips Markdown emphasis and code marks from a cell or phrase.
func plain(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "`", "")
	s = strings.Trim(s, "*_ ")
	return strings.TrimSpace(s)
}

// backticked returns the `code` spans of s, in order.
func backticked(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+1+j+1:]
	}
}
