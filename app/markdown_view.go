package app

// How a message's Markdown is drawn: goldmark parses each prose section
// (GFM: tables, strikethrough, task lists, bare URLs as links; and math),
// and its blocks become paragraphs of styled text, lists, quotes,
// tables, rules and code blocks highlighted by chroma.

import (
	"net/url"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the parser of replies: CommonMark with GFM and math.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList),
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(mathParser{}, 50))),
)

// mdView draws a message's text: its blocks, each kept while its text
// stays the same. A streaming reply only grows at its end: its last block
// is drawn again, and a paragraph or code block that only grew is updated
// in place rather than made anew.
type mdView struct {
	// Box holds the blocks' objects.
	Box *fyne.Container
	// plain draws prose as typed, without Markdown (a person's message).
	plain bool
	// copy puts a code block's text on the clipboard.
	copy   func(string)
	blocks []block
	drawn  []drawnBlock
}

// drawnBlock is what a block was drawn as; code is set for a code block.
type drawnBlock struct {
	obj  fyne.CanvasObject
	code *codeView
}

// codeView is the part of a drawn code block that changes as it grows.
type codeView struct {
	body *mdText
	text string // the code, for the Copy button
}

// newMDView returns an empty message body.
func newMDView(plain bool, copy func(string)) *mdView {
	return &mdView{Box: container.NewVBox(), plain: plain, copy: copy}
}

// SetText draws text, re-rendering only the blocks that changed.
func (m *mdView) SetText(s string) {
	var blocks []block
	if m.plain {
		if strings.TrimSpace(s) != "" {
			blocks = []block{{Text: strings.Trim(s, "\n")}}
		}
	} else {
		blocks = splitMessage(s)
	}
	changed := len(blocks) != len(m.blocks)
	for i, b := range blocks {
		if i < len(m.blocks) && m.blocks[i] == b {
			continue
		}
		if i < len(m.drawn) && m.blocks[i].Code && b.Code && m.blocks[i].Lang == b.Lang && m.drawn[i].code != nil {
			cv := m.drawn[i].code
			cv.text = b.Text
			cv.body.SetRuns(highlightCode(b.Text, b.Lang))
			continue
		}
		d := m.render(b)
		if i < len(m.drawn) && sameParagraph(m.drawn[i].obj, d.obj) {
			m.drawn[i].obj.(*mdText).SetRuns(d.obj.(*mdText).Runs)
			continue
		}
		changed = true
		if i < len(m.drawn) {
			m.drawn[i] = d
		} else {
			m.drawn = append(m.drawn, d)
		}
	}
	m.drawn = m.drawn[:len(blocks)]
	m.blocks = blocks
	if changed {
		// Laid out again, not refreshed: refreshing a container refreshes
		// every object in it, and the blocks kept have not changed.
		m.Box.Objects = m.Box.Objects[:0]
		for _, d := range m.drawn {
			m.Box.Objects = append(m.Box.Objects, d.obj)
		}
		m.Box.Layout.Layout(m.Box.Objects, m.Box.Size())
		canvas.Refresh(m.Box)
	}
}

// sameParagraph reports whether a and b are paragraphs drawn alike, so
// that a can take b's text.
func sameParagraph(a, b fyne.CanvasObject) bool {
	pa, ok := a.(*mdText)
	pb, ok2 := b.(*mdText)
	return ok && ok2 && pa.Wrap == pb.Wrap && pa.Align == pb.Align
}

// render draws one block.
func (m *mdView) render(b block) drawnBlock {
	switch {
	case m.plain:
		return drawnBlock{obj: newMDText(inlineRun{Text: b.Text})}
	case b.Code:
		obj, cv := m.codeBlock(b.Text, b.Lang)
		return drawnBlock{obj: obj, code: cv}
	case b.Math:
		return drawnBlock{obj: mathBlockView(b.Text)}
	}
	src := []byte(b.Text)
	doc := markdown.Parser().Parse(text.NewReader(src))
	r := mdRenderer{src: src, view: m}
	objs := r.blocks(doc, 0)
	if len(objs) == 1 {
		return drawnBlock{obj: objs[0]}
	}
	return drawnBlock{obj: container.NewVBox(objs...)}
}

// mathBlockView draws display math, centred.
func mathBlockView(tex string) fyne.CanvasObject {
	t := newMDText(inlineRun{Text: latexText(tex), Style: runStyle{Italic: true}})
	t.Align = fyne.TextAlignCenter
	return t
}

// codeBlock draws code highlighted for lang, in a box with its language
// and a Copy button, scrolling sideways rather than wrapping.
func (m *mdView) codeBlock(code, lang string) (fyne.CanvasObject, *codeView) {
	cv := &codeView{body: newMDText(highlightCode(code, lang)...), text: code}
	cv.body.Wrap = false
	name := widget.NewLabelWithStyle(lang, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		if m.copy != nil {
			m.copy(cv.text)
		}
	})
	cp.Importance = widget.LowImportance
	bg := newThemedRect(theme.ColorNameInputBackground, theme.ColorNameInputBorder, theme.InputRadiusSize())
	head := container.NewBorder(nil, nil, name, cp)
	return container.NewStack(bg, container.NewPadded(container.NewBorder(head, nil, nil, nil, container.NewHScroll(cv.body)))), cv
}

// mdRenderer turns a parsed section into objects.
type mdRenderer struct {
	src  []byte
	view *mdView
}

// listBullets are the bullets of unordered lists by depth.
var listBullets = []string{"•", "◦", "▪"}

// blocks draws the block children of n; depth is the list nesting.
func (r *mdRenderer) blocks(n ast.Node, depth int) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if o := r.block(c, depth); o != nil {
			out = append(out, o)
		}
	}
	return out
}

// block draws block node n.
func (r *mdRenderer) block(n ast.Node, depth int) fyne.CanvasObject {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return newMDText(r.inlines(n, runStyle{})...)
	case *ast.Heading:
		style := runStyle{Bold: true}
		switch n.Level {
		case 1:
			style.Size = theme.SizeNameHeadingText
		case 2:
			style.Size = theme.SizeNameSubHeadingText
		}
		return newMDText(r.inlines(n, style)...)
	case *ast.ThematicBreak:
		return widget.NewSeparator()
	case *ast.FencedCodeBlock:
		obj, _ := r.view.codeBlock(r.lines(n), string(n.Language(r.src)))
		return obj
	case *ast.CodeBlock:
		obj, _ := r.view.codeBlock(r.lines(n), "")
		return obj
	case *ast.HTMLBlock:
		return newMDText(inlineRun{Text: r.lines(n), Style: runStyle{Mono: true}})
	case *ast.Blockquote:
		bar := newThemedRect(theme.ColorNamePrimary, "", 0)
		bar.rect.SetMinSize(fyne.NewSize(3, 0))
		return container.NewBorder(nil, nil, bar, nil, container.NewVBox(r.blocks(n, depth)...))
	case *ast.List:
		return r.list(n, depth)
	case *east.Table:
		return r.table(n)
	}
	if n.HasChildren() {
		return container.NewVBox(r.blocks(n, depth)...)
	}
	return nil
}

// list draws a list: a marker beside each item's blocks.
func (r *mdRenderer) list(n *ast.List, depth int) fyne.CanvasObject {
	var items []fyne.CanvasObject
	num := n.Start
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		marker := listBullets[depth%len(listBullets)]
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + "."
			num++
		}
		m := newMDText(inlineRun{Text: marker})
		m.Wrap = false
		body := container.NewVBox(r.blocks(it, depth+1)...)
		items = append(items, container.NewBorder(nil, nil, container.NewVBox(m), nil, body))
	}
	return container.NewVBox(items...)
}

// table draws a GFM table: a grid of cells with the header in bold and
// each column aligned as the table says; a table wider than the message
// scrolls sideways.
func (r *mdRenderer) table(n *east.Table) fyne.CanvasObject {
	var cells []fyne.CanvasObject
	cols := len(n.Alignments)
	rows := 0
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		_, header := row.(*east.TableHeader)
		i := 0
		for c := row.FirstChild(); c != nil && i < cols; c = c.NextSibling() {
			style := runStyle{Bold: header}
			t := newMDText(r.inlines(c, style)...)
			t.Wrap = false
			switch n.Alignments[i] {
			case east.AlignCenter:
				t.Align = fyne.TextAlignCenter
			case east.AlignRight:
				t.Align = fyne.TextAlignTrailing
			}
			cells = append(cells, t)
			i++
		}
		for ; i < cols; i++ {
			cells = append(cells, newMDText())
		}
		rows++
	}
	grid := &tableLayout{cols: cols}
	lines := make([]fyne.CanvasObject, 0, rows+1)
	lines = append(lines, newThemedRect(theme.ColorNameInputBackground, "", 0))
	for i := 0; i < rows; i++ {
		lines = append(lines, newThemedRect(theme.ColorNameSeparator, "", 0))
	}
	grid.lines = lines
	objs := append(lines, cells...)
	return container.NewHScroll(container.New(grid, objs...))
}

// tableLayout lays a table's cells out in columns as wide as their
// widest cell; it first holds the header's background and a rule under
// each row (grid.lines), then the cells row by row.
type tableLayout struct {
	cols  int
	lines []fyne.CanvasObject
}

// sizes returns the width of each column and the height of each row.
func (l *tableLayout) sizes(cells []fyne.CanvasObject) (widths, heights []float32) {
	widths = make([]float32, l.cols)
	for i, c := range cells {
		m := c.MinSize()
		col, row := i%l.cols, i/l.cols
		widths[col] = max(widths[col], m.Width+2*theme.Padding())
		if row >= len(heights) {
			heights = append(heights, 0)
		}
		heights[row] = max(heights[row], m.Height)
	}
	return widths, heights
}

// Layout implements fyne.Layout.
func (l *tableLayout) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	cells := objs[len(l.lines):]
	if l.cols == 0 {
		return
	}
	widths, heights := l.sizes(cells)
	var total float32
	for _, w := range widths {
		total += w
	}
	var y float32
	for i, c := range cells {
		col, row := i%l.cols, i/l.cols
		var x float32
		for _, w := range widths[:col] {
			x += w
		}
		if col == 0 && i > 0 {
			y += heights[row-1] + 1
		}
		pad := theme.Padding()
		c.Move(fyne.NewPos(x+pad, y))
		c.Resize(fyne.NewSize(widths[col]-2*pad, heights[row]))
	}
	if len(heights) > 0 {
		l.lines[0].Move(fyne.NewPos(0, 0))
		l.lines[0].Resize(fyne.NewSize(total, heights[0]))
	}
	y = 0
	for i, h := range heights {
		y += h
		if i+1 < len(l.lines) {
			l.lines[i+1].Move(fyne.NewPos(0, y))
			l.lines[i+1].Resize(fyne.NewSize(total, 1))
		}
		y++
	}
}

// MinSize implements fyne.Layout.
func (l *tableLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if l.cols == 0 {
		return fyne.Size{}
	}
	widths, heights := l.sizes(objs[len(l.lines):])
	var s fyne.Size
	for _, w := range widths {
		s.Width += w
	}
	for _, h := range heights {
		s.Height += h + 1
	}
	return s
}

// lines returns the text of a block's lines, without the last line break.
func (r *mdRenderer) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// inlines returns the runs of n's inline children, in style.
func (r *mdRenderer) inlines(n ast.Node, style runStyle) []inlineRun {
	var out []inlineRun
	add := func(s string, st runStyle) {
		if s == "" {
			return
		}
		if k := len(out); k > 0 && out[k-1].Style == st {
			out[k-1].Text += s
			return
		}
		out = append(out, inlineRun{Text: s, Style: st})
	}
	var walk func(n ast.Node, st runStyle)
	walk = func(n ast.Node, st runStyle) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				v := c.Value(r.src)
				if !c.IsRaw() {
					v = util.UnescapePunctuations(v)
					v = util.ResolveNumericReferences(v)
					v = util.ResolveEntityNames(v)
				}
				add(string(v), st)
				switch {
				case c.HardLineBreak():
					add("\n", st)
				case c.SoftLineBreak():
					add(" ", st)
				}
			case *ast.String:
				add(string(c.Value), st)
			case *ast.CodeSpan:
				var b strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if s, ok := t.(*ast.Text); ok {
						b.Write(s.Value(r.src))
					}
				}
				cs := st
				cs.Code = true
				add(b.String(), cs)
			case *ast.Emphasis:
				es := st
				if c.Level >= 2 {
					es.Bold = true
				} else {
					es.Italic = true
				}
				walk(c, es)
			case *east.Strikethrough:
				ss := st
				ss.Strike = true
				walk(c, ss)
			case *ast.Link:
				ls := st
				ls.URL = safeURL(string(c.Destination))
				walk(c, ls)
			case *ast.AutoLink:
				ls := st
				u := string(c.URL(r.src))
				if c.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(u, "mailto:") {
					u = "mailto:" + u
				} else if !strings.Contains(u, "://") && !strings.HasPrefix(u, "mailto:") {
					u = "https://" + u
				}
				ls.URL = safeURL(u)
				add(string(c.Label(r.src)), ls)
			case *ast.Image:
				ls := st
				ls.URL = safeURL(string(c.Destination))
				add("[", st)
				walk(c, ls)
				add("]", st)
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					add(string(seg.Value(r.src)), st)
				}
			case *east.TaskCheckBox:
				if c.IsChecked {
					add("☑ ", st)
				} else {
					add("☐ ", st)
				}
			case *mathNode:
				ms := st
				ms.Italic = true
				add(latexText(c.TeX), ms)
			default:
				walk(c, st)
			}
		}
	}
	walk(n, style)
	return out
}

// safeURL parses a link's target; only web and mail links open (a reply
// is untrusted text: a file: or custom-scheme link must not run
// anything). nil: the link shows as text.
func safeURL(s string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
		return u
	}
	return nil
}
