package app

// Saji's theme: Fyne's default fonts, icons and sizes with Saji's own
// colours. Every colour the app draws comes from here, by name, with a
// dark and a light value; text colours reach WCAG AA contrast (4.5:1)
// against every background they are drawn on, and the outlines of
// controls (radio buttons, check boxes, entries) 3:1, so that an
// unselected choice does not look disabled (theme_test.go checks both
// over every view).

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Theme names, as Settings.Theme holds them.
const (
	themeSystem = "system"
	themeLight  = "light"
	themeDark   = "dark"
)

// Saji's own colour names, beside Fyne's.
const (
	// colorNameUserBubble is the background of the person's messages.
	colorNameUserBubble fyne.ThemeColorName = "saji.userBubble"
	// colorNameCodeBackground is the background of code blocks.
	colorNameCodeBackground fyne.ThemeColorName = "saji.codeBackground"
)

// variantColor is a colour's dark and light values.
type variantColor struct{ dark, light color.NRGBA }

// rgb is an opaque colour from its 0xRRGGBB value.
func rgb(v uint32) color.NRGBA {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// rgba is a colour from its 0xRRGGBB value and its opacity.
func rgba(v uint32, a uint8) color.NRGBA {
	c := rgb(v)
	c.A = a
	return c
}

// palette is Saji's colours. The names Fyne's default theme has and this
// leaves out keep the default theme's values. Fyne draws low-importance
// labels (hints, paths, figures) in ColorNameDisabled, so it is a grey
// that reads (4.5:1), not the default's near-background one; errors,
// warnings and successes are darker in the light variant, where the
// default's bright values fail against white; in the dark variant the
// primary colour is light enough to be read as text, and the text on it
// dark.
var palette = map[fyne.ThemeColorName]variantColor{
	theme.ColorNameBackground:          {rgb(0x171718), rgb(0xffffff)},
	theme.ColorNameForeground:          {rgb(0xf3f3f3), rgb(0x202124)},
	theme.ColorNameDisabled:            {rgb(0xb4b4b9), rgb(0x58585d)},
	theme.ColorNamePlaceHolder:         {rgb(0xb4b4b9), rgb(0x5f5f64)},
	theme.ColorNameInputBorder:         {rgb(0x808087), rgb(0x7c7c82)},
	theme.ColorNameInputBackground:     {rgb(0x202023), rgb(0xf3f3f4)},
	theme.ColorNameButton:              {rgb(0x28292e), rgb(0xf0f0f2)},
	theme.ColorNameDisabledButton:      {rgb(0x28292e), rgb(0xf0f0f2)},
	theme.ColorNamePrimary:             {rgb(0x5b9cff), rgb(0x1a5fd6)},
	theme.ColorNameForegroundOnPrimary: {rgb(0x101114), rgb(0xffffff)},
	theme.ColorNameHyperlink:           {rgb(0x6fa8ff), rgb(0x1a5fd6)},
	theme.ColorNameError:               {rgb(0xff6b5e), rgb(0xc62828)},
	theme.ColorNameForegroundOnError:   {rgb(0x101114), rgb(0xffffff)},
	theme.ColorNameSuccess:             {rgb(0x5fdc6a), rgb(0x1b7a2a)},
	theme.ColorNameForegroundOnSuccess: {rgb(0x101114), rgb(0xffffff)},
	theme.ColorNameWarning:             {rgb(0xffa726), rgb(0x9a4f00)},
	theme.ColorNameForegroundOnWarning: {rgb(0x101114), rgb(0xffffff)},
	theme.ColorNameSelection:           {rgba(0x5b9cff, 0x33), rgba(0x1a5fd6, 0x22)},
	theme.ColorNameFocus:               {rgba(0x5b9cff, 0x60), rgba(0x1a5fd6, 0x40)},
	theme.ColorNameSeparator:           {rgb(0x000000), rgb(0xdcdce0)},
	theme.ColorNameOverlayBackground:   {rgb(0x1c1f26), rgb(0xffffff)},
	theme.ColorNameMenuBackground:      {rgb(0x28292e), rgb(0xf5f5f6)},
	theme.ColorNameHeaderBackground:    {rgb(0x1b1b1d), rgb(0xf7f7f8)},
	colorNameUserBubble:                {rgb(0x262a33), rgb(0xe9eef8)},
	colorNameCodeBackground:            {rgb(0x202023), rgb(0xf3f3f4)},
}

// sajiTheme is Saji's theme: Fyne's default theme with palette's colours,
// in the variant the system prefers or, when forced, always in variant.
type sajiTheme struct {
	forced  bool
	variant fyne.ThemeVariant
}

// Color returns the colour n in t's variant (v unless t is forced).
func (t sajiTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if t.forced {
		v = t.variant
	}
	if c, ok := palette[n]; ok {
		if v == theme.VariantLight {
			return c.light
		}
		return c.dark
	}
	return theme.DefaultTheme().Color(n, v)
}

// Font returns the default theme's font.
func (sajiTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

// Icon returns the default theme's icon.
func (sajiTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size returns the default theme's size.
func (sajiTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }

// themeNamed returns the theme a Settings.Theme name asks for: "light"
// and "dark" force that variant; "system" (or anything else) follows the
// system's preference.
func themeNamed(name string) fyne.Theme {
	switch name {
	case themeLight:
		return sajiTheme{forced: true, variant: theme.VariantLight}
	case themeDark:
		return sajiTheme{forced: true, variant: theme.VariantDark}
	}
	return sajiTheme{}
}

// applyTheme sets a's theme by name (themeNamed).
func applyTheme(a fyne.App, name string) {
	a.Settings().SetTheme(themeNamed(name))
}

// themedRect is a rectangle filled (and outlined, when stroke is set)
// with theme colours by name, which follows theme changes: a
// canvas.Rectangle given theme.Color once keeps the colour of the theme
// it was made in.
type themedRect struct {
	widget.BaseWidget
	fill, stroke fyne.ThemeColorName
	radius       float32
	rect         *canvas.Rectangle
}

// newThemedRect returns a rectangle in the theme's fill colour with
// corners of radius, outlined in stroke unless it is "".
func newThemedRect(fill, stroke fyne.ThemeColorName, radius float32) *themedRect {
	r := &themedRect{fill: fill, stroke: stroke, radius: radius, rect: canvas.NewRectangle(color.Transparent)}
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer implements fyne.Widget.
func (r *themedRect) CreateRenderer() fyne.WidgetRenderer {
	rr := &themedRectRenderer{r: r, WidgetRenderer: widget.NewSimpleRenderer(r.rect)}
	rr.paint()
	return rr
}

// themedRectRenderer resolves the rectangle's colours at every refresh.
type themedRectRenderer struct {
	fyne.WidgetRenderer
	r *themedRect
}

// paint sets the rectangle's colours from the current theme.
func (rr *themedRectRenderer) paint() {
	r := rr.r
	th := r.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.rect.FillColor = th.Color(r.fill, v)
	r.rect.CornerRadius = r.radius
	if r.stroke != "" {
		r.rect.StrokeColor, r.rect.StrokeWidth = th.Color(r.stroke, v), 1
	}
}

// Refresh implements fyne.WidgetRenderer.
func (rr *themedRectRenderer) Refresh() {
	rr.paint()
	rr.WidgetRenderer.Refresh()
}

// relativeLuminance is c's relative luminance as WCAG 2 defines it (0
// black to 1 white), ignoring its opacity.
func relativeLuminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(n.R) + 0.7152*lin(n.G) + 0.0722*lin(n.B)
}

// contrastRatio is the WCAG 2 contrast ratio of two opaque colours, from
// 1 (the same) to 21 (black on white).
func contrastRatio(a, b color.Color) float64 {
	la, lb := relativeLuminance(a), relativeLuminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// over composites c over the opaque colour bg by c's opacity.
func over(c, bg color.Color) color.NRGBA {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(f.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{R: mix(f.R, b.R), G: mix(f.G, b.G), B: mix(f.B, b.B), A: 0xff}
}

// newProgressBar returns a progress bar without the percentage Fyne
// writes inside it: that is drawn in one colour over both the bar and its
// faded track, and no colour reads on both in either variant. The views
// say their figures beside the bar.
func newProgressBar() *widget.ProgressBar {
	p := widget.NewProgressBar()
	p.TextFormatter = func() string { return "" }
	return p
}
