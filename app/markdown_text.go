package app

// A paragraph of styled text that wraps by words: Fyne's RichText wraps
// each of its segments on its own, so a word after a bold or code segment
// broke in the middle ("Whe / n") and, once a row had no room left for a
// character, every row after it held a single character. mdText lays out
// the whole paragraph as one run of words instead.

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// minWrapChars is how many average characters wide a wrapping paragraph
// is at least: narrower, it would break nearly every word.
const minWrapChars = 14

// runStyle is how a run of text is drawn.
type runStyle struct {
	Bold, Italic, Mono, Strike bool
	// Code draws a background behind the run (inline code).
	Code bool
	// Size is the theme size of the text; "" is the body text size.
	Size fyne.ThemeSizeName
	// Color is the theme colour of the text; "" is the foreground.
	Color fyne.ThemeColorName
	// URL makes the run a link that opens it when tapped.
	URL *url.URL
}

// inlineRun is a piece of text in one style.
type inlineRun struct {
	Text  string
	Style runStyle
}

// openURL opens a link tapped in a message (a variable for the tests).
var openURL = func(u *url.URL) error { return fyne.CurrentApp().OpenURL(u) }

// mdText draws runs of styled text, wrapped by words to its width (or
// only at line breaks when Wrap is false, as code is).
type mdText struct {
	widget.BaseWidget
	Runs  []inlineRun
	Wrap  bool
	Align fyne.TextAlign
}

// newMDText returns a paragraph of runs that wraps by words.
func newMDText(runs ...inlineRun) *mdText {
	t := &mdText{Runs: runs, Wrap: true}
	t.ExtendBaseWidget(t)
	return t
}

// SetRuns replaces the paragraph's text.
func (t *mdText) SetRuns(runs []inlineRun) {
	t.Runs = runs
	t.Refresh()
}

// String returns the paragraph's text.
func (t *mdText) String() string {
	var b strings.Builder
	for _, r := range t.Runs {
		b.WriteString(r.Text)
	}
	return b.String()
}

// CreateRenderer implements fyne.Widget.
func (t *mdText) CreateRenderer() fyne.WidgetRenderer {
	r := &mdTextRenderer{t: t}
	r.measure()
	return r
}

// textPart is part of a word in one run, measured.
type textPart struct {
	run   int
	text  string
	width float32
}

// textWord is what wrapping keeps together: the parts of one word, the
// width of the space before it (0: none) and how many line breaks come
// before it.
type textWord struct {
	parts []textPart
	space float32
	brk   int
	width float32
}

// placed is a fragment of one run laid out at a position.
type placed struct {
	run  int
	text string
	x, y float32
	w    float32
}

// mdTextRenderer lays the words out in rows and draws a text object
// for each piece of a run on a row.
type mdTextRenderer struct {
	t       *mdText
	words   []textWord
	lineH   float32
	natural float32 // the width of the widest line unwrapped
	widest  float32 // the widest word
	avgChar float32

	laidW   float32 // the width the rows were laid out for
	rows    int
	frags   []placed
	objects []fyne.CanvasObject
}

// textStyle is the Fyne text style and size of a run style.
func (t *mdText) textStyle(s runStyle) (fyne.TextStyle, float32) {
	th := t.Theme()
	size := th.Size(theme.SizeNameText)
	if s.Size != "" {
		size = th.Size(s.Size)
	}
	if s.Mono || s.Code {
		// Fyne has no bold or italic monospaced face.
		return fyne.TextStyle{Monospace: true}, size
	}
	return fyne.TextStyle{Bold: s.Bold, Italic: s.Italic}, size
}

// measure splits the runs into words and measures them.
func (r *mdTextRenderer) measure() {
	t := r.t
	r.words = r.words[:0]
	r.lineH, r.natural, r.widest = 0, 0, 0
	body := t.Theme().Size(theme.SizeNameText)
	r.avgChar = fyne.MeasureText("abcdefghijklmnopqrstuvwxyz", body, fyne.TextStyle{}).Width / 26
	r.lineH = fyne.MeasureText("Mg", body, fyne.TextStyle{}).Height
	var cur *textWord
	pendingSpace, pendingBreak := float32(0), 0
	lineW := float32(0)
	for i, run := range t.Runs {
		style, size := t.textStyle(run.Style)
		if h := fyne.MeasureText("Mg", size, style).Height; h > r.lineH {
			r.lineH = h
		}
		spaceW := fyne.MeasureText(" ", size, style).Width
		text := run.Text
		for text != "" {
			c, n := utf8.DecodeRuneInString(text)
			switch {
			case c == '\n':
				cur, pendingSpace = nil, 0
				pendingBreak++
				lineW = 0
				text = text[n:]
			case t.Wrap && unicode.IsSpace(c):
				if cur != nil {
					pendingSpace = spaceW
				}
				cur = nil
				text = text[n:]
			default:
				end := 0
				for end < len(text) {
					c, n := utf8.DecodeRuneInString(text[end:])
					if c == '\n' || t.Wrap && unicode.IsSpace(c) {
						break
					}
					end += n
				}
				piece := text[:end]
				text = text[end:]
				w := fyne.MeasureText(piece, size, style).Width
				if cur == nil {
					r.words = append(r.words, textWord{space: pendingSpace, brk: pendingBreak})
					cur = &r.words[len(r.words)-1]
					lineW += pendingSpace
					pendingSpace, pendingBreak = 0, 0
				}
				cur.parts = append(cur.parts, textPart{run: i, text: piece, width: w})
				cur.width += w
				lineW += w
				r.widest = max(r.widest, cur.width)
				r.natural = max(r.natural, lineW)
			}
		}
	}
	if pendingBreak > 0 {
		// A trailing line break keeps its empty line.
		r.words = append(r.words, textWord{brk: pendingBreak})
	}
}

// layout places the words in rows no wider than width (unless Wrap is
// off).
func (r *mdTextRenderer) layout(width float32) {
	t := r.t
	r.frags = r.frags[:0]
	wrap := t.Wrap && width > 0
	x, y := float32(0), float32(0)
	rows := 1
	lineStart := 0
	newline := func() {
		r.alignRow(lineStart, x, width)
		lineStart = len(r.frags)
		x = 0
		y += r.lineH
		rows++
	}
	add := func(p textPart, px float32) {
		if n := len(r.frags); n > lineStart && r.frags[n-1].run == p.run && r.frags[n-1].y == y {
			last := &r.frags[n-1]
			if px > last.x+last.w+0.01 {
				last.text += " " // the space laid between them
			}
			last.text += p.text
			last.w = px + p.width - last.x
			return
		}
		r.frags = append(r.frags, placed{run: p.run, text: p.text, x: px, y: y, w: p.width})
	}
	for _, w := range r.words {
		for range w.brk {
			newline()
		}
		space := w.space
		if x == 0 && wrap {
			space = 0
		}
		if wrap && x > 0 && x+space+w.width > width {
			newline()
			space = 0
		}
		x += space
		if wrap && w.width > width {
			// A word wider than a row (a long URL) breaks where it must.
			for _, p := range w.parts {
				style, size := t.textStyle(t.Runs[p.run].Style)
				rest := p.text
				for rest != "" {
					n := fitPrefix(rest, width-x, size, style)
					if n == 0 {
						if x > 0 {
							newline()
							continue
						}
						_, n = utf8.DecodeRuneInString(rest)
					}
					piece := rest[:n]
					pw := fyne.MeasureText(piece, size, style).Width
					add(textPart{run: p.run, text: piece, width: pw}, x)
					x += pw
					rest = rest[n:]
					if rest != "" {
						newline()
					}
				}
			}
			continue
		}
		for _, p := range w.parts {
			add(p, x)
			x += p.width
		}
	}
	r.alignRow(lineStart, x, width)
	r.rows = rows
	r.laidW = width
}

// alignRow moves the fragments of the row from index start, lineW wide,
// to the text alignment within width.
func (r *mdTextRenderer) alignRow(start int, lineW, width float32) {
	var shift float32
	switch r.t.Align {
	case fyne.TextAlignCenter:
		shift = (width - lineW) / 2
	case fyne.TextAlignTrailing:
		shift = width - lineW
	}
	if shift <= 0 {
		return
	}
	for i := start; i < len(r.frags); i++ {
		r.frags[i].x += shift
	}
}

// fitPrefix returns the length in bytes of the longest prefix of s that
// is no wider than width.
func fitPrefix(s string, width float32, size float32, style fyne.TextStyle) int {
	ends := make([]int, 0, len(s)) // the byte offset after each rune
	for i := range s {
		if i > 0 {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(s))
	// The longest prefix that fits, by binary search over rune counts.
	lo, hi := 0, len(ends)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(s[:ends[mid-1]], size, style).Width <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return 0
	}
	return ends[lo-1]
}

// inset is the padding around the text.
func (r *mdTextRenderer) inset() float32 {
	return r.t.Theme().Size(theme.SizeNameInnerPadding) / 2
}

// Layout implements fyne.WidgetRenderer.
func (r *mdTextRenderer) Layout(size fyne.Size) {
	w := size.Width - 2*r.inset()
	if r.t.Wrap {
		w = max(w, r.minWidth())
	}
	if w != r.laidW || r.objects == nil {
		r.layout(w)
		r.build()
	}
}

// MinSize implements fyne.WidgetRenderer: a wrapping paragraph is as tall
// as its rows at its width and at least minWrapChars wide; otherwise it
// is as wide as its widest line.
func (r *mdTextRenderer) MinSize() fyne.Size {
	pad := 2 * r.inset()
	if !r.t.Wrap {
		rows := 1
		for _, w := range r.words {
			rows += w.brk
		}
		return fyne.NewSize(r.natural+pad, float32(rows)*r.lineH+pad)
	}
	minW := r.minWidth()
	width := r.t.Size().Width - pad
	if width <= 0 {
		width = r.natural
	}
	if width < minW {
		width = minW
	}
	if width != r.laidW {
		r.layout(width)
		r.build()
	}
	return fyne.NewSize(minW+pad, float32(r.rows)*r.lineH+pad)
}

// minWidth is the least width a wrapping paragraph is laid out at.
func (r *mdTextRenderer) minWidth() float32 {
	return min(r.natural, r.avgChar*minWrapChars)
}

// build makes the canvas objects of the laid-out fragments.
func (r *mdTextRenderer) build() {
	t := r.t
	th := t.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	pad := r.inset()
	r.objects = r.objects[:0]
	for _, f := range r.frags {
		run := t.Runs[f.run]
		style, size := t.textStyle(run.Style)
		name := run.Style.Color
		if name == "" {
			name = theme.ColorNameForeground
		}
		if run.Style.URL != nil {
			name = theme.ColorNameHyperlink
		}
		col := th.Color(name, v)
		pos := fyne.NewPos(f.x+pad, f.y+pad)
		if run.Style.Code {
			bg := canvas.NewRectangle(th.Color(theme.ColorNameInputBackground, v))
			bg.CornerRadius = th.Size(theme.SizeNameInputRadius) / 2
			bg.Move(pos.SubtractXY(2, 0))
			bg.Resize(fyne.NewSize(f.w+4, r.lineH))
			r.objects = append(r.objects, bg)
		}
		txt := canvas.NewText(f.text, col)
		txt.TextStyle, txt.TextSize = style, size
		txt.Move(pos)
		txt.Resize(fyne.NewSize(f.w, r.lineH))
		if run.Style.URL != nil {
			l := newMDLink(txt, run.Style.URL)
			l.Move(pos)
			l.Resize(fyne.NewSize(f.w, r.lineH))
			r.objects = append(r.objects, l)
		} else {
			r.objects = append(r.objects, txt)
		}
		if run.Style.Strike {
			line := canvas.NewLine(col)
			mid := pos.Y + r.lineH/2
			line.Position1 = fyne.NewPos(pos.X, mid)
			line.Position2 = fyne.NewPos(pos.X+f.w, mid)
			r.objects = append(r.objects, line)
		}
	}
}

// Objects implements fyne.WidgetRenderer.
func (r *mdTextRenderer) Objects() []fyne.CanvasObject { return r.objects }

// Refresh implements fyne.WidgetRenderer: the runs are measured again.
func (r *mdTextRenderer) Refresh() {
	r.measure()
	r.laidW = -1
	r.Layout(r.t.Size())
	canvas.Refresh(r.t)
}

// Destroy implements fyne.WidgetRenderer.
func (r *mdTextRenderer) Destroy() {}

// mdLink is a piece of a link: its text, underlined, opens the URL when
// tapped and shows a pointer.
type mdLink struct {
	widget.BaseWidget
	text *canvas.Text
	url  *url.URL
}

// newMDLink returns a link drawn as text.
func newMDLink(text *canvas.Text, u *url.URL) *mdLink {
	l := &mdLink{text: text, url: u}
	l.ExtendBaseWidget(l)
	return l
}

// Tapped opens the link.
func (l *mdLink) Tapped(*fyne.PointEvent) {
	if err := openURL(l.url); err != nil {
		fyne.LogError("app: opening a link", err)
	}
}

// Cursor shows a pointer over a link.
func (l *mdLink) Cursor() desktop.Cursor { return desktop.PointerCursor }

// CreateRenderer implements fyne.Widget.
func (l *mdLink) CreateRenderer() fyne.WidgetRenderer {
	under := canvas.NewLine(l.text.Color)
	return &mdLinkRenderer{l: l, under: under, objs: []fyne.CanvasObject{l.text, under}}
}

// mdLinkRenderer draws a link's text over an underline.
type mdLinkRenderer struct {
	l     *mdLink
	under *canvas.Line
	objs  []fyne.CanvasObject
}

// Layout implements fyne.WidgetRenderer.
func (r *mdLinkRenderer) Layout(s fyne.Size) {
	r.l.text.Move(fyne.NewPos(0, 0))
	r.l.text.Resize(s)
	r.under.Position1 = fyne.NewPos(0, s.Height-1)
	r.under.Position2 = fyne.NewPos(s.Width, s.Height-1)
}

// MinSize implements fyne.WidgetRenderer.
func (r *mdLinkRenderer) MinSize() fyne.Size { return r.l.text.MinSize() }

// Objects implements fyne.WidgetRenderer.
func (r *mdLinkRenderer) Objects() []fyne.CanvasObject { return r.objs }

// Refresh implements fyne.WidgetRenderer.
func (r *mdLinkRenderer) Refresh() { canvas.Refresh(r.l) }

// Destroy implements fyne.WidgetRenderer.
func (r *mdLinkRenderer) Destroy() {}
