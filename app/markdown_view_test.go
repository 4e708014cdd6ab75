package app

import (
	"net/url"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// mdTexts returns the paragraphs drawn under o, in order.
func mdTexts(o fyne.CanvasObject) []*mdText {
	var out []*mdText
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *mdText:
			out = append(out, o)
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(o.Content)
		}
	}
	walk(o)
	return out
}

// drawMD draws Markdown s in a window width wide.
func drawMD(t *testing.T, s string, width float32) *mdView {
	t.Helper()
	test.NewTempApp(t)
	return drawMDInApp(t, s, width)
}

// drawMDInApp is drawMD in the current app.
func drawMDInApp(t *testing.T, s string, width float32) *mdView {
	t.Helper()
	m := newMDView(false, nil)
	m.SetText(s)
	w := test.NewWindow(container.NewVScroll(m.Box))
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(width, 600))
	return m
}

// runsWith returns the runs under o whose style passes keep.
func runsWith(o fyne.CanvasObject, keep func(runStyle) bool) []inlineRun {
	var out []inlineRun
	for _, p := range mdTexts(o) {
		for _, r := range p.Runs {
			if keep(r.Style) {
				out = append(out, r)
			}
		}
	}
	return out
}

func TestMarkdownLinks(t *testing.T) {
	m := drawMD(t, "See https://example.com/a_b. Or [the docs](https://docs.example.org/x), "+
		"or www.example.net! Not [this](file:///etc/passwd) nor [that](javascript:alert(1)).", 800)
	links := runsWith(m.Box, func(s runStyle) bool { return s.URL != nil })
	var got []string
	for _, l := range links {
		got = append(got, l.Text+" -> "+l.Style.URL.String())
	}
	want := []string{
		"https://example.com/a_b -> https://example.com/a_b",
		"the docs -> https://docs.example.org/x",
		"www.example.net -> http://www.example.net",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMarkdownLinkOpens(t *testing.T) {
	var opened []string
	old := openURL
	openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	t.Cleanup(func() { openURL = old })
	m := drawMD(t, "Go to https://example.com now.", 800)
	var link *mdLink
	for _, p := range mdTexts(m.Box) {
		for _, o := range test.WidgetRenderer(p).Objects() {
			if l, ok := o.(*mdLink); ok {
				link = l
			}
		}
	}
	if link == nil {
		t.Fatal("no link drawn")
	}
	test.Tap(link)
	if len(opened) != 1 || opened[0] != "https://example.com" {
		t.Errorf("opened %q, want https://example.com", opened)
	}
}

func TestMarkdownBlocks(t *testing.T) {
	src := "# Title\n\n## Part\n\nSome *it* and **bold** and `code` and ~~gone~~.\n\n" +
		"- one\n- two\n  1. sub a\n  2. sub b\n\n3. three\n4. four\n\n> quoted **text**\n\n---\n\n- [x] done\n- [ ] todo\n"
	m := drawMD(t, src, 800)
	var texts []string
	for _, p := range mdTexts(m.Box) {
		texts = append(texts, p.String())
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"Title", "Part", "Some it and bold and code and gone.", "one|•|two|sub a|1.|sub b|2.|•",
		"three|3.|four|4.", "quoted text", "☑ done", "☐ todo"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q not in %q", want, joined)
		}
	}
	check := func(name string, keep func(runStyle) bool, want string) {
		t.Helper()
		var got []string
		for _, r := range runsWith(m.Box, keep) {
			got = append(got, r.Text)
		}
		if !strings.Contains(strings.Join(got, "|"), want) {
			t.Errorf("%s runs %q, want %q", name, got, want)
		}
	}
	check("heading", func(s runStyle) bool { return s.Size == theme.SizeNameHeadingText }, "Title")
	check("subheading", func(s runStyle) bool { return s.Size == theme.SizeNameSubHeadingText }, "Part")
	check("italic", func(s runStyle) bool { return s.Italic }, "it")
	check("bold", func(s runStyle) bool { return s.Bold && s.Size == "" }, "bold")
	check("code", func(s runStyle) bool { return s.Code }, "code")
	check("strike", func(s runStyle) bool { return s.Strike }, "gone")
	var seps int
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *widget.Separator:
			seps++
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		}
	}
	walk(m.Box)
	if seps != 1 {
		t.Errorf("%d rules, want 1", seps)
	}
}

func TestMarkdownCodeHighlighted(t *testing.T) {
	m := drawMD(t, "```go\n// add adds\nfunc add(a, b int) int { return a + b + 1 }\n```", 800)
	colors := map[fyne.ThemeColorName]string{}
	for _, r := range runsWith(m.Box, func(s runStyle) bool { return s.Mono }) {
		colors[r.Style.Color] += r.Text
	}
	if !strings.Contains(colors[theme.ColorNamePrimary], "func") || !strings.Contains(colors[theme.ColorNamePrimary], "return") {
		t.Errorf("keywords not in the primary colour: %q", colors)
	}
	if !strings.Contains(colors[theme.ColorNamePlaceHolder], "// add adds") {
		t.Errorf("comment not dimmed: %q", colors)
	}
	if !strings.Contains(colors[theme.ColorNameWarning], "1") {
		t.Errorf("number not coloured: %q", colors)
	}
	if chatButton(m.Box, "Copy") == nil {
		t.Error("no Copy button on the code block")
	}
}

func TestMarkdownCodeUnknownLanguage(t *testing.T) {
	runs := highlightCode("a b\n  c", "no-such-language")
	if len(runs) != 1 || runs[0].Text != "a b\n  c" || runs[0].Style.Color != "" {
		t.Errorf("runs %+v, want the code plain", runs)
	}
	if runs := highlightCode("x := 1\n", "go"); runs[len(runs)-1].Text == "" {
		t.Errorf("runs %+v end empty", runs)
	}
}

func TestMarkdownMathDrawn(t *testing.T) {
	m := drawMD(t, "Euler: $e^{i\\pi} + 1 = 0$, costs $5 and $10.\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n", 800)
	var math []string
	for _, r := range runsWith(m.Box, func(s runStyle) bool { return s.Italic }) {
		math = append(math, r.Text)
	}
	got := strings.Join(math, "|")
	for _, want := range []string{"e^(iπ) + 1 = 0", "∑ᵢ₌₁ⁿ i = n(n + 1)/2"} {
		if !strings.Contains(got, want) {
			t.Errorf("math %q, want %q", got, want)
		}
	}
	var all []string
	for _, p := range mdTexts(m.Box) {
		all = append(all, p.String())
	}
	if !strings.Contains(strings.Join(all, "|"), "costs $5 and $10.") {
		t.Errorf("dollar amounts changed: %q", all)
	}
}

func TestMarkdownTableLayout(t *testing.T) {
	m := drawMD(t, "| Left | Right | Mid |\n|:--|--:|:-:|\n| a | 1 | x |\n| longer cell | 22 | y |", 800)
	cells := mdTexts(m.Box)
	if len(cells) != 9 {
		t.Fatalf("%d cells, want 9", len(cells))
	}
	if !cells[0].Runs[0].Style.Bold || cells[3].Runs[0].Style.Bold {
		t.Error("the header row is not bold alone")
	}
	if cells[1].Align != fyne.TextAlignTrailing || cells[2].Align != fyne.TextAlignCenter || cells[0].Align != fyne.TextAlignLeading {
		t.Error("column alignments not kept")
	}
	// Cells of one column are as wide; cells of one row at one height.
	if cells[0].Size().Width != cells[6].Size().Width || cells[0].Position().X != cells[6].Position().X {
		t.Errorf("column 0: %v at %v and %v at %v", cells[0].Size(), cells[0].Position(), cells[6].Size(), cells[6].Position())
	}
	if cells[3].Position().Y != cells[5].Position().Y {
		t.Error("row 1's cells at different heights")
	}
	// A wide table scrolls rather than squashing its columns.
	wide := "| " + strings.Repeat("wide column header | ", 12) + "\n|" + strings.Repeat("---|", 12)
	m = drawMD(t, wide, 400)
	var sc *container.Scroll
	for _, o := range m.Box.Objects {
		if s, ok := o.(*container.Scroll); ok {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("the table is not in a scroll")
	}
	if cw, w := sc.Content.Size().Width, sc.Size().Width; cw <= w {
		t.Errorf("table %v wide in a %v scroll: squashed", cw, w)
	}
}

func TestMDTextNarrowNeverCollapses(t *testing.T) {
	test.NewTempApp(t)
	p := newMDText(inlineRun{Text: "When "}, inlineRun{Text: "bold", Style: runStyle{Bold: true}}, inlineRun{Text: " words meet narrow rows, each stays whole."})
	w := test.NewWindow(p)
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(10, 400)) // narrower than the least width
	if min := p.MinSize().Width; min < 60 {
		t.Errorf("least width %v: too narrow for words", min)
	}
	rows := drawnRows(p)
	for _, r := range rows {
		if len([]rune(r)) == 1 {
			t.Errorf("rows %q hold single characters", rows)
			break
		}
	}
}

func TestMDViewStreamingKeepsBlocks(t *testing.T) {
	test.NewTempApp(t)
	m := newMDView(false, nil)
	m.SetText("First paragraph.\n\n```go\nx := 1\n```\n\nSecond")
	first, code := m.Box.Objects[0], m.Box.Objects[1]
	m.SetText("First paragraph.\n\n```go\nx := 1\n```\n\nSecond paragraph grows")
	if m.Box.Objects[0] != first || m.Box.Objects[1] != code {
		t.Error("finished blocks were drawn again")
	}
	if got := mdTexts(m.Box.Objects[2])[0].String(); got != "Second paragraph grows" {
		t.Errorf("last block %q", got)
	}
}

func TestMDViewPlain(t *testing.T) {
	test.NewTempApp(t)
	m := newMDView(true, nil)
	m.SetText("**not bold**\n| a | b |")
	ps := mdTexts(m.Box)
	if len(ps) != 1 || ps[0].String() != "**not bold**\n| a | b |" || ps[0].Runs[0].Style != (runStyle{}) {
		t.Errorf("plain text drawn as %+v", ps)
	}
}

func FuzzMarkdownRender(f *testing.F) {
	for _, s := range []string{"# a\n\n- b\n  - c\n\n| x |\n|---|\n| y |", "```go\nfunc\n", "$$\n\\frac{", "> q\n> - l\n>   ```\n", "[a](b) <http://x> www.y.z!"} {
		f.Add(s)
	}
	test.NewTempApp(f)
	f.Fuzz(func(t *testing.T, s string) {
		m := newMDView(false, nil)
		m.SetText(s)
		m.Box.Resize(fyne.NewSize(300, m.Box.MinSize().Height))
	})
}

func TestMarkdownCodeThemeColors(t *testing.T) {
	for _, variant := range []string{themeDark, themeLight} {
		a := test.NewTempApp(t)
		applyTheme(a, variant)
		m := drawMDInApp(t, "```go\nfunc f() {}\n```", 600)
		want := a.Settings().Theme().Color(theme.ColorNamePrimary, a.Settings().ThemeVariant())
		found := false
		for _, p := range mdTexts(m.Box) {
			for _, o := range test.WidgetRenderer(p).Objects() {
				if txt, ok := o.(*canvas.Text); ok && txt.Text == "func" {
					found = true
					if txt.Color != want {
						t.Errorf("%s: keyword drawn in %v, want the theme's primary %v", variant, txt.Color, want)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no keyword drawn", variant)
		}
	}
}

func TestMDTextCodeKeepsBlankLines(t *testing.T) {
	test.NewTempApp(t)
	height := func(s string) float32 {
		p := newMDText(inlineRun{Text: s, Style: runStyle{Mono: true}})
		p.Wrap = false
		return p.MinSize().Height
	}
	if a, b := height("a\n\nb"), height("a\nb\nc"); a != b {
		t.Errorf("a blank line: %v high, three lines %v", a, b)
	}
	if a, b := height("a\n"), height("a\nb"); a != b {
		t.Errorf("a trailing line break: %v high, two lines %v", a, b)
	}
}

func TestMarkdownFollowsThemeChange(t *testing.T) {
	a := test.NewTempApp(t)
	applyTheme(a, themeLight)
	m := drawMDInApp(t, "```go\nfunc f() {}\n```", 600)
	var rect *themedRect
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *themedRect:
			rect = o
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		}
	}
	walk(m.Box)
	if rect == nil {
		t.Fatal("the code block has no background")
	}
	fill := func() any { return test.WidgetRenderer(rect).Objects()[0].(*canvas.Rectangle).FillColor }
	light := fill()
	applyTheme(a, themeDark)
	m.Box.Refresh() // as a change of theme refreshes every object
	want := a.Settings().Theme().Color(theme.ColorNameInputBackground, theme.VariantDark)
	if got := fill(); got != want || got == light {
		t.Errorf("after the change to dark the code background is %v (light %v), want %v", got, light, want)
	}
}

func TestMDViewStreamingCodeInPlace(t *testing.T) {
	test.NewTempApp(t)
	var copied string
	m := newMDView(false, func(s string) { copied = s })
	m.SetText("Code:\n\n```go\nx")
	code := m.Box.Objects[1]
	m.SetText("Code:\n\n```go\nx := 1\n```")
	if m.Box.Objects[1] != code {
		t.Error("a growing code block was made anew")
	}
	test.Tap(chatButton(code, "Copy"))
	if copied != "x := 1" {
		t.Errorf("copied %q, want the code as it is now", copied)
	}
	m.SetText("Code:\n\n```py\nx := 1\n```")
	if m.Box.Objects[1] == code {
		t.Error("a code block kept its language's colours after the language changed")
	}
}
