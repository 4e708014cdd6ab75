package app

import "strings"

// block is one part of a chat message: a section of prose (Markdown), a
// fenced code block or a display math block. A reply that streams only
// grows at its end, so the blocks before its last stay the same and keep
// what was drawn for them.
type block struct {
	// Code says the block is a fenced code block; Lang is its info
	// string's first word ("go", "python"), "" when none.
	Code bool
	Lang string
	// Math says the block is display math ($$ ... $$ or \[ ... \] on
	// lines of their own); Text is its TeX.
	Math bool
	// Text is the prose, or the code without its fences (and without the
	// fence's indentation).
	Text string
	// Open says a code block's closing fence has not come (yet, while a
	// reply streams): the code runs to the end of the message.
	Open bool
}

// splitMessage splits a message into prose sections, fenced code blocks
// (``` or ~~~, three or more, indented by any amount, with an optional
// language) and display math blocks. A fence that is never closed makes
// a code block that runs to the end, as a streaming reply has until its
// closing fence arrives. Prose splits into sections at blank lines before
// a line that starts a new paragraph (not a list item, not indented), so
// that a streaming reply re-renders only its last section. Sections that
// hold only blank lines are dropped.
func splitMessage(s string) []block {
	var out []block
	var prose []string
	flushProse := func() {
		text := strings.Trim(strings.Join(prose, "\n"), "\n")
		prose = prose[:0]
		if strings.TrimSpace(text) != "" {
			out = append(out, block{Text: text})
		}
	}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if tex, end, ok := mathBlock(lines, i); ok {
			flushProse()
			out = append(out, block{Math: true, Text: tex})
			i = end
			continue
		}
		indent, char, n, info, ok := openingFence(lines[i])
		if !ok {
			if len(prose) > 0 && strings.TrimSpace(prose[len(prose)-1]) == "" && startsSection(lines[i]) {
				flushProse()
			}
			prose = append(prose, lines[i])
			continue
		}
		flushProse()
		b := block{Code: true, Lang: firstWord(info), Open: true}
		var code []string
		for i++; i < len(lines); i++ {
			if closingFence(lines[i], char, n) {
				b.Open = false
				break
			}
			code = append(code, dedent(lines[i], indent))
		}
		b.Text = strings.Join(code, "\n")
		out = append(out, b)
	}
	flushProse()
	return out
}

// startsSection reports whether line, after a blank line, starts a new
// section of prose: it is not indented (a list item's continuation) and
// not a list item (a loose list stays one list).
func startsSection(line string) bool {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false
	}
	if len(line) >= 2 && strings.ContainsRune("-*+", rune(line[0])) && line[1] == ' ' {
		return line == "- - -" || line == "* * *" // a rule, not an item
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return !(i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')'))
}

// mathBlock reports whether lines[i] opens display math ($$ or \[ at the
// start of a line): its TeX and the index of its last line. Math that is
// not closed runs to the end (a streaming reply).
func mathBlock(lines []string, i int) (tex string, end int, ok bool) {
	first := strings.TrimSpace(lines[i])
	var open, closing string
	switch {
	case strings.HasPrefix(first, "$$"):
		open, closing = "$$", "$$"
	case strings.HasPrefix(first, `\[`):
		open, closing = `\[`, `\]`
	default:
		return "", 0, false
	}
	rest := first[len(open):]
	if j := strings.Index(rest, closing); j >= 0 {
		if strings.TrimSpace(rest[j+len(closing):]) != "" {
			return "", 0, false // math inside a line of text
		}
		return strings.TrimSpace(rest[:j]), i, true
	}
	parts := []string{rest}
	for end = i + 1; end < len(lines); end++ {
		if j := strings.Index(lines[end], closing); j >= 0 {
			parts = append(parts, lines[end][:j])
			return strings.TrimSpace(strings.Join(parts, "\n")), end, true
		}
		parts = append(parts, lines[end])
	}
	return strings.TrimSpace(strings.Join(parts, "\n")), len(lines) - 1, true
}

// openingFence parses a line that opens a fenced code block: its
// indentation, fence character, fence length and info string.
func openingFence(line string) (indent int, char byte, n int, info string, ok bool) {
	rest := strings.TrimLeft(line, " \t")
	indent = len(line) - len(rest)
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return 0, 0, 0, "", false
	}
	char = rest[0]
	for n < len(rest) && rest[n] == char {
		n++
	}
	if n < 3 {
		return 0, 0, 0, "", false
	}
	info = strings.TrimSpace(rest[n:])
	if char == '`' && strings.Contains(info, "`") {
		return 0, 0, 0, "", false // inline code such as ```x``` on one line
	}
	return indent, char, n, info, true
}

// closingFence reports whether line closes a block opened by n chars.
func closingFence(line string, char byte, n int) bool {
	rest := strings.TrimSpace(line)
	if len(rest) < n {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] != char {
			return false
		}
	}
	return true
}

// dedent removes up to n leading spaces or tabs from line.
func dedent(line string, n int) string {
	i := 0
	for i < n && i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[i:]
}

// firstWord returns the first space-separated word of s.
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
