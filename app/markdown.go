package app

import "strings"

// block is one part of a chat message: prose (Markdown) or a fenced code
// block.
type block struct {
	// Code says the block is a fenced code block; Lang is its info
	// string's first word ("go", "python"), "" when none.
	Code bool
	Lang string
	// Text is the prose, or the code without its fences (and without the
	// fence's indentation).
	Text string
	// Open says a code block's closing fence has not come (yet, while a
	// reply streams): the code runs to the end of the message.
	Open bool
}

// splitMessage splits a message into prose and fenced code blocks
// (``` or ~~~, three or more, indented by any amount, with an optional
// language). A fence that is never closed makes a code block that runs to
// the end, as a streaming reply has until its closing fence arrives.
// Prose blocks that hold only blank lines are dropped.
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
		indent, char, n, info, ok := openingFence(lines[i])
		if !ok {
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
