package app

import (
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

func TestLatexText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`x^2 + y^2 = z^2`, "x² + y² = z²"},
		{`a_1 + a_{n+1}`, "a₁ + aₙ₊₁"},
		{`\alpha + \beta \le \Gamma`, "α + β ≤ Γ"},
		{`\frac{a}{b}`, "a/b"},
		{`\frac{a+1}{2b}`, "(a + 1)/2b"},
		{`\sqrt{x}`, "√x"},
		{`\sqrt[3]{8}`, "∛8"},
		{`\sum_{i=1}^{n} i`, "∑ᵢ₌₁ⁿ i"},
		{`\int_0^\infty e^{-x} dx`, "∫₀^∞ e⁻ˣ dx"},
		{`\mathbb{R}^n`, "ℝⁿ"},
		{`\text{if } x > 0`, "if x > 0"},
		{`\hat{x}`, "x\u0302"},
		{`x^{\text{big}}`, "xᵇⁱᵍ"},
		{`x^{qq}`, "x^(qq)"},
		{`x_q`, "x_q"},
		{`\unknowncmd{x} + 1`, `\unknowncmd{x} + 1`},
		{`E = mc^2`, "E = mc²"},
		{`a \cdot b \times c`, "a · b × c"},
		{`\lim_{x \to 0}`, "lim_(x → 0)"},
		{`{{{`, ""},
		{`\`, `\`},
		{`x^`, "x"},
		{`\begin{pmatrix} a & b \\ c & d \end{pmatrix}`, "a b\nc d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := latexText(tt.in); got != tt.want {
				t.Errorf("latexText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// mathHit is what findMath finds.
type mathHit struct {
	tex     string
	n       int
	display bool
}

func TestFindMath(t *testing.T) {
	tests := map[string]mathHit{
		"$x$ rest":   {"x", 3, false},
		"$a + b$.":   {"a + b", 7, false},
		"$5 and $10": {},
		"$ x$":       {},
		"$x $":       {},
		"$x$5":       {},
		`$a\$b$`:     {`a\$b`, 6, false},
		"$$x$$ y":    {"x", 5, true},
		`\(x\) y`:    {"x", 5, false},
		`\[x\]`:      {"x", 5, true},
		`\(x`:        {},
		"$x":         {},
		"$":          {},
	}
	for in, want := range tests {
		var got mathHit
		got.tex, got.n, got.display = findMath([]byte(in))
		if got != want {
			t.Errorf("findMath(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// mathIn returns the TeX of the math nodes goldmark finds in src.
func mathIn(src string) []string {
	doc := markdown.Parser().Parse(text.NewReader([]byte(src)))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if m, ok := n.(*mathNode); ok && entering {
			out = append(out, m.TeX)
		}
		return ast.WalkContinue, nil
	})
	return out
}

func TestMarkdownMath(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"It costs $5 and $10 today.", nil},
		{"Let $a_1$ and $b_2$ be.", []string{"a_1", "b_2"}},
		{`So \(x^2\) grows.`, []string{"x^2"}},
		{`Escaped \$x\$ stays.`, nil},
		{"In code `$x$` stays.", nil},
		{"*emphasis $a*b$ here*", []string{"a*b"}},
	}
	for _, tt := range tests {
		got := mathIn(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("math in %q: %q, want %q", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("math in %q: %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

func FuzzLatexText(f *testing.F) {
	for _, s := range []string{`\frac{a}{b}`, `x^{2}_{i}`, `\sqrt[3]{x}`, `{{{}`, `\`, `\mathbb{R}`, `\begin{x}`, "\xff^\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		latexText(s)
		findMath([]byte(s))
	})
}
