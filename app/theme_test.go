package app

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// minTextContrast is WCAG AA's least contrast for text; minControlContrast
// its least for the parts of controls (1.4.11).
const (
	minTextContrast    = 4.5
	minControlContrast = 3.0
)

func TestContrastRatio(t *testing.T) {
	tests := []struct {
		a, b color.Color
		want float64
	}{
		{color.White, color.Black, 21},
		{color.White, color.White, 1},
		{rgb(0x767676), color.White, 4.54}, // the lightest grey AA allows on white
		{rgb(0x43f436), color.White, 1.48}, // the default theme's success green
	}
	for _, tt := range tests {
		if got := contrastRatio(tt.a, tt.b); got < tt.want-0.01 || got > tt.want+0.01 {
			t.Errorf("contrast(%v, %v) = %.3f, want %.2f", tt.a, tt.b, got, tt.want)
		}
	}
	if got := over(rgba(0x000000, 0x80), color.White); got.R != 0x7f {
		t.Errorf("half black over white: %v", got)
	}
}

// TestThemePalette checks the pairs the widgets draw: each text colour
// on each background it appears on, and each control outline on the
// backgrounds.
func TestThemePalette(t *testing.T) {
	backgrounds := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground,
		theme.ColorNameButton, theme.ColorNameOverlayBackground, theme.ColorNameMenuBackground,
		theme.ColorNameHeaderBackground, colorNameUserBubble, colorNameCodeBackground}
	texts := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNamePrimary, theme.ColorNameHyperlink, theme.ColorNameError, theme.ColorNameSuccess, theme.ColorNameWarning}
	on := map[fyne.ThemeColorName]fyne.ThemeColorName{
		theme.ColorNameForegroundOnPrimary: theme.ColorNamePrimary,
		theme.ColorNameForegroundOnError:   theme.ColorNameError,
		theme.ColorNameForegroundOnSuccess: theme.ColorNameSuccess,
		theme.ColorNameForegroundOnWarning: theme.ColorNameWarning,
	}
	for _, variant := range []string{themeDark, themeLight} {
		th := themeNamed(variant)
		c := func(n fyne.ThemeColorName) color.Color { return th.Color(n, 0) }
		for _, bg := range backgrounds {
			for _, fg := range texts {
				if r := contrastRatio(c(fg), c(bg)); r < minTextContrast {
					t.Errorf("%s: %s text on %s: %.2f:1", variant, fg, bg, r)
				}
			}
			// The selection is translucent: text on a selected row.
			sel := over(c(theme.ColorNameSelection), c(bg))
			for _, fg := range texts[:2] {
				if r := contrastRatio(c(fg), sel); r < minTextContrast {
					t.Errorf("%s: %s text on the selection over %s: %.2f:1", variant, fg, bg, r)
				}
			}
			if r := contrastRatio(c(theme.ColorNameInputBorder), c(bg)); r < minControlContrast && bg != theme.ColorNameInputBackground {
				t.Errorf("%s: control outlines on %s: %.2f:1", variant, bg, r)
			}
		}
		for fg, bg := range on {
			if r := contrastRatio(c(fg), c(bg)); r < minTextContrast {
				t.Errorf("%s: %s on %s: %.2f:1", variant, fg, bg, r)
			}
		}
	}
}

func TestThemeVariantForced(t *testing.T) {
	bg := theme.ColorNameBackground
	for _, tc := range []struct {
		name    string
		variant fyne.ThemeVariant
		forced  bool
	}{
		{"light", theme.VariantLight, true},
		{"dark", theme.VariantDark, true},
		{"system", 0, false},
		{"", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			applyTheme(a, tc.name)
			th := a.Settings().Theme()
			def := theme.DefaultTheme()
			for _, asked := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
				want := palette[bg].dark
				if v := asked; tc.forced && tc.variant == theme.VariantLight || !tc.forced && v == theme.VariantLight {
					want = palette[bg].light
				}
				if got := th.Color(bg, asked); got != want {
					t.Errorf("background asked as variant %d: %v, want %v", asked, got, want)
				}
			}
			if th.Size(theme.SizeNameText) != def.Size(theme.SizeNameText) || th.Font(fyne.TextStyle{}) != def.Font(fyne.TextStyle{}) {
				t.Error("the theme changes more than colors")
			}
		})
	}
}

// paintedRect is a filled rectangle as the painter draws it.
type paintedRect struct {
	min, max         fyne.Position // in the canvas
	clipMin, clipMax fyne.Position
	fill             color.Color
}

// paintedText is a text as the painter draws it, and the colour under it.
type paintedText struct {
	text   string
	fg, bg color.NRGBA
	at     fyne.Position
	// under is the number of rectangles painted before the text.
	under int
	// inkMin, inkMax bound the text's glyphs (within its clip).
	inkMin, inkMax fyne.Position
}

// contains reports whether p lies in r and its clip.
func (r paintedRect) contains(p fyne.Position) bool {
	return p.X >= r.min.X && p.Y >= r.min.Y && p.X < r.max.X && p.Y < r.max.Y &&
		p.X >= r.clipMin.X && p.Y >= r.clipMin.Y && p.X < r.clipMax.X && p.Y < r.clipMax.Y
}

// isClip reports whether o clips its children, as Fyne's painters do:
// scrollers and widgets whose renderer says so.
func isClip(o fyne.CanvasObject) bool {
	if _, ok := o.(fyne.Scrollable); ok {
		return true
	}
	if w, ok := o.(fyne.Widget); ok {
		_, clip := test.WidgetRenderer(w).(interface{ IsClip() })
		return clip
	}
	return false
}

// paintedTexts walks what c paints (its content, then its overlays) in
// the painter's order, and returns every visible text with the colour
// of what lies under its middle and its two ends: the window's
// background with each rectangle painted there before the text
// composited over it by its opacity. Text scrolled out of view is left
// out, and so is text under a rectangle painted after it.
func paintedTexts(c fyne.Canvas) []paintedText {
	var rects []paintedRect
	var texts []paintedText
	base := theme.Color(theme.ColorNameBackground)
	big := fyne.NewPos(1e9, 1e9)
	var walk func(o fyne.CanvasObject, offset, clipMin, clipMax fyne.Position)
	walk = func(o fyne.CanvasObject, offset, clipMin, clipMax fyne.Position) {
		if o == nil || !o.Visible() {
			return
		}
		pos := o.Position().Add(offset)
		end := pos.Add(o.Size())
		if isClip(o) {
			clipMin = fyne.NewPos(max(clipMin.X, pos.X), max(clipMin.Y, pos.Y))
			clipMax = fyne.NewPos(min(clipMax.X, end.X), min(clipMax.Y, end.Y))
		}
		switch o := o.(type) {
		case *canvas.Rectangle:
			if o.FillColor != nil {
				if _, _, _, a := o.FillColor.RGBA(); a > 0 {
					rects = append(rects, paintedRect{pos, end, clipMin, clipMax, o.FillColor})
				}
			}
		case *canvas.Text:
			if strings.TrimSpace(o.Text) == "" || o.Color == nil {
				return
			}
			w := min(o.MinSize().Width, o.Size().Width)
			x := pos.X
			switch o.Alignment {
			case fyne.TextAlignCenter:
				x += (o.Size().Width - w) / 2
			case fyne.TextAlignTrailing:
				x += o.Size().Width - w
			}
			y := pos.Y + o.Size().Height/2
			inkMin := fyne.NewPos(max(x, clipMin.X), max(pos.Y, clipMin.Y))
			inkMax := fyne.NewPos(min(x+w, clipMax.X), min(pos.Y+o.Size().Height, clipMax.Y))
			for _, p := range []fyne.Position{{X: x + 1, Y: y}, {X: x + w/2, Y: y}, {X: x + w - 1, Y: y}} {
				in := paintedRect{min: p, max: p.Add(fyne.NewPos(1, 1)), clipMin: clipMin, clipMax: clipMax}
				if !in.contains(p) {
					continue
				}
				bg := over(base, color.Black)
				for _, r := range rects {
					if r.contains(p) {
						bg = over(r.fill, bg)
					}
				}
				texts = append(texts, paintedText{text: o.Text, fg: over(o.Color, bg), bg: bg, at: p, under: len(rects), inkMin: inkMin, inkMax: inkMax})
			}
			return
		}
		var children []fyne.CanvasObject
		switch o := o.(type) {
		case *fyne.Container:
			children = o.Objects
		case fyne.Widget:
			children = test.WidgetRenderer(o).Objects()
		}
		for _, ch := range children {
			walk(ch, pos, clipMin, clipMax)
		}
	}
	walk(c.Content(), fyne.Position{}, fyne.Position{}, big)
	for _, o := range c.Overlays().List() {
		walk(o, fyne.Position{}, fyne.Position{}, big)
	}
	// Text that a rectangle painted later covers is hidden or dimmed on
	// purpose (the chat under the welcome page, the window under a
	// dialog's shade).
	seen := texts[:0]
	for _, p := range texts {
		covered := false
		for _, r := range rects[p.under:] {
			if r.contains(p.at) {
				covered = true
				break
			}
		}
		if !covered {
			seen = append(seen, p)
		}
	}
	return seen
}

// lowContrast returns a line for each text c paints with less than
// minTextContrast against what is under it, measured twice: with the
// colours the painter is given (paintedTexts), and on the picture it
// paints (img, c.Capture()), where the pixel in the text's box that
// stands out most from the background must reach the ratio too (glyph
// edges are blended, but every stroke has pixels of the full colour).
func lowContrast(c fyne.Canvas, img image.Image) (bad []string, checked int) {
	seen := map[string]bool{}
	report := func(line string) {
		if !seen[line] {
			seen[line] = true
			bad = append(bad, line)
		}
	}
	boxes := map[image.Rectangle]bool{}
	for _, p := range paintedTexts(c) {
		checked++
		if r := contrastRatio(p.fg, p.bg); r < minTextContrast {
			report(fmt.Sprintf("%q: %.2f:1 (%v on %v)", p.text, r, p.fg, p.bg))
		}
		box := image.Rect(int(p.inkMin.X), int(p.inkMin.Y), int(p.inkMax.X), int(p.inkMax.Y)).Intersect(img.Bounds())
		if boxes[box] || box.Empty() {
			continue
		}
		boxes[box] = true
		best := 1.0
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				best = max(best, contrastRatio(img.At(x, y), p.bg))
			}
		}
		if best < minTextContrast {
			report(fmt.Sprintf("%q: %.2f:1 on the screenshot in %v", p.text, best, box))
		}
	}
	return bad, checked
}
