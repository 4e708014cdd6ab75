package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme names, as Settings.Theme holds them.
const (
	themeSystem = "system"
	themeLight  = "light"
	themeDark   = "dark"
)

// variantTheme is Fyne's default theme held to one variant, light or
// dark, whatever the system prefers.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

// Color returns the default theme's color n in t's variant.
func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// applyTheme sets a's theme by name: "light" and "dark" force that
// variant of the default theme; "system" (or anything else) is the default
// theme, which follows the system's preference.
func applyTheme(a fyne.App, name string) {
	switch name {
	case themeLight:
		a.Settings().SetTheme(variantTheme{Theme: theme.DefaultTheme(), variant: theme.VariantLight})
	case themeDark:
		a.Settings().SetTheme(variantTheme{Theme: theme.DefaultTheme(), variant: theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}
