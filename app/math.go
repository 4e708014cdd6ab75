package app

// LaTeX math in replies, drawn as formatted text: Greek letters and
// symbols become Unicode, sub- and superscripts Unicode where it has them,
// \frac{a}{b} a/b, \sqrt{x} √x. Unknown commands show verbatim.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// texSymbols maps LaTeX commands to the text they stand for.
var texSymbols = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
	"lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ",
	"varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
	"varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
	"Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"infty": "∞", "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "div": "÷", "ast": "∗",
	"star": "⋆", "circ": "∘", "bullet": "•", "oplus": "⊕", "otimes": "⊗",
	"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
	"equiv": "≡", "sim": "∼", "simeq": "≃", "cong": "≅", "propto": "∝", "ll": "≪", "gg": "≫",
	"to": "→", "rightarrow": "→", "leftarrow": "←", "gets": "←", "leftrightarrow": "↔",
	"Rightarrow": "⇒", "Leftarrow": "⇐", "Leftrightarrow": "⇔", "implies": "⟹", "iff": "⟺",
	"mapsto": "↦", "uparrow": "↑", "downarrow": "↓", "longrightarrow": "⟶",
	"in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂", "subseteq": "⊆", "supset": "⊃",
	"supseteq": "⊇", "cup": "∪", "cap": "∩", "setminus": "∖", "emptyset": "∅", "varnothing": "∅",
	"forall": "∀", "exists": "∃", "nexists": "∄", "neg": "¬", "lnot": "¬", "land": "∧",
	"wedge": "∧", "lor": "∨", "vee": "∨", "partial": "∂", "nabla": "∇",
	"sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬", "iiint": "∭", "oint": "∮",
	"bigcup": "⋃", "bigcap": "⋂",
	"ldots": "…", "dots": "…", "cdots": "⋯", "vdots": "⋮", "ddots": "⋱",
	"langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
	"lbrace": "{", "rbrace": "}", "vert": "|", "Vert": "‖", "mid": "|", "|": "‖",
	"prime": "′", "hbar": "ℏ", "ell": "ℓ", "Re": "ℜ", "Im": "ℑ", "aleph": "ℵ", "degree": "°",
	"angle": "∠", "perp": "⊥", "parallel": "∥", "top": "⊤", "bot": "⊥", "therefore": "∴",
	"because": "∵", "checkmark": "✓",
	"quad": "  ", "qquad": "    ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ",
	"{": "{", "}": "}", "%": "%", "$": "$", "&": "&", "_": "_", "#": "#",
	"lim": "lim", "log": "log", "ln": "ln", "exp": "exp", "sin": "sin", "cos": "cos",
	"tan": "tan", "sec": "sec", "csc": "csc", "cot": "cot", "arcsin": "arcsin",
	"arccos": "arccos", "arctan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
	"max": "max", "min": "min", "sup": "sup", "inf": "inf", "det": "det", "dim": "dim",
	"ker": "ker", "gcd": "gcd", "arg": "arg", "deg": "deg", "Pr": "Pr",
	// Sizing and spacing commands that text drops.
	"left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "bigl": "",
	"bigr": "", "Bigl": "", "Bigr": "", "displaystyle": "", "textstyle": "", "limits": "",
	"nolimits": "",
}

// texChars maps characters that math draws differently to their text.
var texChars = map[byte]string{
	'&': "  ", '~': " ", '\n': " ", '\t': " ", '\r': " ", '-': "−", '*': "∗", '\'': "′",
}

// texAccents maps accent commands to the combining mark they add.
var texAccents = map[string]string{
	"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
	"vec": "\u20d7", "tilde": "\u0303", "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308",
}

// texFonts maps letters under \mathbb to their double-struck forms.
var texDoubleStruck = map[rune]string{
	'N': "ℕ", 'Z': "ℤ", 'Q': "ℚ", 'R': "ℝ", 'C': "ℂ", 'P': "ℙ", 'H': "ℍ", 'E': "𝔼", '1': "𝟙",
}

// Unicode super- and subscripts of the characters that have them.
var (
	superscripts = map[rune]rune{
		'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸',
		'9': '⁹', '+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', 'a': 'ᵃ', 'b': 'ᵇ',
		'c': 'ᶜ', 'd': 'ᵈ', 'e': 'ᵉ', 'f': 'ᶠ', 'g': 'ᵍ', 'h': 'ʰ', 'i': 'ⁱ', 'j': 'ʲ', 'k': 'ᵏ',
		'l': 'ˡ', 'm': 'ᵐ', 'n': 'ⁿ', 'o': 'ᵒ', 'p': 'ᵖ', 'r': 'ʳ', 's': 'ˢ', 't': 'ᵗ', 'u': 'ᵘ',
		'v': 'ᵛ', 'w': 'ʷ', 'x': 'ˣ', 'y': 'ʸ', 'z': 'ᶻ', 'A': 'ᴬ', 'B': 'ᴮ', 'D': 'ᴰ', 'E': 'ᴱ',
		'G': 'ᴳ', 'H': 'ᴴ', 'I': 'ᴵ', 'J': 'ᴶ', 'K': 'ᴷ', 'L': 'ᴸ', 'M': 'ᴹ', 'N': 'ᴺ', 'O': 'ᴼ',
		'P': 'ᴾ', 'R': 'ᴿ', 'T': 'ᵀ', 'U': 'ᵁ', 'V': 'ⱽ', 'W': 'ᵂ', '′': '′',
		'α': 'ᵅ', 'β': 'ᵝ', 'γ': 'ᵞ', 'δ': 'ᵟ', 'θ': 'ᶿ', 'ϕ': 'ᵠ', 'φ': 'ᵠ', 'χ': 'ᵡ', '∗': '*', '*': '*',
	}
	subscripts = map[rune]rune{
		'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈',
		'9': '₉', '+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎', 'a': 'ₐ', 'e': 'ₑ',
		'h': 'ₕ', 'i': 'ᵢ', 'j': 'ⱼ', 'k': 'ₖ', 'l': 'ₗ', 'm': 'ₘ', 'n': 'ₙ', 'o': 'ₒ', 'p': 'ₚ',
		'r': 'ᵣ', 's': 'ₛ', 't': 'ₜ', 'u': 'ᵤ', 'v': 'ᵥ', 'x': 'ₓ', 'β': 'ᵦ', 'γ': 'ᵧ', 'ρ': 'ᵨ',
		'ϕ': 'ᵩ', 'φ': 'ᵩ', 'χ': 'ᵪ',
	}
)

// latexText turns LaTeX math into legible text.
func latexText(src string) string {
	p := texParser{src: src}
	return strings.TrimSpace(collapseSpaces(p.until("")))
}

// collapseSpaces turns runs of spaces into one space and trims each
// line.
func collapseSpaces(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// texParser reads LaTeX math from src at pos.
type texParser struct {
	src   string
	pos   int
	depth int
}

// maxTexDepth bounds the nesting of groups, against hostile input.
const maxTexDepth = 64

// until converts up to the closing string end ("" : the end of the
// source, "}" : the end of a group), which it consumes.
func (p *texParser) until(end string) string {
	var b strings.Builder
	for p.pos < len(p.src) {
		if end != "" && strings.HasPrefix(p.src[p.pos:], end) {
			p.pos += len(end)
			return b.String()
		}
		b.WriteString(p.atom(true))
	}
	return b.String()
}

// atom converts one unit: a group, a command with its arguments, a
// script or a character. scripts false reads a bare argument, which
// takes no scripts of its own.
func (p *texParser) atom(scripts bool) string {
	if p.pos >= len(p.src) {
		return ""
	}
	c := p.src[p.pos]
	switch {
	case c == '{':
		p.pos++
		if p.depth >= maxTexDepth {
			rest := p.src[p.pos:]
			p.pos = len(p.src)
			return rest
		}
		p.depth++
		s := p.until("}")
		p.depth--
		return s
	case c == '}':
		p.pos++ // unbalanced: dropped
		return ""
	case c == '^' || c == '_':
		p.pos++
		p.skipSpace()
		arg := p.atom(false)
		if c == '^' {
			return script(arg, superscripts, "^")
		}
		return script(arg, subscripts, "_")
	case c == '\\':
		return p.command()
	}
	if s, ok := texChars[c]; ok {
		p.pos++
		return s
	}
	_, n := utf8.DecodeRuneInString(p.src[p.pos:])
	s := p.src[p.pos : p.pos+n]
	p.pos += n
	if !scripts {
		return s
	}
	switch s {
	case "=", "<", ">", "+", "≤", "≥":
		return " " + s + " "
	}
	return s
}

// skipSpace skips spaces.
func (p *texParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

// arg reads a command's argument.
func (p *texParser) arg() string {
	p.skipSpace()
	return p.atom(false)
}

// command converts a command at a backslash.
func (p *texParser) command() string {
	start := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		return "\\"
	}
	n := 0
	for p.pos+n < len(p.src) && isASCIILetter(p.src[p.pos+n]) {
		n++
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(p.src[p.pos:])
	}
	name := p.src[p.pos : p.pos+n]
	p.pos += n
	switch name {
	case "\\":
		return "\n"
	case "frac", "dfrac", "tfrac", "cfrac":
		num, den := p.arg(), p.arg()
		return " " + fracPart(num) + "/" + fracPart(den) + " "
	case "binom":
		top, bottom := p.arg(), p.arg()
		return "C(" + top + ", " + bottom + ")"
	case "sqrt":
		root := ""
		if p.pos < len(p.src) && p.src[p.pos] == '[' {
			if end := strings.IndexByte(p.src[p.pos:], ']'); end > 0 {
				root = p.src[p.pos+1 : p.pos+end]
				p.pos += end + 1
			}
		}
		sign := "√"
		switch root {
		case "":
		case "3":
			sign = "∛"
		case "4":
			sign = "∜"
		default:
			sign = script(root, superscripts, "") + "√"
		}
		return sign + fracPart(p.arg())
	case "text", "textrm", "textit", "textbf", "mathrm", "mathit", "mathbf", "mathsf", "mathtt",
		"operatorname", "boldsymbol", "bm", "mbox", "textnormal", "mathcal", "mathscr", "mathfrak":
		return p.arg()
	case "mathbb":
		var b strings.Builder
		for _, c := range p.arg() {
			if s, ok := texDoubleStruck[c]; ok {
				b.WriteString(s)
			} else {
				b.WriteRune(c)
			}
		}
		return b.String()
	case "begin", "end":
		p.arg() // the environment's name
		return " "
	}
	if mark, ok := texAccents[name]; ok {
		a := p.arg()
		if utf8.RuneCountInString(a) == 1 {
			return a + mark
		}
		return a
	}
	if s, ok := texSymbols[name]; ok {
		if unicode.IsLetter(rune(name[0])) && len(s) > 0 && isOperator(s) {
			return " " + s + " "
		}
		return s
	}
	// Unknown: verbatim, with its argument.
	if p.pos < len(p.src) && p.src[p.pos] == '{' {
		depth := 0
		for p.pos < len(p.src) {
			c := p.src[p.pos]
			p.pos++
			if c == '{' {
				depth++
			} else if c == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
	}
	return p.src[start:p.pos]
}

// isOperator reports whether a symbol is a relation or binary operator,
// drawn with spaces around it.
func isOperator(s string) bool {
	return strings.Contains("±∓×·÷≤≥≠≈≡∼≃≅∝≪≫→←↔⇒⇐⇔⟹⟺↦∈∉∋⊂⊆⊃⊇∪∩∖∧∨⊕⊗", s) && utf8.RuneCountInString(s) == 1
}

// isASCIILetter reports whether c is an ASCII letter.
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// fracPart puts s in parentheses when it has more than one term: a
// space or an operator outside parentheses.
func fracPart(s string) string {
	s = strings.TrimSpace(s)
	depth := 0
	for _, c := range s {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ' ', '+', '−', '-', '/', '=':
			if depth == 0 {
				return "(" + s + ")"
			}
		}
	}
	return s
}

// script writes s in the Unicode characters of table; where one has
// none, s shows after mark in parentheses (a single character without
// them).
func script(s string, table map[rune]rune, mark string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for _, c := range s {
		if c == ' ' {
			continue
		}
		r, ok := table[c]
		if !ok {
			if utf8.RuneCountInString(s) == 1 {
				return mark + s
			}
			return mark + "(" + s + ")"
		}
		b.WriteRune(r)
	}
	return b.String()
}

// kindMath is the kind of math nodes.
var kindMath = ast.NewNodeKind("Math")

// mathNode is inline math: $...$, \(...\), or $$...$$ within a line.
type mathNode struct {
	ast.BaseInline
	TeX     string
	Display bool
}

// Kind implements ast.Node.
func (n *mathNode) Kind() ast.NodeKind { return kindMath }

// Dump implements ast.Node.
func (n *mathNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"TeX": n.TeX}, nil)
}

// mathParser parses inline math for goldmark.
type mathParser struct{}

// Trigger implements parser.InlineParser.
func (mathParser) Trigger() []byte { return []byte{'$', '\\'} }

// Parse implements parser.InlineParser: $...$ needs no space after the
// opening $ nor before the closing one, and no digit after the closing
// one, so "$5 and $10" stays text.
func (mathParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	tex, n, display := findMath(line)
	if n == 0 {
		return nil
	}
	block.Advance(n)
	return &mathNode{TeX: tex, Display: display}
}

// findMath finds math at the start of line: its TeX, the bytes it takes
// (0: none) and whether it is display math.
func findMath(line []byte) (tex string, n int, display bool) {
	if len(line) < 3 {
		return "", 0, false
	}
	s := string(line)
	switch {
	case strings.HasPrefix(s, `\(`):
		if end := strings.Index(s[2:], `\)`); end > 0 {
			return s[2 : 2+end], end + 4, false
		}
	case strings.HasPrefix(s, `\[`):
		if end := strings.Index(s[2:], `\]`); end > 0 {
			return s[2 : 2+end], end + 4, true
		}
	case strings.HasPrefix(s, "$$"):
		if end := strings.Index(s[2:], "$$"); end > 0 {
			return s[2 : 2+end], end + 4, true
		}
	case s[0] == '$':
		if s[1] == ' ' || s[1] == '\t' || s[1] == '$' {
			return "", 0, false
		}
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++ // an escaped character
			case '$':
				if s[i-1] == ' ' || s[i-1] == '\t' {
					continue
				}
				if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
					continue
				}
				return s[1:i], i + 1, false
			}
		}
	}
	return "", 0, false
}
